// xnnpack::convert.f32_qs8(Tensor input, float scale, int zero_point, *, Tensor(a!) out)
//
// XNNPACK's quantization of fp32 values to int8: round(x / scale) + zero point, saturated.
#include "node.h"
#include "xnnpack/microkernels/qs8_requantize.h"

namespace sb::xnnpack_nodes {
namespace {

Error convert_f32_qs8_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& in = *args[0]->as_tensor;
  const float inverse = 1.0f / static_cast<float>(args[1]->as_double);
  const int32_t zp = static_cast<int32_t>(args[2]->as_int);
  const float* x = in.data_as<float>();
  int8_t* y = args[3]->as_tensor->data_as<int8_t>();
  const float lo = static_cast<float>(-128 - zp), hi = static_cast<float>(127 - zp);
  for (int64_t i = 0, n = in.numel(); i < n; ++i) {
    float v = x[i] * inverse;
    v = v < lo ? lo : v > hi ? hi : v;
    y[i] = static_cast<int8_t>(qs8::round_to_int(v) + zp);
  }
  return Error();
}

}  // namespace

extern const KernelDef convert_f32_qs8{"xnnpack::convert.f32_qs8", "Tdi|T", &convert_f32_qs8_impl, {}};

}  // namespace sb::xnnpack_nodes
