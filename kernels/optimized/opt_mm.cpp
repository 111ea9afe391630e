// aten::mm.out(Tensor self, Tensor mat2, *, Tensor(a!) out): fp32 on the
// packed GEMM (optimized/operators/matmul_op.h's matmul_f32), every other dtype (and
// every error) through the portable kernel.
#include "optimized/operators/matmul_op.h"

namespace sb::kernels {
extern const KernelDef mm_out;
}  // namespace sb::kernels

namespace sb::optimized {
namespace {

constexpr char kOp[] = "aten::mm.out";

Error mm_out_impl(KernelContext& ctx, Args args) { return matmul_f32(kOp, ctx, args, sb::kernels::mm_out, 2); }

}  // namespace

extern const KernelDef opt_mm_out{kOp, "TT|T", &mm_out_impl, {}};

}  // namespace sb::optimized
