// pixel_shuffle and pixel_unshuffle: one strided walk each way between
// [..., C*r*r, H, W] and [..., C, H*r, W*r].
#pragma once

#include "sb/checked.h"
#include "sb/tensor.h"
#include "util/dtype_switch.h"
#include "util/shape.h"
#include "util/strided.h"

namespace sb::kernels {

// shuffle: in [..., C*r*r, H, W] -> out [..., C, H*r, W*r]; otherwise the inverse.
template <const char* Op>
Error pixel_shuffle_copy(const Tensor& in, int64_t r, bool shuffle, Tensor& out) {
  if (in.dim < 3) return Error::make(ErrorCode::kInvalidArgument, "%s: input must have at least 3 dims", Op);
  if (r <= 0 || !plausible_geometry(r)) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: factor %lld must be positive", Op, static_cast<long long>(r));
  }
  const int32_t lead = in.dim - 3;
  const int64_t c = in.sizes[lead];
  const int64_t h = in.sizes[lead + 1];
  const int64_t w = in.sizes[lead + 2];
  const int64_t rr = r * r;
  if (shuffle ? c % rr != 0 : h % r != 0 || w % r != 0) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: %s is not divisible by the factor %lld%s", Op,
                       shuffle ? "channels" : "height or width", static_cast<long long>(r), shuffle ? " squared" : "");
  }
  int64_t sizes[kMaxDims];
  for (int32_t d = 0; d < lead; ++d) sizes[d] = in.sizes[d];
  // Products saturate (to -1 here), which the extent check below refuses.
  auto times = [](int64_t a, int64_t b) {
    const uint64_t p = sat_mul(static_cast<uint64_t>(a), static_cast<uint64_t>(b));
    return p > kMaxElements ? int64_t{-1} : static_cast<int64_t>(p);
  };
  sizes[lead] = shuffle ? c / rr : times(c, rr);
  sizes[lead + 1] = shuffle ? times(h, r) : h / r;
  sizes[lead + 2] = shuffle ? times(w, r) : w / r;
  if (shape_numel(sizes, in.dim) == kSaturated) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: the output would be too large", Op);
  }
  Error err = resize_output(Op, out, sizes, in.dim);
  if (!err.ok()) return err;
  if (!(err = check_dtype(Op, "self", in, out.dtype)).ok()) return err;
  if (out.data == in.data && out.numel() != 0) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: out must not alias self", Op);
  }
  // Walk the output as [B, C', a, b, c, d] (row-major) and read each element from the input.
  const int64_t batch = size_product(in, 0, lead);
  const int64_t small_c = shuffle ? sizes[lead] : c;  // C of the [..., C, H*r, W*r] side
  const int64_t small_h = shuffle ? h : sizes[lead + 1];
  const int64_t small_w = shuffle ? w : sizes[lead + 2];
  const int64_t plane = small_h * small_w;  // H * W
  Layout from;
  int64_t walk[6];
  if (shuffle) {
    // out [B, C, H, r(i), W, r(j)] <- in [B, C*r*r + i*r + j, H, W]
    const int64_t s[6] = {small_c * rr * plane, rr * plane, small_w, r * plane, 1, plane};
    const int64_t z[6] = {batch, small_c, small_h, r, small_w, r};
    for (int i = 0; i < 6; ++i) from.strides[i] = s[i], walk[i] = z[i];
  } else {
    // out [B, C, r(i), r(j), H, W] <- in [B, C, H*r + i, W*r + j]
    const int64_t s[6] = {small_c * rr * plane, rr * plane, small_w * r, 1, r * small_w * r, r};
    const int64_t z[6] = {batch, small_c, r, r, small_h, small_w};
    for (int i = 0; i < 6; ++i) from.strides[i] = s[i], walk[i] = z[i];
  }
  return switch_dtype<Op, kRealHBBF16>(out.dtype, [&](auto zero) {
    (void)zero;
    walk_copy(in.data, from, out.data, contiguous_layout(walk, 6), walk, 6, element_size(out.dtype));
    return Error();
  });
}

}  // namespace sb::kernels
