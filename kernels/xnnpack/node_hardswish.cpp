// xnnpack::hardswish.f32(Tensor input, *, Tensor(a!) out)
//
// XNNPACK's hardswish, x * relu6(x + 3) / 6 (ATen's portable library has no kernel for it: exporters
// decompose it outside a delegate).
#include "node.h"

namespace sb::xnnpack_nodes {
namespace {

Error hardswish_f32_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& in = *args[0]->as_tensor;
  const float* x = in.data_as<float>();
  float* y = args[1]->as_tensor->data_as<float>();
  for (int64_t i = 0, n = in.numel(); i < n; ++i) {
    const float r = x[i] + 3.0f;
    y[i] = x[i] * (r < 0.0f ? 0.0f : r > 6.0f ? 6.0f : r) * (1.0f / 6.0f);
  }
  return Error();
}

}  // namespace

extern const KernelDef hardswish_f32{"xnnpack::hardswish.f32", "T|T", &hardswish_f32_impl, {}};

}  // namespace sb::xnnpack_nodes
