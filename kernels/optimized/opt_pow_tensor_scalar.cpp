// aten::pow.Tensor_Scalar_out: the float fast path of
// kernels/portable/op_pow_tensor_scalar.cpp for the exponents ATen itself
// computes without pow (1, 2, 3, -1, -2, -0.5: products, a reciprocal, rsqrt);
// everything else goes to the portable kernel. GPT-2's GELU is x + 0.044715 x^3.
#include "optimized/microkernels/unary_f32.h"
#include "optimized/operators/binary_op.h"
#include "sb/kernel.h"
#include "util/elementwise.h"

namespace sb::kernels {
extern const KernelDef pow_Tensor_Scalar_out;
}  // namespace sb::kernels

namespace sb::optimized {
namespace {

constexpr char kOp[] = "aten::pow.Tensor_Scalar_out";

// y = 1 / x: the binary division with a broadcast 1 as the dividend.
void reciprocal_f32(const float* x, float* y, int64_t n) {
  const float one = 1.0f;
  BinaryPlan plan;
  plan.rank = 1;
  plan.sizes[0] = n;
  plan.stride_b[0] = 1;
  binary_f32(plan, &one, x, y, BinaryOp::kDiv);
}

Error opt_pow_Tensor_Scalar_out_impl(KernelContext& ctx, Args args) {
  const Tensor& self = *args[0]->as_tensor;
  const Value& exponent = *args[1];
  Tensor& out = *args[2]->as_tensor;
  const double e = exponent.tag == Tag::kInt      ? static_cast<double>(exponent.as_int)
                   : exponent.tag == Tag::kDouble ? exponent.as_double
                                                  : 0.0;  // bool: portable's business
  const bool handled = (exponent.tag == Tag::kInt || exponent.tag == Tag::kDouble) &&
                       (e == 1.0 || e == 2.0 || e == 3.0 || e == -1.0 || e == -2.0 || e == -0.5);
  if (!handled || !prepare_unary_f32(kOp, self, out)) return kernels::pow_Tensor_Scalar_out.fn(ctx, args);
  const float* x = self.data_as<float>();
  float* y = out.data_as<float>();
  const int64_t n = out.numel();
  // Products and quotients through the binary loops (x^3 as (x * x) * x,
  // x^-2 as 1 / (x * x), as a single expression would round them), -0.5 as
  // rsqrt.out's loop.
  if (e == -0.5) {
    rsqrt_f32(x, y, n);
  } else if (e == 1.0) {
    binary_scalar_f32(x, 1.0f, y, n, BinaryOp::kMul);
  } else if (e == -1.0) {
    reciprocal_f32(x, y, n);
  } else {
    BinaryPlan same;
    same.rank = 1;
    same.sizes[0] = n;
    same.stride_a[0] = 1;
    same.stride_b[0] = 1;
    binary_f32(same, x, x, y, BinaryOp::kMul);                     // x^2
    if (e == 3.0) binary_f32(same, y, x, y, BinaryOp::kMul);       // x^2 * x
    if (e == -2.0) reciprocal_f32(y, y, n);                        // 1 / x^2
  }
  return Error();
}

}  // namespace

extern const KernelDef opt_pow_Tensor_Scalar_out{kOp, "Ts|T", &opt_pow_Tensor_Scalar_out_impl, {},
                                                 kernels::kElementwiseLayout};

}  // namespace sb::optimized
