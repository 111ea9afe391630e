// libFuzzer targets for the .pte loader, built with -DSB_FUZZ=ON (clang),
// under AddressSanitizer and UndefinedBehaviorSanitizer:
//
//   pte_fuzzer       loads every input as a program and, when it loads,
//                    executes it on zero-filled inputs;
//   pte_load_fuzzer  only loads (Program::load + Method::load), so the parser
//                    is explored at many more inputs per second.
//
// Small budgets keep one input cheap: libFuzzer's own memory and time limits
// are for bugs, not for programs the runtime refuses by design.
#include <cstddef>
#include <cstdint>

#include "sb/limits.h"
#include "sb/method.h"
#include "sb/program.h"
#include "sb/registry.h"

#ifndef SB_FUZZ_EXECUTE
#define SB_FUZZ_EXECUTE 1
#endif

namespace {

const sb::OpRegistry& registry() {
  static sb::OpRegistry instance;
  static const bool registered = sb::register_kernels(instance).ok();
  (void)registered;
  return instance;
}

sb::RuntimeLimits fuzz_limits() {
  sb::RuntimeLimits limits;
  limits.memory_bytes = uint64_t{64} << 20;
  limits.work_bytes = uint64_t{256} << 20;
  return limits;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  sb::Result<sb::Program> program = sb::Program::load(data, size);
  if (!program.ok()) return 0;
  sb::Method method;
  if (!method.load(program.value, "forward", registry(), "fuzz", fuzz_limits()).ok()) return 0;
#if SB_FUZZ_EXECUTE
  (void)method.execute();  // errors are fine; crashes and sanitizer reports are not
#endif
  return 0;
}
