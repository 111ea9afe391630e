// xnnpack::convert.f32_qd8(Tensor input, *, Tensor(a!) out, Tensor(b!) row_params)
//
// XNNPACK's dynamic quantization of fp32 rows to int8 (qd8): each row of input ([M, K] in the
// plan's view) gets its own scale and zero point from its range (widened to hold 0), as XNNPACK
// computes them: multiplier 255 / (max - min), the zero point from whichever end errs less, rounded
// to nearest even. row_params ([M, 2] fp32) takes each row's dequantization scale and zero point
// for the node that reads the int8 rows.
#include <cmath>

#include "node.h"

namespace sb::xnnpack_nodes {
namespace {

Error convert_f32_qd8_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& in = *args[0]->as_tensor;
  Tensor& out = *args[1]->as_tensor;
  float* params = args[2]->as_tensor->data_as<float>();
  const int64_t rows = args[2]->as_tensor->sizes[0];
  const int64_t k = rows > 0 ? in.numel() / rows : 0;
  for (int64_t r = 0; r < rows; ++r) {
    const float* x = in.data_as<float>() + r * k;
    int8_t* q = out.data_as<int8_t>() + r * k;
    float lo = 0.0f, hi = 0.0f;
    for (int64_t i = 0; i < k; ++i) {
      lo = x[i] < lo ? x[i] : lo;
      hi = x[i] > hi ? x[i] : hi;
    }
    const float multiplier = lo == hi ? 1.0f : 255.0f / (hi - lo);
    const float descaled_lo = lo * multiplier, descaled_hi = hi * multiplier;
    float zp = (-128.0f + descaled_lo) + (127.0f + descaled_hi) > 0.0f ? -128.0f - descaled_lo : 127.0f - descaled_hi;
    zp = zp < -128.0f ? -128.0f : zp > 127.0f ? 127.0f : zp;
    const int32_t zero_point = static_cast<int32_t>(std::nearbyint(zp));
    const float low = static_cast<float>(-128 - zero_point), high = static_cast<float>(127 - zero_point);
    for (int64_t i = 0; i < k; ++i) {
      float v = x[i] * multiplier;
      v = v < low ? low : v > high ? high : v;
      q[i] = static_cast<int8_t>(static_cast<int32_t>(std::nearbyint(v)) + zero_point);
    }
    params[2 * r] = 1.0f / multiplier;
    params[2 * r + 1] = static_cast<float>(zero_point);
  }
  return Error();
}

}  // namespace

extern const KernelDef convert_f32_qd8{"xnnpack::convert.f32_qd8", "T|TT", &convert_f32_qd8_impl, {}};

}  // namespace sb::xnnpack_nodes
