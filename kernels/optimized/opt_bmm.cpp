// aten::bmm.out(Tensor self, Tensor mat2, *, Tensor(a!) out): fp32 on the
// packed GEMM (optimized/operators/matmul_op.h's matmul_f32), batch by batch; every
// other dtype (and every error) through the portable kernel.
#include "optimized/operators/matmul_op.h"

namespace sb::kernels {
extern const KernelDef bmm_out;
}  // namespace sb::kernels

namespace sb::optimized {
namespace {

constexpr char kOp[] = "aten::bmm.out";

Error bmm_out_impl(KernelContext& ctx, Args args) { return matmul_f32(kOp, ctx, args, sb::kernels::bmm_out, 3); }

}  // namespace

extern const KernelDef opt_bmm_out{kOp, "TT|T", &bmm_out_impl, {}};

}  // namespace sb::optimized
