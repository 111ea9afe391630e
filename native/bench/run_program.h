// The probes' run, shared so that the host and bare-metal size probes measure
// the same sequence: register the kernels, load the program, load its
// "forward" method and execute it once.
#pragma once
#include <cstddef>

#include "sb/method.h"
#include "sb/program.h"
#include "sb/registry.h"

namespace sb_probe {

// The first error of the sequence, or ok.
inline sb::Error run_program(const unsigned char* data, size_t size) {
  sb::OpRegistry registry;
  sb::Error err = sb::register_kernels(registry);
  sb::Result<sb::Program> program = sb::Program::load(data, size);
  sb::Method method;
  if (err.ok()) err = program.ok() ? method.load(program.value, "forward", registry, "probe") : program.error;
  if (err.ok()) err = method.execute();
  return err;
}

}  // namespace sb_probe
