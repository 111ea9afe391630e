// aten::pow.Tensor_Scalar_out: the float fast path of
// kernels/portable/op_pow_tensor_scalar.cpp for the exponents ATen itself
// computes without pow (1, 2, 3, -1, -2, -0.5: products, a reciprocal, rsqrt);
// everything else goes to the portable kernel. GPT-2's GELU is x + 0.044715 x^3.
#include "optimized/util/binary_fast.h"
#include "optimized/util/vec_math.h"
#include "sb/kernel.h"
#include "util/elementwise.h"

namespace sb::kernels {
extern const KernelDef pow_Tensor_Scalar_out;
}  // namespace sb::kernels

namespace sb::optimized {
namespace {

constexpr char kOp[] = "aten::pow.Tensor_Scalar_out";

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
  if (e == 1.0) {
    map_unary_f32(x, y, n, [](VecF v) { return v; });
  } else if (e == 2.0) {
    map_unary_f32(x, y, n, [](VecF v) { return v * v; });
  } else if (e == 3.0) {
    map_unary_f32(x, y, n, [](VecF v) { return v * v * v; });
  } else if (e == -1.0) {
    map_unary_f32(x, y, n, [](VecF v) { return splat(1.0f) / v; });
  } else if (e == -2.0) {
    map_unary_f32(x, y, n, [](VecF v) { return splat(1.0f) / (v * v); });
  } else {
    map_unary_f32(x, y, n, [](VecF v) { return vrsqrt(v); });
  }
  return Error();
}

}  // namespace

extern const KernelDef opt_pow_Tensor_Scalar_out{kOp, "Ts|T", &opt_pow_Tensor_Scalar_out_impl, {},
                                                 kernels::kElementwiseLayout};

}  // namespace sb::optimized
