// xnnpack::maximum.f32(Tensor input1, Tensor input2, float output_min, float output_max, *, Tensor(a!) out)
// xnnpack::maximum.f16 takes the same arguments on Half tensors (an fp16 program's), through the same code.
//
// XNNPACK's broadcasting maximum: aten::maximum.out, then the node's clamp.
#include "node.h"

namespace sb::xnnpack_nodes {
namespace {

constexpr const char* kCalls[] = {"aten::maximum.out", "aten::clamp.out"};

Error maximum_f32_impl(KernelContext& ctx, Args args) {
  Value* const inputs[] = {args[0], args[1]};
  return call_then_clamp(ctx, "aten::maximum.out", inputs, 2, args[4], *args[2], *args[3]);
}

}  // namespace

extern const KernelDef maximum_f32{"xnnpack::maximum.f32", "TTdd|T", &maximum_f32_impl, kCalls};
extern const KernelDef maximum_f16{"xnnpack::maximum.f16", "TTdd|T", &maximum_f32_impl, kCalls};

}  // namespace sb::xnnpack_nodes
