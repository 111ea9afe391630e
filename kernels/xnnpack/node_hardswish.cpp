// xnnpack::hardswish.f32(Tensor input, *, Tensor(a!) out)
// xnnpack::hardswish.f16 takes the same arguments on Half tensors (an fp16 program's), through the same code.
//
// XNNPACK's hardswish, x * relu6(x + 3) / 6 (ATen's portable library has no kernel for it: exporters
// decompose it outside a delegate).
#include "node.h"
#include "sb/half.h"

namespace sb::xnnpack_nodes {
namespace {

// T: float, or Half (computed in float).
template <typename T>
Error hardswish_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& in = *args[0]->as_tensor;
  const T* x = in.data_as<T>();
  T* y = args[1]->as_tensor->data_as<T>();
  for (int64_t i = 0, n = in.numel(); i < n; ++i) {
    const float v = x[i], r = v + 3.0f;
    y[i] = static_cast<T>(v * (r < 0.0f ? 0.0f : r > 6.0f ? 6.0f : r) * (1.0f / 6.0f));
  }
  return Error();
}

}  // namespace

extern const KernelDef hardswish_f32{"xnnpack::hardswish.f32", "T|T", &hardswish_impl<float>, {}};
extern const KernelDef hardswish_f16{"xnnpack::hardswish.f16", "T|T", &hardswish_impl<Half>, {}};

}  // namespace sb::xnnpack_nodes
