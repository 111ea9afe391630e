// xnnpack::elu.f32(Tensor input, float alpha, *, Tensor(a!) out)
// xnnpack::elu.f16 takes the same arguments on Half tensors (an fp16 program's), through the same code.
//
// XNNPACK's ELU: aten::elu.out(alpha, scale 1, input scale 1).
#include "node.h"

namespace sb::xnnpack_nodes {
namespace {

constexpr const char* kCalls[] = {"aten::elu.out"};

Error elu_f32_impl(KernelContext& ctx, Args args) {
  Value one = Value::from_double(1.0);
  Value* const call[] = {args[0], args[1], &one, &one, args[2]};
  return ctx.call("aten::elu.out", Args(call, 5));
}

}  // namespace

extern const KernelDef elu_f32{"xnnpack::elu.f32", "Td|T", &elu_f32_impl, kCalls};
extern const KernelDef elu_f16{"xnnpack::elu.f16", "Td|T", &elu_f32_impl, kCalls};

}  // namespace sb::xnnpack_nodes
