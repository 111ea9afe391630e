// xnnpack::square.f32(Tensor input, *, Tensor(a!) out)
// xnnpack::square.f16 takes the same arguments on Half tensors (an fp16 program's), through the same code.
//
// XNNPACK's square: x * x through aten::mul.out.
#include "node.h"

namespace sb::xnnpack_nodes {
namespace {

constexpr const char* kCalls[] = {"aten::mul.out"};

Error square_f32_impl(KernelContext& ctx, Args args) {
  Value* const call[] = {args[0], args[0], args[1]};
  return ctx.call("aten::mul.out", Args(call, 3));
}

}  // namespace

extern const KernelDef square_f32{"xnnpack::square.f32", "T|T", &square_f32_impl, kCalls};
extern const KernelDef square_f16{"xnnpack::square.f16", "T|T", &square_f32_impl, kCalls};

}  // namespace sb::xnnpack_nodes
