// The Tensor side of _softmax.out's and _log_softmax.out's fast paths
// (optimized/microkernels/softmax_rows.h).
#pragma once

#include "optimized/microkernels/softmax_rows.h"
#include "sb/kernel.h"

namespace sb::optimized {

// args: (self, dim, half_to_float, out). The portable kernel's checks, in its
// order; false sends the call to the portable kernel (other dtypes, a 0-d or
// empty self, half_to_float, or any failed check, which it then reports).
bool prepare_softmax_f32(const char* op, Args args, SoftmaxShape* shape);

}  // namespace sb::optimized
