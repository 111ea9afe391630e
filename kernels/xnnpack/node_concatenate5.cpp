// xnnpack::concatenate5.f32(Tensor[] tensors, int dim, *, Tensor(a!) out)
// xnnpack::concatenate5.f16 takes the same arguments on Half tensors (an fp16 program's), through the same code.
//
// XNNPACK's concatenation of 5 tensors along `dim` (in the plan's layout): aten::cat.out.
#include "node.h"

namespace sb::xnnpack_nodes {
namespace {

constexpr const char* kCalls[] = {"aten::cat.out"};

Error concatenate5_f32_impl(KernelContext& ctx, Args args) {
  return ctx.call("aten::cat.out", args);
}

}  // namespace

extern const KernelDef concatenate5_f32{"xnnpack::concatenate5.f32", "Li|T", &concatenate5_f32_impl, kCalls};
extern const KernelDef concatenate5_f16{"xnnpack::concatenate5.f16", "Li|T", &concatenate5_f32_impl, kCalls};

}  // namespace sb::xnnpack_nodes
