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
// group, then an int32 row of accumulators).
inline Error conv(Args args) {
  const Tensor& x = *args[0]->as_tensor;
  const Tensor& w = *args[1]->as_tensor;
  const int32_t* bias = args[2]->is_none() ? nullptr : args[2]->as_tensor->data_as<int32_t>();
  const int64_t* stride = args[3]->as_int_list.data();
  const int64_t* padding = args[4]->as_int_list.data();
  const int64_t* dilation = args[5]->as_int_list.data();
  const float* multipliers = args[7]->as_tensor->data_as<float>();
  const int32_t in_zp = static_cast<int32_t>(args[8]->as_int), out_zp = static_cast<int32_t>(args[9]->as_int);
  const int32_t qmin = static_cast<int32_t>(args[10]->as_int), qmax = static_cast<int32_t>(args[11]->as_int);
  Tensor& y = *args[12]->as_tensor;
  const ConvGeometry g{x.sizes[1], x.sizes[2], x.sizes[3], y.sizes[1], y.sizes[2], y.sizes[3], w.sizes[2], w.sizes[3],
                       stride[0], stride[1], padding[0], padding[1], dilation[0], dilation[1], args[6]->as_int};
  const int64_t k = w.sizes[1] * g.kh * g.kw, n = g.oh * g.ow, og = g.oc / g.groups;
  int16_t* col = args[13]->as_tensor->data_as<int16_t>();
  int32_t* acc = reinterpret_cast<int32_t*>(col + ((k * n + 1) & ~int64_t{1}));
  const int8_t* weights = w.data_as<int8_t>();
  for (int64_t b = 0; b < x.sizes[0]; ++b) {
    const int8_t* image = x.data_as<int8_t>() + b * g.c * g.h * g.w;
    int8_t* out = y.data_as<int8_t>() + b * g.oc * n;
    for (int64_t group = 0; group < g.groups; ++group) {
      im2col(image, g, group, in_zp, col);
      for (int64_t o = group * og; o < (group + 1) * og; ++o) {
        const int32_t start = bias != nullptr ? bias[o] : 0;
        for (int64_t j = 0; j < n; ++j) acc[j] = start;
        dot_rows(weights + o * k, col, k, n, acc);
        int8_t* plane = out + o * n;
        for (int64_t j = 0; j < n; ++j) {
          plane[j] = static_cast<int8_t>(requantize(acc[j], multipliers[o], out_zp, qmin, qmax));
        }
      }
    }
  }
  return Error();
}

// Rows [M, I] by an int8 [O, I] filter: input, weight, bias (int32 or none),
// multipliers (one per output), input zero point, output zero point, output
// min, output max, out [M, O], scratch (one widened row).
inline Error fully_connected(Args args) {
  const Tensor& x = *args[0]->as_tensor;
  const Tensor& w = *args[1]->as_tensor;
  const int32_t* bias = args[2]->is_none() ? nullptr : args[2]->as_tensor->data_as<int32_t>();
  const float* multipliers = args[3]->as_tensor->data_as<float>();
  const int32_t in_zp = static_cast<int32_t>(args[4]->as_int), out_zp = static_cast<int32_t>(args[5]->as_int);
  const int32_t qmin = static_cast<int32_t>(args[6]->as_int), qmax = static_cast<int32_t>(args[7]->as_int);
  Tensor& y = *args[8]->as_tensor;
  int16_t* row = args[9]->as_tensor->data_as<int16_t>();
  const int64_t m = x.sizes[0], in = x.sizes[1], o = w.sizes[0];
  for (int64_t r = 0; r < m; ++r) {
    const int8_t* xr = x.data_as<int8_t>() + r * in;
    for (int64_t i = 0; i < in; ++i) row[i] = static_cast<int16_t>(xr[i] - in_zp);
    int8_t* yr = y.data_as<int8_t>() + r * o;
    for (int64_t c = 0; c < o; ++c) {
      const int32_t acc = (bias != nullptr ? bias[c] : 0) + dot(row, w.data_as<int8_t>() + c * in, in);
      yr[c] = static_cast<int8_t>(requantize(acc, multipliers[c], out_zp, qmin, qmax));
    }
  }
  return Error();
}

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
