#include "sb/error.h"

#include <cstdarg>
#include <cstdio>

namespace sb {

Error Error::make(ErrorCode code, const char* format, ...) {
  Error e;
  e.code_ = code;
  va_list args;
  va_start(args, format);
  vsnprintf(e.message_, kMaxMessage, format, args);
  va_end(args);
  // Messages are single lines by contract; fold any newline a caller embedded.
  for (char* p = e.message_; *p; ++p) {
    if (*p == '\n' || *p == '\r') *p = ' ';
  }
  return e;
}

}  // namespace sb
