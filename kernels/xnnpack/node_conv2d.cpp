// xnnpack::conv2d.f32(Tensor input, Tensor weight, Tensor? bias, int[] stride, int[] padding, int[] dilation, int groups, float output_min, float output_max, *, Tensor(a!) out)
//
// XNNPACK's 2-D convolution on NCHW tensors (the plan packs its OHWI filter as OIHW once):
// aten::convolution.out, then the node's clamp.
#include "node.h"

namespace sb::xnnpack_nodes {
namespace {

constexpr const char* kCalls[] = {"aten::convolution.out", "aten::clamp.out"};

Error conv2d_f32_impl(KernelContext& ctx, Args args) {
  Value transposed = Value::from_bool(false);
  static const int64_t kNoPadding[2] = {0, 0};
  Value output_padding = Value::from_int_list(Span<const int64_t>(kNoPadding, 2));
  Value* const inputs[] = {args[0], args[1], args[2], args[3], args[4], args[5], &transposed, &output_padding, args[6]};
  return call_then_clamp(ctx, "aten::convolution.out", inputs, 9, args[9], *args[7], *args[8]);
}

}  // namespace

extern const KernelDef conv2d_f32{"xnnpack::conv2d.f32", "TTtIIIidd|T", &conv2d_f32_impl, kCalls};

}  // namespace sb::xnnpack_nodes
