// The int8 arithmetic of XNNPACK's static quantization (qs8: int8 values v
// standing for scale * (v - zero_point)), as the qs8 node kinds use it:
// integer accumulation, then XNNPACK's fp32 requantization (the int32
// accumulator times one float multiplier, clamped, rounded to nearest even,
// plus the output zero point).
//
// The micro-kernels run on raw pointers: widened int16 operands and int32
// accumulators, in loops the compiler vectorises (vpmaddwd on x86-64, smlal
// on aarch64).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#include "sb/kernel.h"

namespace sb::xnnpack_nodes::qs8 {

inline int32_t requantize(int32_t acc, float multiplier, int32_t zero_point, int32_t qmin, int32_t qmax) {
  float v = static_cast<float>(acc) * multiplier;
  const float lo = static_cast<float>(qmin - zero_point), hi = static_cast<float>(qmax - zero_point);
  v = v < lo ? lo : v > hi ? hi : v;
  return static_cast<int32_t>(std::nearbyint(v)) + zero_point;
}

// acc[j] += sum_k w[k] * col[k * n + j] for j < n: one output channel over n
// output positions (an im2col panel of k rows).
inline void dot_rows(const int8_t* w, const int16_t* col, int64_t k, int64_t n, int32_t* acc) {
  for (int64_t r = 0; r < k; ++r) {
    const int32_t wk = w[r];
    if (wk == 0) continue;
    const int16_t* row = col + r * n;
    for (int64_t j = 0; j < n; ++j) acc[j] += wk * row[j];
  }
}

// sum_i a[i] * b[i]: a widened row (input minus its zero point) by a weight row.
inline int32_t dot(const int16_t* a, const int8_t* b, int64_t n) {
  int32_t acc = 0;
  for (int64_t i = 0; i < n; ++i) acc += a[i] * static_cast<int32_t>(b[i]);
  return acc;
}

// Convolution geometry of one NCHW image.
struct ConvGeometry {
  int64_t c, h, w;        // input channels and plane
  int64_t oc, oh, ow;     // output channels and plane
  int64_t kh, kw, sh, sw, ph, pw, dh, dw, groups;
};

// im2col of one group of one image, widened: col[(ic, ky, kx)][(oy, ox)] =
// x - zero_point, 0 where the tap falls in the padding.
inline void im2col(const int8_t* x, const ConvGeometry& g, int64_t group, int32_t zero_point, int16_t* col) {
  const int64_t cg = g.c / g.groups, n = g.oh * g.ow;
  for (int64_t ic = 0; ic < cg; ++ic) {
    const int8_t* plane = x + (group * cg + ic) * g.h * g.w;
    for (int64_t ky = 0; ky < g.kh; ++ky) {
      for (int64_t kx = 0; kx < g.kw; ++kx, col += n) {
        for (int64_t oy = 0; oy < g.oh; ++oy) {
          const int64_t iy = oy * g.sh - g.ph + ky * g.dh;
          int16_t* dst = col + oy * g.ow;
          if (iy < 0 || iy >= g.h) {
            memset(dst, 0, static_cast<size_t>(g.ow) * sizeof(int16_t));
            continue;
          }
          const int8_t* src = plane + iy * g.w;
          for (int64_t ox = 0; ox < g.ow; ++ox) {
            const int64_t ix = ox * g.sw - g.pw + kx * g.dw;
            dst[ox] = ix < 0 || ix >= g.w ? 0 : static_cast<int16_t>(src[ix] - zero_point);
          }
        }
      }
    }
  }
}

// A convolution (depthwise ones too: groups = channels) of int8 NCHW images by
// int8 OIHW filters, per-channel multipliers. Arguments, as the plan passes them:
// input, weight, bias (int32 or none), stride, padding, dilation, groups,
// multipliers (float, one per output channel), input zero point, output zero
// point, output min, output max, out, scratch (the widened im2col panel of one
// group, then an int32 row of accumulators). One copy for every conv node kind.
Error conv(Args args);

// Rows [M, I] by an int8 [O, I] filter: input, weight, bias (int32 or none),
// multipliers (one per output), input zero point, output zero point, output
// min, output max, out [M, O], scratch (one widened row).
Error fully_connected(Args args);

// Dynamically quantized rows [M, K] (each with its scale and zero point, row_params [M, 2] from
// convert.f32_qd8) by an int8 [O, K] filter (4-bit filters unpacked at init), fp32 out [M, O]:
// integer dot products per filter scale block, then acc * row scale * block scale summed over the
// blocks, plus bias, clamped. weight_scales is [O] (one block: per channel) or [O, K / G] (per group
// of G). Arguments: input, row_params, weight, bias (fp32 or none), weight_scales, output min, output
// max, out, scratch (one widened row).
Error dynamic_fully_connected(Args args);

// Element strides of `t` against the output's rank-`rank` shape: 0 where t
// broadcasts (size 1), for a contiguous tensor of the same rank.
inline void broadcast_strides(const Tensor& t, int32_t rank, int64_t* strides) {
  int64_t s = 1;
  for (int32_t d = rank - 1; d >= 0; --d) {
    strides[d] = t.sizes[d] == 1 ? 0 : s;
    s *= t.sizes[d];
  }
}

// out = f(a, b) over the output's shape, a and b broadcast (same rank).
template <typename F>
void broadcast(const Tensor& a, const Tensor& b, Tensor& out, F f) {
  const int8_t* pa = a.data_as<int8_t>();
  const int8_t* pb = b.data_as<int8_t>();
  int8_t* po = out.data_as<int8_t>();
  const int64_t total = out.numel();
  if (a.numel() == total && b.numel() == total) {
    for (int64_t i = 0; i < total; ++i) po[i] = f(pa[i], pb[i]);
    return;
  }
  const int32_t rank = out.dim;
  int64_t sa[kMaxDims], sb[kMaxDims], index[kMaxDims] = {};
  broadcast_strides(a, rank, sa);
  broadcast_strides(b, rank, sb);
  int64_t ia = 0, ib = 0;
  for (int64_t i = 0; i < total; ++i) {
    po[i] = f(pa[ia], pb[ib]);
    for (int32_t d = rank - 1; d >= 0; --d) {
      ia += sa[d];
      ib += sb[d];
      if (++index[d] < out.sizes[d]) break;
      ia -= sa[d] * out.sizes[d];
      ib -= sb[d] * out.sizes[d];
      index[d] = 0;
    }
  }
}

}  // namespace sb::xnnpack_nodes::qs8
