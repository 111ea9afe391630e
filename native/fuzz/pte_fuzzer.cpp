// libFuzzer target for the .pte loader and executor: every input is loaded as
// a program and, when it loads, executed on zero-filled inputs. Built with
// -DSB_FUZZ=ON (clang), under AddressSanitizer and UndefinedBehaviorSanitizer.
#include <cstddef>
#include <cstdint>

#include "sb/method.h"
#include "sb/program.h"
#include "sb/registry.h"

namespace {

const sb::OpRegistry& registry() {
  static sb::OpRegistry instance;
  static const bool registered = sb::register_kernels(instance).ok();
  (void)registered;
  return instance;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  sb::Result<sb::Program> program = sb::Program::load(data, size);
  if (!program.ok()) return 0;
  sb::Method method;
  if (!method.load(program.value, "forward", registry(), "fuzz").ok()) return 0;
  (void)method.execute();  // errors are fine; crashes and sanitizer reports are not
  return 0;
}
