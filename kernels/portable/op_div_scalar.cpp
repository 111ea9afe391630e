// aten::div.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out)
//
// A floating self keeps its dtype, anything else divides as Float; out must
// have that dtype.
#include "sb/kernel.h"
#include "util/arith.h"
#include "util/arith_ops.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::div.Scalar_out";

Error div_scalar_out_impl(KernelContext& /*ctx*/, Args args) {
  using Rule = ArithRule<kFloatTypes, kRealHBBF16, kFloatHBF16, kIntToFloat | kOutIsCommon | kComputeAsSelected>;
  return arith_scalar<kOp, Rule>(*args[0]->as_tensor, *args[1], *args[2]->as_tensor,
                                 [](auto x, auto s) { return arith::div(x, s); });
}

}  // namespace

extern const KernelDef div_Scalar_out{kOp, "Ts|T", &div_scalar_out_impl, {}, kElementwiseLayout};

}  // namespace sb::kernels
