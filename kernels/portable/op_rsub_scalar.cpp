// aten::rsub.Scalar_out(Tensor self, Scalar other, Scalar alpha=1, *, Tensor(a!) out) -- other - alpha * self
#include "sb/kernel.h"
#include "util/arith.h"
#include "util/arith_ops.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::rsub.Scalar_out";

Error rsub_scalar_out_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& self = *args[0]->as_tensor;
  // No bool: neither operand nor alpha.
  using Rule = ArithRule<kRealTypes, kRealHBF16, kRealHBF16, kOutIsCommon | kNoBool>;
  const ScalarType common = arith_scalar_common<Rule>(self, *args[1]);
  const ScalarType alpha = scalar_dtype(*args[2]);
  if (alpha == ScalarType::kBool || !can_cast(alpha, common)) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: alpha's dtype %s does not cast to %s", kOp,
                       scalar_type_name(alpha), scalar_type_name(common));
  }
  return arith_scalar_alpha<kOp, Rule>(self, *args[1], *args[2], *args[3]->as_tensor,
                                       [](auto x, auto s, auto a) { return arith::sub(s, arith::mul(a, x)); });
}

}  // namespace

extern const KernelDef rsub_Scalar_out{kOp, "Tss|T", &rsub_scalar_out_impl, {}, kElementwiseLayout};

}  // namespace sb::kernels
