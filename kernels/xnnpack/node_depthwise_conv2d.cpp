// xnnpack::depthwise_conv2d.f32(Tensor input, Tensor weight, Tensor? bias, int[] stride, int[] padding, int[] dilation, int groups, float output_min, float output_max, *, Tensor(a!) out)
// xnnpack::depthwise_conv2d.f16_f32w: the same arguments on Half tensors, through the same code.
//
// XNNPACK's depthwise convolution on NCHW tensors (the plan packs its 1HWC filter as C1HW
// once): aten::convolution.out with groups = channels, then the node's clamp.
#include "node.h"

namespace sb::xnnpack_nodes {
namespace {

constexpr const char* kCalls[] = {"aten::convolution.out"};

Error depthwise_conv2d_f32_impl(KernelContext& ctx, Args args) {
  return convolution_then_clamp(ctx, args);
}

}  // namespace

extern const KernelDef depthwise_conv2d_f32{"xnnpack::depthwise_conv2d.f32", "TTtIIIidd|T", &depthwise_conv2d_f32_impl, kCalls};
extern const KernelDef depthwise_conv2d_f16_f32w{"xnnpack::depthwise_conv2d.f16_f32w", "TTtIIIidd|T", &depthwise_conv2d_f32_impl, kCalls};

}  // namespace sb::xnnpack_nodes
