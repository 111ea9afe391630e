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

// The output shape for `in` (3-D or 4-D).
void pool_out_sizes(const Tensor& in, const PoolGeometry& g, int64_t* sizes);

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
