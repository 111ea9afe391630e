// The qs8 max pooling micro-kernel: one output row of an NCHW plane, through two passes over a
// padded row: the column-wise max of the window's input rows, then the row-wise max of the window's
// columns, picked at the stride.
#pragma once

#include <cstdint>

namespace sb::xnnpack_nodes::qs8 {

// Windows whose padded rows are at most this many bytes run the kernel (others the node's own loop).
constexpr int64_t kPoolRowBytes = 1024;

struct PoolGeometry {
  int64_t h, w, ow;
  const int64_t *kernel, *stride, *padding, *dilation;  // [2] each
  int8_t lo, hi;                                         // the output's bounds
};

// Output row oy of the plane x (h x w) into y (ow bytes).
using MaxPoolRowKernel = void (*)(const int8_t* x, const PoolGeometry& g, int64_t oy, int8_t* y);

void max_pool_row_scalar(const int8_t* x, const PoolGeometry& g, int64_t oy, int8_t* y);

}  // namespace sb::xnnpack_nodes::qs8
