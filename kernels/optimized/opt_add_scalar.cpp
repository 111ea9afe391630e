// aten::add.Scalar_out: the float fast path of kernels/portable/op_add_scalar.cpp; everything else goes
// to the portable kernel.
#include "optimized/operators/binary_op.h"
#include "sb/kernel.h"
#include "util/elementwise.h"
#include "util/promote.h"

namespace sb::kernels {
extern const KernelDef add_Scalar_out;
}  // namespace sb::kernels

namespace sb::optimized {
namespace {

constexpr char kOp[] = "aten::add.Scalar_out";

Error opt_add_Scalar_out_impl(KernelContext& ctx, Args args) {
  const Tensor& self = *args[0]->as_tensor;
  Tensor& out = *args[3]->as_tensor;
  float alpha = 0.0f;
  if (!numeric_scalar(*args[1]) || !numeric_scalar(*args[2]) || !kernels::extract_scalar<float>(*args[2], &alpha) ||
      !prepare_unary_f32(kOp, self, out)) {
    return kernels::add_Scalar_out.fn(ctx, args);
  }
  const float c = alpha * kernels::scalar_to<float>(*args[1]);  // the portable order: alpha * other, then add
  binary_scalar_f32(self.data_as<float>(), c, out.data_as<float>(), out.numel(), BinaryOp::kAxpy, 1.0f, ctx.threads());
  return Error();
}

}  // namespace

extern const KernelDef opt_add_Scalar_out{kOp, "Tss|T", &opt_add_Scalar_out_impl, {}, kernels::kElementwiseLayout};

}  // namespace sb::optimized
