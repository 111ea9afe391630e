// xnnpack::prelu.f32(Tensor input, Tensor slope, *, Tensor(a!) out)
// xnnpack::prelu.f16 takes the same arguments on Half tensors (an fp16 program's), through the same code.
//
// XNNPACK's parametric ReLU: x where x >= 0, x * slope otherwise, the slope (one per channel, or one
// for all) broadcast against the input. The plan presents both at the output's rank and layout.
#include "node.h"
#include "sb/half.h"

namespace sb::xnnpack_nodes {
namespace {

// T: float, or Half (computed in float).
template <typename T>
Error prelu_impl(KernelContext& ctx, Args args) {
  return broadcast<T, T>(ctx.kernel().op, *args[0]->as_tensor, *args[1]->as_tensor, *args[2]->as_tensor,
                         [](T x, T slope) {
                           const float v = x;
                           return v >= 0.0f ? x : static_cast<T>(v * static_cast<float>(slope));
                         });
}

}  // namespace

extern const KernelDef prelu_f32{"xnnpack::prelu.f32", "TT|T", &prelu_impl<float>, {}};
extern const KernelDef prelu_f16{"xnnpack::prelu.f16", "TT|T", &prelu_impl<Half>, {}};

}  // namespace sb::xnnpack_nodes
