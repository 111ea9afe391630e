// Window geometry shared by the 2-D pooling kernels (PyTorch's rules,
// including ceil_mode's "last window must start inside the input").
#pragma once

#include "sb/error.h"
#include "sb/span.h"
#include "sb/tensor.h"

namespace sb::kernels {

struct PoolGeometry {
  int64_t planes;  // N * C
  int64_t h, w, oh, ow;
  int64_t kh, kw, sh, sw, ph, pw, dh, dw;
};

// stride empty means stride = kernel; dilation empty means 1.
Error pool_geometry(const char* op, const Tensor& in, Span<const int64_t> kernel, Span<const int64_t> stride,
                    Span<const int64_t> padding, Span<const int64_t> dilation, bool ceil_mode, PoolGeometry* g);

// The shape of `in` (3-D or 4-D) pooled to oh x ow: its leading dims, then oh and ow.
void pooled_sizes(const Tensor& in, int64_t oh, int64_t ow, int64_t* sizes);

// The output shape for `in` (3-D or 4-D).
inline void pool_out_sizes(const Tensor& in, const PoolGeometry& g, int64_t* sizes) {
  pooled_sizes(in, g.oh, g.ow, sizes);
}

// Adaptive pooling's window of output o (of out_size) over in_size: [floor(o * in / out),
// ceil((o + 1) * in / out)). o * in_size may exceed int64 for sizes a program can claim, and
// 32-bit targets have no 128-bit integers: with in_size = q * out_size + r,
// o * in_size / out_size = o * q + o * r / out_size, where o, r < out_size <= 2^24
// (plausible_geometry) keep o * r, and in_size <= 2^40 (a tensor's extent) keeps o * q, in range.
inline int64_t adaptive_start(int64_t o, int64_t out_size, int64_t in_size) {
  return o * (in_size / out_size) + o * (in_size % out_size) / out_size;
}
inline int64_t adaptive_end(int64_t o, int64_t out_size, int64_t in_size) {
  return (o + 1) * (in_size / out_size) + ((o + 1) * (in_size % out_size) + out_size - 1) / out_size;
}

// Where a 3-D or 4-D tensor's elements are, in any dim order: plane p (the
// leading dims flattened, as PoolGeometry::planes counts them) starts at
// plane(p), and rows and columns step by h and w elements.
class PlaneIndex {
 public:
  explicit PlaneIndex(const Tensor& t);
  int64_t plane(int64_t p) const {
    return lead_ == 1 ? p * lead_strides_[0] : (p / inner_) * lead_strides_[0] + (p % inner_) * lead_strides_[1];
  }
  int64_t h = 0, w = 0;

 private:
  int32_t lead_;  // 1 or 2 leading dims
  int64_t inner_ = 1;
  int64_t lead_strides_[2] = {};
};

}  // namespace sb::kernels
