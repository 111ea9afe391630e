// xnnpack::concatenate4.f32(Tensor[] tensors, int dim, *, Tensor(a!) out)
// xnnpack::concatenate4.f16 takes the same arguments on Half tensors (an fp16 program's), through the same code.
//
// XNNPACK's concatenation of 4 tensors along `dim` (in the plan's layout): aten::cat.out.
#include "node.h"

namespace sb::xnnpack_nodes {
namespace {

constexpr const char* kCalls[] = {"aten::cat.out"};

Error concatenate4_f32_impl(KernelContext& ctx, Args args) {
  return ctx.call("aten::cat.out", args);
}

}  // namespace

extern const KernelDef concatenate4_f32{"xnnpack::concatenate4.f32", "Li|T", &concatenate4_f32_impl, kCalls};
extern const KernelDef concatenate4_f16{"xnnpack::concatenate4.f16", "Li|T", &concatenate4_f32_impl, kCalls};

}  // namespace sb::xnnpack_nodes
