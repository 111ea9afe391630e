// xnnpack::static_resize_bilinear2d.f32(Tensor input, int[] output_size, bool align_corners, *, Tensor(a!) out)
// xnnpack::static_resize_bilinear2d.f16: the same arguments on Half tensors, through the same code.
//
// XNNPACK's bilinear resize of an NCHW image to a fixed size: aten::upsample_bilinear2d.vec_out
// given the output size, not scale factors, so the source coordinates come from the size ratio as
// XNNPACK computes them (half-pixel centres, or aligned corners).
#include "node.h"

namespace sb::xnnpack_nodes {
namespace {

constexpr const char* kCalls[] = {"aten::upsample_bilinear2d.vec_out"};

Error static_resize_bilinear2d_f32_impl(KernelContext& ctx, Args args) {
  Value scales = Value::none();
  Value* const call_args[] = {args[0], args[1], args[2], &scales, args[3]};
  return ctx.call("aten::upsample_bilinear2d.vec_out", Args(call_args, 5));
}

}  // namespace

extern const KernelDef static_resize_bilinear2d_f32{"xnnpack::static_resize_bilinear2d.f32", "TIb|T",
                                                    &static_resize_bilinear2d_f32_impl, kCalls};
extern const KernelDef static_resize_bilinear2d_f16{"xnnpack::static_resize_bilinear2d.f16", "TIb|T", &static_resize_bilinear2d_f32_impl, kCalls};

}  // namespace sb::xnnpack_nodes
