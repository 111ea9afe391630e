// xnnpack::add.f32(Tensor input1, Tensor input2, float output_min, float output_max, *, Tensor(a!) out)
// xnnpack::add.f16 takes the same arguments on Half tensors (an fp16 program's), through the same code.
//
// XNNPACK's broadcasting add: aten::add.out, then the node's clamp.
#include "node.h"

namespace sb::xnnpack_nodes {
namespace {

constexpr const char* kCalls[] = {"aten::add.out", "aten::clamp.out"};

Error add_f32_impl(KernelContext& ctx, Args args) {
  Value alpha = Value::from_int(1);
  Value* const inputs[] = {args[0], args[1], &alpha};
  return call_then_clamp(ctx, "aten::add.out", inputs, 3, args[4], *args[2], *args[3]);
}

}  // namespace

extern const KernelDef add_f32{"xnnpack::add.f32", "TTdd|T", &add_f32_impl, kCalls};
extern const KernelDef add_f16{"xnnpack::add.f16", "TTdd|T", &add_f32_impl, kCalls};

}  // namespace sb::xnnpack_nodes
