// xnnpack::max_pooling2d.f32(Tensor input, int[] kernel_size, int[] stride, int[] padding, int[] dilation, bool ceil_mode, float output_min, float output_max, *, Tensor(a!) out, Tensor(b!) indices)
//
// XNNPACK's max pooling of an NCHW image: aten::max_pool2d_with_indices.out (the indices go to the
// plan's scratch), then the node's clamp. Bottom/right padding beyond top/left is ceil mode.
#include "node.h"

namespace sb::xnnpack_nodes {
namespace {

constexpr const char* kCalls[] = {"aten::max_pool2d_with_indices.out", "aten::clamp.out"};

Error max_pooling2d_f32_impl(KernelContext& ctx, Args args) {
  Value* const call[] = {args[0], args[1], args[2], args[3], args[4], args[5], args[8], args[9]};
  Error err = ctx.call("aten::max_pool2d_with_indices.out", Args(call, 8));
  if (!err.ok()) return err;
  return clamp_output(ctx, args[8], *args[6], *args[7]);
}

}  // namespace

extern const KernelDef max_pooling2d_f32{"xnnpack::max_pooling2d.f32", "TIIIIbdd|TT", &max_pooling2d_f32_impl, kCalls};

}  // namespace sb::xnnpack_nodes
