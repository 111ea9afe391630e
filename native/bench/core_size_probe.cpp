// A minimal runtime binary: loads and executes a program. Built as
// core_size_probe it has an empty registry (the "core runtime" figure in
// BENCHMARKS.md); built as runtime_size_probe (SB_WITH_KERNELS) it links the
// flavour's selected kernels, which is the size of that selective runtime.
#include <cstdio>
#include <cstdlib>

#include "read_program.h"
#include "run_program.h"
#include "sb/registry.h"

#ifndef SB_WITH_KERNELS
namespace sb {
Error register_kernels(OpRegistry& /*registry*/) { return Error(); }
}  // namespace sb
#endif

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  size_t size = 0;
  unsigned char* buffer = sb_probe::read_program(argv[1], &size);
  if (buffer == nullptr) return 2;

  const sb::Error err = sb_probe::run_program(buffer, size);
  puts(err.message());
  free(buffer);
  return err.ok() ? 0 : 1;
}
