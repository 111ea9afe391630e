// aten::div.Scalar_out: the float fast path of kernels/portable/op_div_scalar.cpp; everything else goes
// to the portable kernel.
#include "optimized/operators/binary_op.h"
#include "sb/kernel.h"
#include "util/elementwise.h"
#include "util/promote.h"

namespace sb::kernels {
extern const KernelDef div_Scalar_out;
}  // namespace sb::kernels

namespace sb::optimized {
namespace {

constexpr char kOp[] = "aten::div.Scalar_out";

Error opt_div_Scalar_out_impl(KernelContext& ctx, Args args) {
  const Tensor& self = *args[0]->as_tensor;
  Tensor& out = *args[2]->as_tensor;
  if (!numeric_scalar(*args[1]) || !prepare_unary_f32(kOp, self, out)) return kernels::div_Scalar_out.fn(ctx, args);
  const float s = kernels::scalar_to<float>(*args[1]);
  binary_scalar_f32(self.data_as<float>(), s, out.data_as<float>(), out.numel(), BinaryOp::kDiv, 1.0f, ctx.threads());
  return Error();
}

}  // namespace

extern const KernelDef opt_div_Scalar_out{kOp, "Ts|T", &opt_div_Scalar_out_impl, {}, kernels::kElementwiseLayout};

}  // namespace sb::optimized
