// aten::pow.Scalar_out(Scalar self, Tensor exponent, *, Tensor(a!) out)
#include <cmath>

#include "sb/kernel.h"
#include "util/arith.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::pow.Scalar_out";

Error pow_scalar_out_impl(KernelContext& /*ctx*/, Args args) {
  // The tensor is the exponent: the Scalar base is the element function's second operand.
  return arith_scalar<kOp, FloatMathRule>(*args[1]->as_tensor, *args[0], *args[2]->as_tensor,
                                          [](auto exponent, auto base) { return std::pow(base, exponent); });
}

}  // namespace

extern const KernelDef pow_Scalar_out{kOp, "sT|T", &pow_scalar_out_impl, {}, kElementwiseLayout};

}  // namespace sb::kernels
