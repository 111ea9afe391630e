// Copying a [start, start + length * step) slice along one dim, shared by
// slice_copy and split_with_sizes_copy.
#pragma once

#include "sb/error.h"
#include "sb/tensor.h"

namespace sb::kernels {

// out must already be checked to have self's shape with `length` at `dim`.
void copy_slice(const Tensor& self, int32_t dim, int64_t start, int64_t step, const Tensor& out);

}  // namespace sb::kernels
