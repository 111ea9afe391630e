// xnnpack::convert.qs8_f32(Tensor input, float scale, int zero_point, *, Tensor(a!) out)
//
// XNNPACK's dequantization of int8 values: (v - zero point) * scale.
#include "node.h"

namespace sb::xnnpack_nodes {
namespace {

Error convert_qs8_f32_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& in = *args[0]->as_tensor;
  const float scale = static_cast<float>(args[1]->as_double);
  const int32_t zp = static_cast<int32_t>(args[2]->as_int);
  const int8_t* x = in.data_as<int8_t>();
  float* y = args[3]->as_tensor->data_as<float>();
  for (int64_t i = 0, n = in.numel(); i < n; ++i) y[i] = static_cast<float>(x[i] - zp) * scale;
  return Error();
}

}  // namespace

extern const KernelDef convert_qs8_f32{"xnnpack::convert.qs8_f32", "Tdi|T", &convert_qs8_f32_impl, {}};

}  // namespace sb::xnnpack_nodes
