// xnnpack::static_constant_pad.f32(Tensor input, int[] pad, float value, *, Tensor(a!) out)
// xnnpack::static_constant_pad.f16 takes the same arguments on Half tensors (an fp16 program's), through the same code.
//
// XNNPACK's constant padding: aten::constant_pad_nd.out (the plan gives the pads in ATen's order).
#include "node.h"

namespace sb::xnnpack_nodes {
namespace {

constexpr const char* kCalls[] = {"aten::constant_pad_nd.out"};

Error static_constant_pad_f32_impl(KernelContext& ctx, Args args) {
  return ctx.call("aten::constant_pad_nd.out", args);
}

}  // namespace

extern const KernelDef static_constant_pad_f32{"xnnpack::static_constant_pad.f32", "TId|T", &static_constant_pad_f32_impl, kCalls};
extern const KernelDef static_constant_pad_f16{"xnnpack::static_constant_pad.f16", "TId|T", &static_constant_pad_f32_impl, kCalls};

}  // namespace sb::xnnpack_nodes
