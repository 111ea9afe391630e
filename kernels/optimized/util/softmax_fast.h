// Float softmax and log-softmax over one dim, shared by _softmax.out and
// _log_softmax.out's fast paths.
#pragma once

#include <cstdint>

#include "sb/kernel.h"
#include "sb/tensor.h"

namespace sb::optimized {

struct SoftmaxShape {
  int64_t outer = 0;  // product of the dims before `dim`
  int64_t n = 0;      // size of `dim`
  int64_t inner = 0;  // product of the dims after it (the stride of `dim`)
};

// args: (self, dim, half_to_float, out). The portable kernel's checks, in its
// order; false sends the call to the portable kernel (other dtypes, a 0-d or
// empty self, half_to_float, or any failed check, which it then reports).
bool prepare_softmax_f32(const char* op, Args args, SoftmaxShape* shape);

// softmax (log: log-softmax) of self into out along the planned dim; out may
// alias self. Out of line (softmax_fast.cpp): both kernels share it.
void run_softmax_f32(const Tensor& self, const Tensor& out, const SoftmaxShape& s, bool log);

}  // namespace sb::optimized
