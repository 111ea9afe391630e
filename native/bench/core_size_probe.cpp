// A minimal runtime binary: loads and executes a program. Built as
// core_size_probe it has an empty registry (the "core runtime" figure in
// BENCHMARKS.md); built as runtime_size_probe (SB_WITH_KERNELS) it links the
// flavour's selected kernels, which is the size of that selective runtime.
#include <cstdio>
#include <cstdlib>

#include "sb/method.h"
#include "sb/program.h"
#include "sb/registry.h"

#ifndef SB_WITH_KERNELS
namespace sb {
Error register_kernels(OpRegistry& /*registry*/) { return Error(); }
}  // namespace sb
#endif

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  FILE* f = fopen(argv[1], "rb");
  if (f == nullptr) return 2;
  static unsigned char buffer[1 << 20];
  const size_t size = fread(buffer, 1, sizeof buffer, f);
  fclose(f);

  sb::OpRegistry registry;
  sb::Error err = sb::register_kernels(registry);
  sb::Result<sb::Program> program = sb::Program::load(buffer, size);
  sb::Method method;
  if (err.ok()) err = program.ok() ? method.load(program.value, "forward", registry, "probe") : program.error;
  if (err.ok()) err = method.execute();
  puts(err.message());
  return err.ok() ? 0 : 1;
}
