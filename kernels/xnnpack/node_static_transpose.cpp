// xnnpack::static_transpose.f32(Tensor input, int[] perm, *, Tensor(a!) out)
// xnnpack::static_transpose.f16 takes the same arguments on Half tensors (an fp16 program's), through the same code.
//
// XNNPACK's transpose, in the layouts the plan chose for its input and output: aten::permute_copy.out.
#include "node.h"

namespace sb::xnnpack_nodes {
namespace {

constexpr const char* kCalls[] = {"aten::permute_copy.out"};

Error static_transpose_f32_impl(KernelContext& ctx, Args args) {
  // The plan gives an identity transpose's output the input's memory: nothing to move.
  if (args[0]->as_tensor->data == args[2]->as_tensor->data) return Error();
  return ctx.call("aten::permute_copy.out", args);
}

}  // namespace

extern const KernelDef static_transpose_f32{"xnnpack::static_transpose.f32", "TI|T", &static_transpose_f32_impl, kCalls};
extern const KernelDef static_transpose_f16{"xnnpack::static_transpose.f16", "TI|T", &static_transpose_f32_impl, kCalls};

}  // namespace sb::xnnpack_nodes
