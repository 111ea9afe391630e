// aten::sub.Scalar_out(Tensor self, Scalar other, Scalar alpha=1, *, Tensor(a!) out)
#include "sb/kernel.h"
#include "util/arith.h"
#include "util/arith_ops.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::sub.Scalar_out";

Error sub_scalar_out_impl(KernelContext& /*ctx*/, Args args) {
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
                                       [](auto x, auto s, auto a) { return arith::sub(x, arith::mul(a, s)); });
}

}  // namespace

extern const KernelDef sub_Scalar_out{kOp, "Tss|T", &sub_scalar_out_impl, {}, kElementwiseLayout};

}  // namespace sb::kernels
