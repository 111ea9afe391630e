// Which reductions of a tensor the block micro-kernels of
// optimized/microkernels/reduce_block.h take (sum, mean, adaptive average pooling).
#pragma once

#include <cstdint>

#include "optimized/microkernels/reduce_block.h"
#include "sb/span.h"
#include "sb/tensor.h"

namespace sb::optimized {

// Whether reducing `dims` of `in` (its dims in the default dim order; empty:
// every dim) folds one block, and which. Negative dims count from the back;
// the caller has validated them (as the portable kernel's plan does).
bool reduction_block(const Tensor& in, Span<const int64_t> dims, ReductionBlock* block);

}  // namespace sb::optimized
