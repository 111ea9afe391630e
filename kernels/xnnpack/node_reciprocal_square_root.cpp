// xnnpack::reciprocal_square_root.f32(Tensor input, *, Tensor(a!) out)
// xnnpack::reciprocal_square_root.f16: the same arguments on Half tensors, through the same code.
//
// XNNPACK's element-wise reciprocal_square_root: aten::rsqrt.out.
#include "node.h"

namespace sb::xnnpack_nodes {
namespace {

constexpr const char* kCalls[] = {"aten::rsqrt.out"};

Error reciprocal_square_root_f32_impl(KernelContext& ctx, Args args) {
  return ctx.call("aten::rsqrt.out", args);
}

}  // namespace

extern const KernelDef reciprocal_square_root_f32{"xnnpack::reciprocal_square_root.f32", "T|T", &reciprocal_square_root_f32_impl, kCalls};
extern const KernelDef reciprocal_square_root_f16{"xnnpack::reciprocal_square_root.f16", "T|T", &reciprocal_square_root_f32_impl, kCalls};

}  // namespace sb::xnnpack_nodes
