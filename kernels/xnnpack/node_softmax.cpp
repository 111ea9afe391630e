// xnnpack::softmax.f32(Tensor input, int dim, *, Tensor(a!) out)
// xnnpack::softmax.f16 takes the same arguments on Half tensors (an fp16 program's), through the same code.
//
// XNNPACK's softmax over the innermost dim (in the plan's layout, `dim`): aten::_softmax.out.
#include "node.h"

namespace sb::xnnpack_nodes {
namespace {

constexpr const char* kCalls[] = {"aten::_softmax.out"};

Error softmax_f32_impl(KernelContext& ctx, Args args) {
  Value half_to_float = Value::from_bool(false);
  Value* const call[] = {args[0], args[1], &half_to_float, args[2]};
  return ctx.call("aten::_softmax.out", Args(call, 4));
}

}  // namespace

extern const KernelDef softmax_f32{"xnnpack::softmax.f32", "Ti|T", &softmax_f32_impl, kCalls};
extern const KernelDef softmax_f16{"xnnpack::softmax.f16", "Ti|T", &softmax_f32_impl, kCalls};

}  // namespace sb::xnnpack_nodes
