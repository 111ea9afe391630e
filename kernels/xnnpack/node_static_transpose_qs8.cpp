// xnnpack::static_transpose.qs8(Tensor input, int[] perm, *, Tensor(a!) out)
//
// On int8 elements (input and output share their quantization), as XNNPACK's transpose, in the layouts the plan chose for its input and output: aten::permute_copy.out.
#include "node.h"

namespace sb::xnnpack_nodes {
namespace {

constexpr const char* kCalls[] = {"aten::permute_copy.out"};

Error static_transpose_qs8_impl(KernelContext& ctx, Args args) {
  // The plan gives an identity transpose's output the input's memory: nothing to move.
  if (args[0]->as_tensor->data == args[2]->as_tensor->data) return Error();
  return ctx.call("aten::permute_copy.out", args);
}

}  // namespace

extern const KernelDef static_transpose_qs8{"xnnpack::static_transpose.qs8", "TI|T", &static_transpose_qs8_impl, kCalls};

}  // namespace sb::xnnpack_nodes
