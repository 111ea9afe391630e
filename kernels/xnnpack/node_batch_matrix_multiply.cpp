// xnnpack::batch_matrix_multiply.f32(Tensor input1, Tensor input2, *, Tensor(a!) out)
// xnnpack::batch_matrix_multiply.f16: the same arguments on Half tensors, through the same code.
//
// XNNPACK's batched matrix multiply on [B, M, K] x [B, K, N] (the plan folds leading batch dims): aten::bmm.out.
#include "node.h"

namespace sb::xnnpack_nodes {
namespace {

constexpr const char* kCalls[] = {"aten::bmm.out"};

Error batch_matrix_multiply_f32_impl(KernelContext& ctx, Args args) {
  return ctx.call("aten::bmm.out", args);
}

}  // namespace

extern const KernelDef batch_matrix_multiply_f32{"xnnpack::batch_matrix_multiply.f32", "TT|T", &batch_matrix_multiply_f32_impl, kCalls};
extern const KernelDef batch_matrix_multiply_f16{"xnnpack::batch_matrix_multiply.f16", "TT|T", &batch_matrix_multiply_f32_impl, kCalls};

}  // namespace sb::xnnpack_nodes
