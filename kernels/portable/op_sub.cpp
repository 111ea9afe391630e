// aten::sub.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out)
//
// out = self - alpha * other in the promoted dtype's compute type: integer
// differences wrap; no bool operands, result or alpha.
#include "sb/kernel.h"
#include "util/arith.h"
#include "util/arith_ops.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::sub.out";

Error sub_out_impl(KernelContext& /*ctx*/, Args args) {
  using Rule = ArithRule<kRealTypes, kRealHBF16, kRealHBF16, kNoBool | kComputeAsSelected>;
  return arith_tensor_alpha<kOp, Rule>(*args[0]->as_tensor, *args[1]->as_tensor, *args[2], *args[3]->as_tensor,
                                       [](auto x, auto y, auto k) { return arith::sub(x, arith::mul(k, y)); });
}

}  // namespace

extern const KernelDef sub_out{kOp, "TTs|T", &sub_out_impl, {}, kElementwiseLayout};

}  // namespace sb::kernels
