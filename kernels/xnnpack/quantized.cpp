// The qs8 convolution and fully connected kernels, compiled once for every node kind that runs them
// (quantized.h says what they take).
#include "quantized.h"

namespace sb::xnnpack_nodes::qs8 {
namespace {

constexpr int64_t kBlock = 4;   // output channels sharing each load of the panel
constexpr int64_t kTile = 64;   // output positions whose accumulators stay in L1

// `rows` output channels (weights w, rows of k) over the n positions of a widened panel: int32
// accumulation tile by tile, then requantization into out (rows planes of n).
void block(const int8_t* w, const int16_t* col, int64_t k, int64_t n, const int32_t* bias, const float* multipliers,
           int32_t zero_point, int32_t qmin, int32_t qmax, int8_t* out, int64_t rows) {
  int32_t acc[kBlock][kTile];
  for (int64_t j0 = 0; j0 < n; j0 += kTile) {
    const int64_t len = n - j0 < kTile ? n - j0 : kTile;
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t j = 0; j < len; ++j) acc[r][j] = bias != nullptr ? bias[r] : 0;
    }
    for (int64_t t = 0; t < k; ++t) {
      const int16_t* v = col + t * n + j0;
      if (rows == kBlock) {
        const int32_t w0 = w[t], w1 = w[k + t], w2 = w[2 * k + t], w3 = w[3 * k + t];
        for (int64_t j = 0; j < len; ++j) {
          const int32_t x = v[j];
          acc[0][j] += w0 * x;
          acc[1][j] += w1 * x;
          acc[2][j] += w2 * x;
          acc[3][j] += w3 * x;
        }
      } else {
        for (int64_t r = 0; r < rows; ++r) {
          const int32_t wr = w[r * k + t];
          for (int64_t j = 0; j < len; ++j) acc[r][j] += wr * v[j];
        }
      }
    }
    for (int64_t r = 0; r < rows; ++r) {
      int8_t* y = out + r * n + j0;
      for (int64_t j = 0; j < len; ++j) {
        y[j] = static_cast<int8_t>(requantize(acc[r][j], multipliers[r], zero_point, qmin, qmax));
      }
    }
  }
}

}  // namespace

Error conv(Args args) {
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
  const int8_t* weights = w.data_as<int8_t>();
  for (int64_t b = 0; b < x.sizes[0]; ++b) {
    const int8_t* image = x.data_as<int8_t>() + b * g.c * g.h * g.w;
    int8_t* out = y.data_as<int8_t>() + b * g.oc * n;
    for (int64_t group = 0; group < g.groups; ++group) {
      im2col(image, g, group, in_zp, col);
      for (int64_t o = group * og, end = (group + 1) * og; o < end;) {
        const int64_t rows = end - o >= kBlock ? kBlock : 1;
        block(weights + o * k, col, k, n, bias != nullptr ? bias + o : nullptr, multipliers + o, out_zp, qmin, qmax,
              out + o * n, rows);
        o += rows;
      }
    }
  }
  return Error();
}

Error fully_connected(Args args) {
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

Error dynamic_fully_connected(Args args) {
  const Tensor& x = *args[0]->as_tensor;
  const float* params = args[1]->as_tensor->data_as<float>();
  const Tensor& w = *args[2]->as_tensor;
  const float* bias = args[3]->is_none() ? nullptr : args[3]->as_tensor->data_as<float>();
  const Tensor& scales = *args[4]->as_tensor;
  const float lo = static_cast<float>(args[5]->as_double), hi = static_cast<float>(args[6]->as_double);
  Tensor& y = *args[7]->as_tensor;
  int16_t* row = args[8]->as_tensor->data_as<int16_t>();
  const int64_t m = x.sizes[0], k = x.sizes[1], o = w.sizes[0];
  const int64_t blocks = scales.dim == 2 ? scales.sizes[1] : 1, block = k / blocks;
  const float* s = scales.data_as<float>();
  for (int64_t r = 0; r < m; ++r) {
    const int8_t* xr = x.data_as<int8_t>() + r * k;
    const int32_t zero_point = static_cast<int32_t>(params[2 * r + 1]);
    const float row_scale = params[2 * r];
    for (int64_t i = 0; i < k; ++i) row[i] = static_cast<int16_t>(xr[i] - zero_point);
    float* yr = y.data_as<float>() + r * o;
    for (int64_t c = 0; c < o; ++c) {
      const int8_t* wc = w.data_as<int8_t>() + c * k;
      float v = 0.0f;
      for (int64_t b = 0; b < blocks; ++b) {
        v += static_cast<float>(dot(row + b * block, wc + b * block, block)) * (row_scale * s[c * blocks + b]);
      }
      if (bias != nullptr) v += bias[c];
      yr[c] = v < lo ? lo : v > hi ? hi : v;
    }
  }
  return Error();
}

}  // namespace sb::xnnpack_nodes::qs8
