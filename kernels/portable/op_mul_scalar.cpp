// aten::mul.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out)
//
// self's dtype promoted with the Scalar's (an integer tensor times a floating
// Scalar is Float); out must have that dtype. Integer products wrap, bools "and".
#include "sb/kernel.h"
#include "util/arith.h"
#include "util/arith_ops.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::mul.Scalar_out";

Error mul_scalar_out_impl(KernelContext& /*ctx*/, Args args) {
  using Rule = ArithRule<kRealB, kRealHBBF16, kRealHBBF16, kOutIsCommon | kComputeAsSelected>;
  return arith_scalar<kOp, Rule>(*args[0]->as_tensor, *args[1], *args[2]->as_tensor,
                                 [](auto x, auto s) { return arith::mul(x, s); });
}

}  // namespace

extern const KernelDef mul_Scalar_out{kOp, "Ts|T", &mul_scalar_out_impl, {}, kElementwiseLayout};

}  // namespace sb::kernels
