// aten::sub.out: the float fast path of kernels/portable/op_sub.cpp (optimized/microkernels/binary_f32.h's
// add_scaled_f32); everything else (other dtypes, complex, bad shapes,
// broadcasts across non-default dim orders) goes to the portable kernel.
#include "optimized/operators/binary_op.h"
#include "sb/kernel.h"
#include "util/elementwise.h"

namespace sb::kernels {
extern const KernelDef sub_out;
}  // namespace sb::kernels

namespace sb::optimized {
namespace {

constexpr char kOp[] = "aten::sub.out";

Error opt_sub_out_impl(KernelContext& ctx, Args args) { return add_scaled_f32(kOp, ctx, args, kernels::sub_out, -1.0f); }

}  // namespace

extern const KernelDef opt_sub_out{kOp, "TTs|T", &opt_sub_out_impl, {}, kernels::kElementwiseLayout};

}  // namespace sb::optimized
