// xnnpack::fully_connected.qd8_qc8w(Tensor input, Tensor row_params, Tensor weight, Tensor? bias, Tensor weight_scales, float output_min, float output_max, *, Tensor(a!) out, Tensor(b!) scratch)
//
// XNNPACK's dynamically quantized fully connected node: int8 rows [M, K] with their own scales and
// zero points (row_params, from convert.f32_qd8) by a per-channel int8 [O, K] filter, fp32 out
// [M, O]: integer dot products, then acc * row scale * channel scale + bias, clamped.
#include "node.h"
#include "quantized.h"

namespace sb::xnnpack_nodes {
namespace {

Error fully_connected_qd8_qc8w_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& x = *args[0]->as_tensor;
  const float* params = args[1]->as_tensor->data_as<float>();
  const Tensor& w = *args[2]->as_tensor;
  const float* bias = args[3]->is_none() ? nullptr : args[3]->as_tensor->data_as<float>();
  const float* scales = args[4]->as_tensor->data_as<float>();
  const float lo = static_cast<float>(args[5]->as_double), hi = static_cast<float>(args[6]->as_double);
  Tensor& y = *args[7]->as_tensor;
  int16_t* row = args[8]->as_tensor->data_as<int16_t>();
  const int64_t m = x.sizes[0], k = x.sizes[1], o = w.sizes[0];
  for (int64_t r = 0; r < m; ++r) {
    const int8_t* xr = x.data_as<int8_t>() + r * k;
    const int32_t zero_point = static_cast<int32_t>(params[2 * r + 1]);
    const float scale = params[2 * r];
    for (int64_t i = 0; i < k; ++i) row[i] = static_cast<int16_t>(xr[i] - zero_point);
    float* yr = y.data_as<float>() + r * o;
    for (int64_t c = 0; c < o; ++c) {
      float v = static_cast<float>(qs8::dot(row, w.data_as<int8_t>() + c * k, k)) * (scale * scales[c]);
      if (bias != nullptr) v += bias[c];
      yr[c] = v < lo ? lo : v > hi ? hi : v;
    }
  }
  return Error();
}

}  // namespace

extern const KernelDef fully_connected_qd8_qc8w{"xnnpack::fully_connected.qd8_qc8w", "TTTtTdd|TT",
                                                &fully_connected_qd8_qc8w_impl, {}};

}  // namespace sb::xnnpack_nodes
