// The taps of a 2-D sliding window (convolution, pooling) that land inside the
// input, PyTorch's rule: output pixel (oh, ow) reads input row
// oh * sh - ph + kh * dh and column ow * sw - pw + kw * dw; taps in the padding
// are skipped.
#pragma once

#include <cstdint>

namespace sb::kernels {

// Calls fn(kh, kw, ih, iw) for each in-bounds tap of output pixel (oh, ow), kh
// outer, for a geometry with h, w, kh, kw, sh, sw, ph, pw, dh, dw
// (PoolGeometry, ConvGeometry).
template <typename Geometry, typename Fn>
inline void for_each_window_tap(const Geometry& g, int64_t oh, int64_t ow, Fn&& fn) {
  for (int64_t kh = 0; kh < g.kh; ++kh) {
    const int64_t ih = oh * g.sh - g.ph + kh * g.dh;
    if (ih < 0 || ih >= g.h) continue;
    for (int64_t kw = 0; kw < g.kw; ++kw) {
      const int64_t iw = ow * g.sw - g.pw + kw * g.dw;
      if (iw < 0 || iw >= g.w) continue;
      fn(kh, kw, ih, iw);
    }
  }
}

}  // namespace sb::kernels
