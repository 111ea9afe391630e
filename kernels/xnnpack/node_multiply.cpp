// xnnpack::multiply.f32(Tensor input1, Tensor input2, float output_min, float output_max, *, Tensor(a!) out)
// xnnpack::multiply.f16 takes the same arguments on Half tensors (an fp16 program's), through the same code.
//
// XNNPACK's broadcasting multiply: aten::mul.out, then the node's clamp.
#include "node.h"

namespace sb::xnnpack_nodes {
namespace {

constexpr const char* kCalls[] = {"aten::mul.out", "aten::clamp.out"};

Error multiply_f32_impl(KernelContext& ctx, Args args) {
  Value* const inputs[] = {args[0], args[1]};
  return call_then_clamp(ctx, "aten::mul.out", inputs, 2, args[4], *args[2], *args[3]);
}

}  // namespace

extern const KernelDef multiply_f32{"xnnpack::multiply.f32", "TTdd|T", &multiply_f32_impl, kCalls};
extern const KernelDef multiply_f16{"xnnpack::multiply.f16", "TTdd|T", &multiply_f32_impl, kCalls};

}  // namespace sb::xnnpack_nodes
