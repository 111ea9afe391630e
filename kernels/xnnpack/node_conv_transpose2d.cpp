// xnnpack::conv_transpose2d.f32(Tensor input, Tensor weight, Tensor? bias, int[] stride, int[] padding, int[] dilation, int[] output_padding, int groups, float output_min, float output_max, *, Tensor(a!) out)
// xnnpack::conv_transpose2d.f16_f32w: the same arguments on Half tensors, through the same code.
//
// XNNPACK's deconvolution on NCHW tensors (the plan packs its filter as ATen's transposed one,
// [I, O / groups, kh, kw], once; XNNPACK's adjustment is ATen's output_padding):
// aten::convolution.out with transposed set, then the node's clamp.
#include "node.h"

namespace sb::xnnpack_nodes {
namespace {

constexpr const char* kCalls[] = {"aten::convolution.out"};

Error conv_transpose2d_f32_impl(KernelContext& ctx, Args args) {
  Value transposed = Value::from_bool(true);
  Value* const inputs[] = {args[0], args[1], args[2], args[3], args[4], args[5], &transposed, args[6], args[7]};
  return call_then_clamp(ctx, "aten::convolution.out", inputs, 9, args[10], *args[8], *args[9]);
}

}  // namespace

extern const KernelDef conv_transpose2d_f32{"xnnpack::conv_transpose2d.f32", "TTtIIIIidd|T", &conv_transpose2d_f32_impl,
                                            kCalls};
extern const KernelDef conv_transpose2d_f16_f32w{"xnnpack::conv_transpose2d.f16_f32w", "TTtIIIIidd|T",
                                                 &conv_transpose2d_f32_impl, kCalls};

}  // namespace sb::xnnpack_nodes
