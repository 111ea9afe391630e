// xnnpack::prelu.f32(Tensor input, Tensor slope, *, Tensor(a!) out)
//
// XNNPACK's parametric ReLU: x where x >= 0, x * slope otherwise, the slope (one per channel, or one
// for all) broadcast against the input. The plan presents both at the output's rank and layout.
#include "node.h"
#include "quantized.h"

namespace sb::xnnpack_nodes {
namespace {

Error prelu_f32_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& x = *args[0]->as_tensor;
  const Tensor& slope = *args[1]->as_tensor;
  Tensor& out = *args[2]->as_tensor;
  if (x.numel() != out.numel()) return Error::make(ErrorCode::kInvalidArgument, "prelu: input and output differ");
  const float* px = x.data_as<float>();
  const float* ps = slope.data_as<float>();
  float* po = out.data_as<float>();
  const int32_t rank = out.dim;
  int64_t strides[kMaxDims], index[kMaxDims] = {};
  qs8::broadcast_strides(slope, rank, strides);
  int64_t at = 0;
  for (int64_t i = 0, total = out.numel(); i < total; ++i) {
    po[i] = px[i] >= 0.0f ? px[i] : px[i] * ps[at];
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

extern const KernelDef prelu_f32{"xnnpack::prelu.f32", "TT|T", &prelu_f32_impl, {}};

}  // namespace sb::xnnpack_nodes
