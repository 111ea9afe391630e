// The size probe of a bare-metal build (Arm Cortex-M): the role of
// core_size_probe.cpp's runtime_size_probe, without a file system. The
// program comes from a buffer symbol, as firmware embeds its model in flash:
// define sb_program / sb_program_size (strong symbols, e.g. from an objcopy'd
// .pte) to run a real one; the weak defaults are an empty program, which load
// rejects. Either way every selected kernel is linked through the registry,
// which is what the size of a selective runtime is.
#include <cstddef>

#include "run_program.h"

extern "C" {
__attribute__((weak)) extern const unsigned char sb_program[] = {0};
__attribute__((weak)) extern const size_t sb_program_size = 0;
// Set when main returns: a debugger (or a test harness) reads the outcome here; there is no stdout.
volatile int sb_probe_status = -1;
}

int main() {
  const sb::Error err = sb_probe::run_program(sb_program, sb_program_size);
  sb_probe_status = err.ok() ? 0 : static_cast<int>(err.code());
  return err.ok() ? 0 : 1;
}
