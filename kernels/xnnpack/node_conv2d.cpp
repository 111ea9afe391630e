// xnnpack::conv2d.f32(Tensor input, Tensor weight, Tensor? bias, int[] stride, int[] padding, int[] dilation, int groups, float output_min, float output_max, *, Tensor(a!) out)
// xnnpack::conv2d.f16_f32w takes the same arguments on Half tensors (an fp16 program's), through the same code.
//
// XNNPACK's 2-D convolution on NCHW tensors (the plan packs its OHWI filter as OIHW once):
// aten::convolution.out, then the node's clamp.
#include "node.h"

namespace sb::xnnpack_nodes {
namespace {

constexpr const char* kCalls[] = {"aten::convolution.out"};

Error conv2d_f32_impl(KernelContext& ctx, Args args) {
  return convolution_then_clamp(ctx, args);
}

}  // namespace

extern const KernelDef conv2d_f32{"xnnpack::conv2d.f32", "TTtIIIidd|T", &conv2d_f32_impl, kCalls};
extern const KernelDef conv2d_f16_f32w{"xnnpack::conv2d.f16_f32w", "TTtIIIidd|T", &conv2d_f32_impl, kCalls};

}  // namespace sb::xnnpack_nodes
