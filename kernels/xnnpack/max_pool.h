// XNNPACK's max pooling of NCHW planes, for each element type its node has (f32; qs8, whose input
// and output share their quantization, so the greatest code is the greatest value): the greatest
// in-bound tap of each window, clamped. There are no indices (XNNPACK's node has none, unlike
// aten::max_pool2d_with_indices, for which they are most of the work). The output's size gives the
// windows: those past the bottom/right (ceil mode) are cut to the image.
//
// CNNs' pools (2x2 and 3x3 windows, stride 2 along rows, no dilation) take each output row's
// inner windows straight from the input rows: per window row the maxima along it (stride-2 loads
// the compiler vectorises as deinterleaving shuffles), folded into the output row, the few edge
// windows one by one. Other shapes take the vertical maxima of a window's rows over a strip of
// input columns into a buffer first (a loop the compiler vectorises), then the horizontal ones.
// (Buffering the fast shapes too would read each vector of maxima back at an offset from how it was
// stored, a failed store-to-load forward per vector: on small planes most of the time.)
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

// The window rows of output row i inside the image: [ky0, ky1) (empty when ky0 >= ky1).
inline void window_rows(int64_t i, const MaxPoolGeometry& g, int64_t* ky0, int64_t* ky1) {
  const int64_t top = i * g.sh - g.ph;
  *ky0 = top >= 0 ? 0 : (-top + g.dh - 1) / g.dh;
  const int64_t below = g.h - top <= 0 ? 0 : (g.h - top + g.dh - 1) / g.dh;
  *ky1 = below > g.kh ? g.kh : below;
}

// ---- 2x2 and 3x3 windows at stride 2 along rows, without dilation ----

inline bool is_direct_shape(const MaxPoolGeometry& g) { return g.dw == 1 && g.sw == 2 && (g.kw == 2 || g.kw == 3); }

// The inner windows [ja, jb) of output row i of one plane (x: the plane, y: the output row), the
// row's window rows [ky0, ky1) given: the first row's maxima stored, each further row's folded in
// (loops of one shape, so each vector is read back where it was stored), then the clamp.
template <typename T, int KW>
void fold_rows(const T* x, T* y, int64_t top, int64_t ky0, int64_t ky1, int64_t ja, int64_t jb,
               const MaxPoolGeometry& g, T lo, T hi) {
  // The geometry in locals: stores through y (int8_t for qs8) may alias anything.
  const int64_t w = g.w, pw = g.pw, dh = g.dh;
  for (int64_t ky = ky0; ky < ky1; ++ky) {
    const T* at = x + (top + ky * dh) * w + 2 * ja - pw;
    const bool first = ky == ky0;
    for (int64_t j = ja; j < jb; ++j, at += 2) {
      const T v = KW == 3 ? larger(larger(at[0], at[1]), at[2]) : larger(at[0], at[1]);
      y[j] = first ? v : larger(y[j], v);
    }
  }
  for (int64_t j = ja; j < jb; ++j) y[j] = clamped(y[j], lo, hi);
}

// The inner windows of a row whose KW x KW window (rows r0, r0 + w, ...: no dilation) lies inside
// the image: one loop, every tap loaded, nothing read back. The output never overlaps the input, and
// saying so spares each row the compiler's overlap checks (most of a short row's time).
template <typename T, int KW>
void square_row(const T* __restrict r0, int64_t w, T* __restrict y, int64_t n, T lo, T hi) {
  const T* __restrict r1 = r0 + w;
  const T* __restrict r2 = r1 + w;
  for (int64_t j = 0; j < n; ++j) {
    T v = larger(larger(r0[2 * j], r0[2 * j + 1]), larger(r1[2 * j], r1[2 * j + 1]));
    if (KW == 3) v = larger(larger(v, larger(r0[2 * j + 2], r1[2 * j + 2])), larger(larger(r2[2 * j], r2[2 * j + 1]), r2[2 * j + 2]));
    y[j] = clamped(v, lo, hi);
  }
}

// Output column j of a row, its window cut to the image (the edges: a few per row).
template <typename T, int KW>
T edge_window(const T* x, int64_t top, int64_t ky0, int64_t ky1, int64_t j, const MaxPoolGeometry& g, T lowest) {
  T v = lowest;
  for (int64_t ky = ky0; ky < ky1; ++ky) {
    const T* row = x + (top + ky * g.dh) * g.w;
    for (int64_t kx = 0; kx < KW; ++kx) {
      const int64_t c = 2 * j - g.pw + kx;
      if (c >= 0 && c < g.w) v = larger(v, row[c]);
    }
  }
  return v;
}

