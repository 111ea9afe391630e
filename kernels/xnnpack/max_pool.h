// XNNPACK's max pooling of NCHW planes, for each element type its node has (f32; qs8, whose input
// and output share their quantization, so the greatest code is the greatest value): the greatest
// in-bound tap of each window, clamped. There are no indices (XNNPACK's node has none, unlike
// aten::max_pool2d_with_indices, for which they are most of the work). The output's size gives the
// windows: those past the bottom/right (ceil mode) are cut to the image.
//
// Each output row takes the vertical maxima of its window's rows over a strip of input columns
// first (a loop the compiler vectorises), then the horizontal ones.
#pragma once

#include <cstdint>

#include "sb/kernel.h"

namespace sb::xnnpack_nodes {

struct MaxPoolGeometry {
  int64_t planes, h, w, oh, ow;
  int64_t kh, kw, sh, sw, ph, pw, dh, dw;
};

// A max_pooling2d node's geometry from its arguments (input, kernel_size, stride, padding,
// dilation, ...) and output.
inline MaxPoolGeometry max_pool_geometry(const Tensor& in, const Tensor& out, Args args) {
  const int64_t* k = args[1]->as_int_list.data();
  const int64_t* s = args[2]->as_int_list.data();
  const int64_t* p = args[3]->as_int_list.data();
  const int64_t* d = args[4]->as_int_list.data();
  return MaxPoolGeometry{in.sizes[0] * in.sizes[1], in.sizes[2], in.sizes[3], out.sizes[2], out.sizes[3], k[0], k[1],
                         s[0], s[1], p[0], p[1], d[0], d[1]};
}

namespace max_pool_detail {

constexpr int64_t kRow = 2048;  // input columns whose vertical maxima fit the stack

template <typename T>
inline T larger(T a, T b) {
  return b > a ? b : a;
}

template <typename T>
inline T clamped(T v, T lo, T hi) {
  return v < lo ? lo : v > hi ? hi : v;
}

// Output columns [j0, j0 + n) of one row from the vertical maxima m of its window's rows, which
// hold image columns [base, end): the greatest in-bound tap of each window, clamped.
template <typename T>
void horizontal(const T* m, int64_t base, int64_t end, int64_t j0, int64_t n, const MaxPoolGeometry& g, T lowest,
                T lo, T hi, T* y) {
  // The geometry in locals: stores through y (int8_t for qs8) may alias anything.
  const int64_t sw = g.sw, pw = g.pw, kw = g.kw, dw = g.dw;
  // The windows wholly inside the strip, [ja, jb): CNNs' 3x3 and 2x2 stride-2 pools take them in
  // loops of fixed shape, which the compiler vectorises (stride-2 loads as deinterleaving shuffles).
  int64_t ja = 0;
  while (ja < n && (j0 + ja) * sw - pw < base) ++ja;
  int64_t jb = n;
  while (jb > ja && (j0 + jb - 1) * sw - pw + (kw - 1) * dw >= end) --jb;
  const T* at = m + ((j0 + ja) * sw - pw - base);
  if (dw == 1 && sw == 2 && (kw == 3 || kw == 2) && ja < jb) {
    for (int64_t j = ja; j < jb; ++j, at += 2) {
      y[j] = clamped(kw == 3 ? larger(larger(at[0], at[1]), at[2]) : larger(at[0], at[1]), lo, hi);
    }
  } else {
    ja = jb = 0;  // the general loop below takes every column
  }
  for (int64_t j = 0; j < n; ++j) {
    if (j == ja && jb > ja) {
      j = jb - 1;
      continue;
    }
    const int64_t x0 = (j0 + j) * sw - pw;
    T v = lowest;
    if (x0 >= base && x0 + (kw - 1) * dw < end) {
      for (int64_t kx = 0; kx < kw; ++kx) v = larger(v, m[x0 + kx * dw - base]);
    } else {
      for (int64_t kx = 0; kx < kw; ++kx) {
        const int64_t x = x0 + kx * dw;
        if (x >= base && x < end) v = larger(v, m[x - base]);
      }
    }
    y[j] = clamped(v, lo, hi);
  }
}

}  // namespace max_pool_detail

// x: planes of h x w, y: planes of oh x ow. `lowest` is what a window with no tap in the image gives
// before the clamp to [lo, hi].
template <typename T>
void max_pool_planes(const T* x, T* y, const MaxPoolGeometry& g, T lowest, T lo, T hi) {
  using max_pool_detail::kRow;
  using max_pool_detail::larger;
  T m[kRow];
  const int64_t reach = (g.kw - 1) * g.dw;  // a strip and the taps reaching past it overlap by this
  for (int64_t c = 0; c < g.planes; ++c, x += g.h * g.w, y += g.oh * g.ow) {
    for (int64_t i = 0; i < g.oh; ++i) {
      // Column strips of the row: the vertical maxima of one strip at a time.
      for (int64_t j0 = 0; j0 < g.ow;) {
        const int64_t x_start = j0 * g.sw - g.pw < 0 ? 0 : j0 * g.sw - g.pw;
        int64_t j1 = g.ow;
        if (g.w - x_start > kRow) j1 = j0 + ((kRow - reach - 1) / g.sw > 0 ? (kRow - reach - 1) / g.sw : 1);
        if (j1 > g.ow) j1 = g.ow;
        int64_t x_end = (j1 - 1) * g.sw - g.pw + reach + 1;
        x_end = x_end > g.w ? g.w : x_end;
        const int64_t cols = x_end - x_start;
        for (int64_t t = 0; t < cols; ++t) m[t] = lowest;
        for (int64_t ky = 0; ky < g.kh; ++ky) {
          const int64_t iy = i * g.sh - g.ph + ky * g.dh;
          if (iy < 0 || iy >= g.h) continue;
          const T* row = x + iy * g.w + x_start;
          for (int64_t t = 0; t < cols; ++t) m[t] = larger(m[t], row[t]);
        }
        max_pool_detail::horizontal(m, x_start, x_end, j0, j1 - j0, g, lowest, lo, hi, y + i * g.ow + j0);
        j0 = j1;
      }
    }
  }
}

}  // namespace sb::xnnpack_nodes
