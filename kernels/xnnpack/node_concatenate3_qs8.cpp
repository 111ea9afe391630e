// xnnpack::concatenate3.qs8(Tensor[] tensors, int dim, *, Tensor(a!) out)
//
// On int8 elements (input and output share their quantization), as XNNPACK's concatenation of 3 tensors along `dim` (in the plan's layout): aten::cat.out.
#include "node.h"

namespace sb::xnnpack_nodes {
namespace {

constexpr const char* kCalls[] = {"aten::cat.out"};

Error concatenate3_qs8_impl(KernelContext& ctx, Args args) {
  return ctx.call("aten::cat.out", args);
}

}  // namespace

extern const KernelDef concatenate3_qs8{"xnnpack::concatenate3.qs8", "Li|T", &concatenate3_qs8_impl, kCalls};

}  // namespace sb::xnnpack_nodes
