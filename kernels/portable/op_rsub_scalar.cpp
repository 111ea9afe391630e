// aten::rsub.Scalar_out(Tensor self, Scalar other, Scalar alpha=1, *, Tensor(a!) out) -- other - alpha * self
#include "sb/kernel.h"
#include "util/arith.h"
#include "util/arith_ops.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::rsub.Scalar_out";

Error rsub_scalar_out_impl(KernelContext& /*ctx*/, Args args) {
  return subtract_scalar_alpha<kOp>(*args[0]->as_tensor, *args[1], *args[2], *args[3]->as_tensor,
                                    [](auto x, auto s, auto a) { return arith::sub(s, arith::mul(a, x)); });
}

}  // namespace

extern const KernelDef rsub_Scalar_out{kOp, "Tss|T", &rsub_scalar_out_impl, {}, kElementwiseLayout};

}  // namespace sb::kernels
