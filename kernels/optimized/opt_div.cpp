// aten::div.out: the float fast path of kernels/portable/op_div.cpp; everything else
// (other dtypes, complex, bad shapes, broadcasts across non-default dim
// orders) goes to the portable kernel.
#include "optimized/operators/binary_op.h"
#include "sb/kernel.h"
#include "util/elementwise.h"
#include "util/promote.h"

namespace sb::kernels {
extern const KernelDef div_out;
}  // namespace sb::kernels

namespace sb::optimized {
namespace {

constexpr char kOp[] = "aten::div.out";

Error opt_div_out_impl(KernelContext& ctx, Args args) {
  return binary_out_f32(kOp, ctx, args, kernels::div_out, BinaryOp::kDiv);
}

}  // namespace

extern const KernelDef opt_div_out{kOp, "TT|T", &opt_div_out_impl, {}, kernels::kElementwiseLayout};

}  // namespace sb::optimized
