#include "sb/error.h"

#include <cstdarg>
#include <cstdio>
#include <cstring>

namespace sb {

Error::Error(const Error& other) : code_(other.code_) {
  if (!ok()) memcpy(message_, other.message_, kMaxMessage);
}

Error& Error::operator=(const Error& other) {
  code_ = other.code_;
  if (!ok() && this != &other) memcpy(message_, other.message_, kMaxMessage);
  return *this;
}

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
