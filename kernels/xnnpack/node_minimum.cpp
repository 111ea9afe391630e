// xnnpack::minimum.f32(Tensor input1, Tensor input2, float output_min, float output_max, *, Tensor(a!) out)
// xnnpack::minimum.f16 takes the same arguments on Half tensors (an fp16 program's), through the same code.
//
// XNNPACK's broadcasting minimum: aten::minimum.out, then the node's clamp.
#include "node.h"

namespace sb::xnnpack_nodes {
namespace {

constexpr const char* kCalls[] = {"aten::minimum.out", "aten::clamp.out"};

Error minimum_f32_impl(KernelContext& ctx, Args args) {
  Value* const inputs[] = {args[0], args[1]};
  return call_then_clamp(ctx, "aten::minimum.out", inputs, 2, args[4], *args[2], *args[3]);
}

}  // namespace

extern const KernelDef minimum_f32{"xnnpack::minimum.f32", "TTdd|T", &minimum_f32_impl, kCalls};
extern const KernelDef minimum_f16{"xnnpack::minimum.f16", "TTdd|T", &minimum_f32_impl, kCalls};

}  // namespace sb::xnnpack_nodes
