// xnnpack::subtract.f32(Tensor input1, Tensor input2, float output_min, float output_max, *, Tensor(a!) out)
// xnnpack::subtract.f16 takes the same arguments on Half tensors (an fp16 program's), through the same code.
//
// XNNPACK's broadcasting subtract: aten::sub.out, then the node's clamp.
#include "node.h"

namespace sb::xnnpack_nodes {
namespace {

constexpr const char* kCalls[] = {"aten::sub.out", "aten::clamp.out"};

Error subtract_f32_impl(KernelContext& ctx, Args args) {
  Value alpha = Value::from_int(1);
  Value* const inputs[] = {args[0], args[1], &alpha};
  return call_then_clamp(ctx, "aten::sub.out", inputs, 3, args[4], *args[2], *args[3]);
}

}  // namespace

extern const KernelDef subtract_f32{"xnnpack::subtract.f32", "TTdd|T", &subtract_f32_impl, kCalls};
extern const KernelDef subtract_f16{"xnnpack::subtract.f16", "TTdd|T", &subtract_f32_impl, kCalls};

}  // namespace sb::xnnpack_nodes
