// aten::fmod.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out) -- the sign of self
#include "sb/kernel.h"
#include "util/arith.h"
#include "util/arith_ops.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::fmod.Scalar_out";

Error fmod_scalar_out_impl(KernelContext& /*ctx*/, Args args) {
  return arith_scalar_div_checked<kOp, FloatMathRule>(*args[0]->as_tensor, *args[1], *args[2]->as_tensor,
                                              [](auto x, auto y) { return arith::fmod(x, y); });
}

}  // namespace

extern const KernelDef fmod_Scalar_out{kOp, "Ts|T", &fmod_scalar_out_impl, {}, kElementwiseLayout};

}  // namespace sb::kernels
