// aten::add.out: the float fast path of kernels/portable/op_add.cpp (optimized/microkernels/binary_f32.h's
// add_scaled_f32); everything else (other dtypes, complex, bad shapes,
// broadcasts across non-default dim orders) goes to the portable kernel.
#include "optimized/operators/binary_op.h"
#include "sb/kernel.h"
#include "util/elementwise.h"

namespace sb::kernels {
extern const KernelDef add_out;
}  // namespace sb::kernels

namespace sb::optimized {
namespace {

constexpr char kOp[] = "aten::add.out";

Error opt_add_out_impl(KernelContext& ctx, Args args) { return add_scaled_f32(kOp, ctx, args, kernels::add_out, 1.0f); }

}  // namespace

extern const KernelDef opt_add_out{kOp, "TTs|T", &opt_add_out_impl, {}, kernels::kElementwiseLayout};

}  // namespace sb::optimized
