// select_scatter and slice_scatter: out = self with src written into a
// strided view of it (the inverse of select_copy / slice_copy).
#pragma once

#include <cstring>

#include "sb/tensor.h"
#include "util/dtype_switch.h"
#include "util/shape.h"
#include "util/strided.h"

namespace sb::kernels {

// out gets self, then src (shape `sizes`, contiguous) at the elements of out
// that `view` addresses; the caller built `view` inside self's shape.
template <const char* Op>
Error scatter_into_view(const Tensor& self, const Tensor& src, const Layout& view, const int64_t* sizes, int32_t rank,
                        Tensor& out) {
  Error err = check_shape(Op, "src", src, sizes, rank);
  if (!err.ok()) return err;
  if (!(err = resize_output_like(Op, out, self)).ok()) return err;
  if (!(err = check_dtype(Op, "self", self, out.dtype)).ok()) return err;
  if (!(err = check_dtype(Op, "src", src, out.dtype)).ok()) return err;
  if (src.data == out.data && src.numel() != 0) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: out must not alias src", Op);
  }
  return switch_dtype<Op, kRealHBBF16>(out.dtype, [&](auto zero) {
    (void)zero;
    if (out.data != self.data && self.nbytes() != 0) memmove(out.data, self.data, self.nbytes());
    walk_copy(src.data, contiguous_layout(sizes, rank), out.data, view, sizes, rank, element_size(out.dtype));
    return Error();
  });
}

}  // namespace sb::kernels
