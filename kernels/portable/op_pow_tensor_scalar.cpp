// aten::pow.Tensor_Scalar_out(Tensor self, Scalar exponent, *, Tensor(a!) out)
#include <cmath>

#include "sb/kernel.h"
#include "util/arith.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::pow.Tensor_Scalar_out";

Error pow_tensor_scalar_out_impl(KernelContext& /*ctx*/, Args args) {
  return arith_scalar<kOp, FloatMathRule>(*args[0]->as_tensor, *args[1], *args[2]->as_tensor,
                                          [](auto x, auto y) { return std::pow(x, y); });
}

}  // namespace

extern const KernelDef pow_Tensor_Scalar_out{kOp, "Ts|T", &pow_tensor_scalar_out_impl, {}, kElementwiseLayout};

}  // namespace sb::kernels
