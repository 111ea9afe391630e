// aten::fmod.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out) -- the sign of self
#include "sb/kernel.h"
#include "util/arith.h"
#include "util/arith_ops.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::fmod.Scalar_out";

Error fmod_scalar_out_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& self = *args[0]->as_tensor;
  const Value& other = *args[1];
  if (!is_floating_type(arith_scalar_common<FloatMathRule>(self, other)) && other.scalar_as_double() == 0.0) {
    return integer_division_by_zero(kOp);
  }
  return arith_scalar<kOp, FloatMathRule>(self, other, *args[2]->as_tensor, [](auto x, auto y) { return arith::fmod(x, y); });
}

}  // namespace

extern const KernelDef fmod_Scalar_out{kOp, "Ts|T", &fmod_scalar_out_impl, {}, kElementwiseLayout};

}  // namespace sb::kernels
