// Errors are values: every fallible call returns an Error (or a Result<T>)
// carrying a code and a human-readable, single-line message. The runtime is
// built without exceptions, so this is the only error channel.
#pragma once

#include <cstddef>
#include <cstdint>

namespace sb {

enum class ErrorCode : uint8_t {
  kOk = 0,
  kInvalidProgram,   // the .pte is truncated, corrupt or inconsistent
  kMissingOperator,  // the program needs an op this build does not register
  kNotSupported,     // a valid feature this runtime does not implement
  kInvalidArgument,  // a kernel or API caller passed bad shapes/types
  kOutOfMemory,
  kMemoryBudget,  // load() would allocate more than RuntimeLimits::memory_bytes
  kWorkBudget,    // execute() did more than RuntimeLimits::work_bytes of work
  kDeadline,      // execute() ran past RuntimeLimits::deadline_ns
};

// Longest message an Error holds (with its terminator); longer ones are cut.
constexpr size_t kMaxErrorMessage = 256;

class Error {
 public:
  // Success is cheap: the message buffer is left untouched (message() never
  // reads it for kOk), so returning Error() costs no 256-byte clear.
  Error() : code_(ErrorCode::kOk) {}

  // printf-style message; truncated to fit, always NUL-terminated.
  static Error make(ErrorCode code, const char* format, ...)
      __attribute__((format(printf, 2, 3)));
  // kInvalidProgram, "invalid program: " then the printf-style message: the
  // loader's many such messages share one copy of the prefix.
  static Error invalid_program(const char* format, ...) __attribute__((format(printf, 1, 2)));

  bool ok() const { return code_ == ErrorCode::kOk; }
  ErrorCode code() const { return code_; }
  const char* message() const { return ok() ? "ok" : message_; }

 private:
  static constexpr size_t kMaxMessage = kMaxErrorMessage;
  ErrorCode code_;
  char message_[kMaxMessage];
};

template <typename T>
struct Result {
  Result(T v) : value(static_cast<T&&>(v)) {}  // NOLINT: implicit on purpose, like std::expected
  Result(const Error& e) : error(e), value() {}  // NOLINT
  bool ok() const { return error.ok(); }
  Error error;
  T value;
};

}  // namespace sb