template <typename T, int KW>
void direct_planes(const T* x, T* y, const MaxPoolGeometry& g, T lowest, T lo, T hi) {
  // The inner windows [ja, jb): the first whose left tap is in the row, past the last whose right
  // tap is.
  int64_t ja = g.pw <= 0 ? 0 : (g.pw + 1) / 2;
  int64_t jb = g.w - KW + g.pw < 0 ? 0 : (g.w - KW + g.pw) / 2 + 1;
  jb = jb > g.ow ? g.ow : jb;
  ja = ja > jb ? jb : ja;
  const bool square = g.kh == KW && g.dh == 1;
  for (int64_t c = 0; c < g.planes; ++c, x += g.h * g.w, y += g.oh * g.ow) {
    T* yr = y;
    for (int64_t i = 0, top = -g.ph; i < g.oh; ++i, top += g.sh, yr += g.ow) {
      int64_t ky0 = 0, ky1 = g.kh;
      if (top < 0 || top + (g.kh - 1) * g.dh >= g.h) {
        window_rows(i, g, &ky0, &ky1);
        if (ky0 >= ky1) {
          for (int64_t j = 0; j < g.ow; ++j) yr[j] = clamped(lowest, lo, hi);
          continue;
        }
      } else if (square) {
        square_row<T, KW>(x + top * g.w + 2 * ja - g.pw, g.w, yr + ja, jb - ja, lo, hi);
        ky1 = 0;  // inner windows done
      }
      if (ky1 > 0) fold_rows<T, KW>(x, yr, top, ky0, ky1, ja, jb, g, lo, hi);
      if (ky1 == 0) ky1 = g.kh;
      for (int64_t j = 0; j < ja; ++j) yr[j] = clamped(edge_window<T, KW>(x, top, ky0, ky1, j, g, lowest), lo, hi);
      for (int64_t j = jb; j < g.ow; ++j) yr[j] = clamped(edge_window<T, KW>(x, top, ky0, ky1, j, g, lowest), lo, hi);
    }
  }
}

// ---- every other shape: vertical maxima over column strips, then horizontal ----

// Output columns [j0, j0 + n) of one row from the vertical maxima m of its window's rows, which
// hold image columns [base, end): the greatest in-bound tap of each window, clamped.
template <typename T>
void horizontal(const T* m, int64_t base, int64_t end, int64_t j0, int64_t n, const MaxPoolGeometry& g, T lowest,
                T lo, T hi, T* y) {
  const int64_t sw = g.sw, pw = g.pw, kw = g.kw, dw = g.dw;
  for (int64_t j = 0; j < n; ++j) {
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

template <typename T>
void strip_planes(const T* x, T* y, const MaxPoolGeometry& g, T lowest, T lo, T hi) {
  T m[kRow];
  const int64_t reach = (g.kw - 1) * g.dw;  // a strip and the taps reaching past it overlap by this
  for (int64_t c = 0; c < g.planes; ++c, x += g.h * g.w, y += g.oh * g.ow) {
    for (int64_t i = 0; i < g.oh; ++i) {
      int64_t ky0, ky1;
      window_rows(i, g, &ky0, &ky1);
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
        for (int64_t ky = ky0; ky < ky1; ++ky) {
          const T* row = x + (i * g.sh - g.ph + ky * g.dh) * g.w + x_start;
          for (int64_t t = 0; t < cols; ++t) m[t] = larger(m[t], row[t]);
        }
        horizontal(m, x_start, x_end, j0, j1 - j0, g, lowest, lo, hi, y + i * g.ow + j0);
        j0 = j1;
      }
    }
  }
}

}  // namespace max_pool_detail

// x: planes of h x w, y: planes of oh x ow. `lowest` is what a window with no tap in the image gives
// before the clamp to [lo, hi].
template <typename T>
void max_pool_planes(const T* x, T* y, const MaxPoolGeometry& g, T lowest, T lo, T hi) {
  if (max_pool_detail::is_direct_shape(g)) {
    if (g.kw == 3) {
      max_pool_detail::direct_planes<T, 3>(x, y, g, lowest, lo, hi);
    } else {
      max_pool_detail::direct_planes<T, 2>(x, y, g, lowest, lo, hi);
    }
    return;
  }
  max_pool_detail::strip_planes(x, y, g, lowest, lo, hi);
}

}  // namespace sb::xnnpack_nodes
