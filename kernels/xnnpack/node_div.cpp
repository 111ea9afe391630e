// xnnpack::div.f32(Tensor input1, Tensor input2, float output_min, float output_max, *, Tensor(a!) out)
// xnnpack::div.f16 takes the same arguments on Half tensors (an fp16 program's), through the same code.
//
// XNNPACK's broadcasting div: aten::div.out, then the node's clamp.
#include "node.h"

namespace sb::xnnpack_nodes {
namespace {

constexpr const char* kCalls[] = {"aten::div.out", "aten::clamp.out"};

Error div_f32_impl(KernelContext& ctx, Args args) {
  Value* const inputs[] = {args[0], args[1]};
  return call_then_clamp(ctx, "aten::div.out", inputs, 2, args[4], *args[2], *args[3]);
}

}  // namespace

extern const KernelDef div_f32{"xnnpack::div.f32", "TTdd|T", &div_f32_impl, kCalls};
extern const KernelDef div_f16{"xnnpack::div.f16", "TTdd|T", &div_f32_impl, kCalls};

}  // namespace sb::xnnpack_nodes
