// aten::sub.Scalar_out(Tensor self, Scalar other, Scalar alpha=1, *, Tensor(a!) out)
#include "sb/kernel.h"
#include "util/arith.h"
#include "util/arith_ops.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::sub.Scalar_out";

Error sub_scalar_out_impl(KernelContext& /*ctx*/, Args args) {
  return subtract_scalar_alpha<kOp>(*args[0]->as_tensor, *args[1], *args[2], *args[3]->as_tensor,
                                    [](auto x, auto s, auto a) { return arith::sub(x, arith::mul(a, s)); });
}

}  // namespace

extern const KernelDef sub_Scalar_out{kOp, "Tss|T", &sub_scalar_out_impl, {}, kElementwiseLayout};

}  // namespace sb::kernels
