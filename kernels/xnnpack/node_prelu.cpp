// xnnpack::prelu.f32(Tensor input, Tensor slope, *, Tensor(a!) out)
// xnnpack::prelu.f16 takes the same arguments on Half tensors (an fp16 program's), through the same code.
//
// XNNPACK's parametric ReLU: x where x >= 0, x * slope otherwise, the slope (one per channel, or one
// for all) broadcast against the input. The plan presents both at the output's rank and layout.
#include "node.h"
#include "quantized.h"
#include "sb/half.h"

namespace sb::xnnpack_nodes {
namespace {

// T: float, or Half (computed in float).
template <typename T>
Error prelu_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& x = *args[0]->as_tensor;
  const Tensor& slope = *args[1]->as_tensor;
  Tensor& out = *args[2]->as_tensor;
  if (x.numel() != out.numel()) return Error::make(ErrorCode::kInvalidArgument, "prelu: input and output differ");
  const T* px = x.data_as<T>();
  const T* ps = slope.data_as<T>();
  T* po = out.data_as<T>();
  const int32_t rank = out.dim;
  int64_t strides[kMaxDims], index[kMaxDims] = {};
  qs8::broadcast_strides(slope, rank, strides);
  int64_t at = 0;
  for (int64_t i = 0, total = out.numel(); i < total; ++i) {
    const float v = px[i];
    po[i] = v >= 0.0f ? px[i] : static_cast<T>(v * static_cast<float>(ps[at]));
    for (int32_t d = rank - 1; d >= 0; --d) {
      at += strides[d];
      if (++index[d] < out.sizes[d]) break;
      at -= strides[d] * out.sizes[d];
      index[d] = 0;
    }
  }
  return Error();
}

}  // namespace

extern const KernelDef prelu_f32{"xnnpack::prelu.f32", "TT|T", &prelu_impl<float>, {}};
extern const KernelDef prelu_f16{"xnnpack::prelu.f16", "TT|T", &prelu_impl<Half>, {}};

}  // namespace sb::xnnpack_nodes
