// xnnpack::fully_connected.f32(Tensor input, Tensor weight_t, Tensor? bias, float output_min, float output_max, *, Tensor(a!) out)
// xnnpack::fully_connected.f16 takes the same arguments on Half tensors (an fp16 program's), through the same code.
//
// XNNPACK's fully connected node on [M, I] rows (the plan packs its [O, I] filter as [I, O] once):
// aten::addmm.out with the bias, aten::mm.out without, then the node's clamp.
#include "node.h"

namespace sb::xnnpack_nodes {
namespace {

constexpr const char* kCalls[] = {"aten::mm.out", "aten::addmm.out", "aten::clamp.out"};

Error fully_connected_f32_impl(KernelContext& ctx, Args args) {
  if (args[2]->is_none()) {
    Value* const inputs[] = {args[0], args[1]};
    return call_then_clamp(ctx, "aten::mm.out", inputs, 2, args[5], *args[3], *args[4]);
  }
  Value one = Value::from_int(1);
  Value* const inputs[] = {args[2], args[0], args[1], &one, &one};
  return call_then_clamp(ctx, "aten::addmm.out", inputs, 5, args[5], *args[3], *args[4]);
}

}  // namespace

extern const KernelDef fully_connected_f32{"xnnpack::fully_connected.f32", "TTtdd|T", &fully_connected_f32_impl, kCalls};
extern const KernelDef fully_connected_f16{"xnnpack::fully_connected.f16", "TTtdd|T", &fully_connected_f32_impl, kCalls};

}  // namespace sb::xnnpack_nodes
