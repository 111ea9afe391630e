#include "sb/error.h"

#include <cstdarg>
#include <cstdio>
#include <cstring>

namespace sb {
namespace {

// Writes the message after `prefix` into `out`; messages are single lines by
// contract, so any newline a caller embedded is folded.
void format_message(char* out, size_t cap, const char* prefix, const char* format, va_list args) {
  const size_t skip = strlen(prefix);
  memcpy(out, prefix, skip);
  vsnprintf(out + skip, cap - skip, format, args);
  for (char* p = out; *p; ++p) {
    if (*p == '\n' || *p == '\r') *p = ' ';
  }
}

}  // namespace

Error Error::make(ErrorCode code, const char* format, ...) {
  Error e;
  e.code_ = code;
  va_list args;
  va_start(args, format);
  format_message(e.message_, kMaxMessage, "", format, args);
  va_end(args);
  return e;
}

Error Error::invalid_program(const char* format, ...) {
  Error e;
  e.code_ = ErrorCode::kInvalidProgram;
  va_list args;
  va_start(args, format);
  format_message(e.message_, kMaxMessage, "invalid program: ", format, args);
  va_end(args);
  return e;
}

}  // namespace sb
