// Slices along one dim: resolving slice_copy/slice_scatter's arguments, and
// copying a [start, start + length * step) slice (slice_copy,
// split_with_sizes_copy).
#pragma once

#include <cstdint>

#include "sb/error.h"
#include "sb/tensor.h"
#include "sb/value.h"

namespace sb::kernels {

// The elements a slice takes along `dim`: start, start + step, ... (length of them).
struct SliceSpec {
  int32_t dim = 0;
  int64_t start = 0;
  int64_t step = 1;
  int64_t length = 0;
};

// Resolves (dim, start, end, step) as Python slicing does: dim may be
// negative; start and end (None or an int) count from the end when negative
// and clamp to [0, size]; step must be positive; self must not be 0-d.
Error resolve_slice(const char* op, const Tensor& self, int64_t dim, const Value& start, const Value& end,
                    int64_t step, SliceSpec* spec);

// out must already be checked to have self's shape with `length` at `dim`.
void copy_slice(const Tensor& self, int32_t dim, int64_t start, int64_t step, const Tensor& out);

}  // namespace sb::kernels
