// aten::remainder.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out) -- the sign of other
#include "sb/kernel.h"
#include "util/arith.h"
#include "util/arith_ops.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::remainder.Tensor_out";

Error remainder_tensor_out_impl(KernelContext& /*ctx*/, Args args) {
  return arith_tensor_div_checked<kOp, DivisionRule>(*args[0]->as_tensor, *args[1]->as_tensor, *args[2]->as_tensor,
                                              [](auto x, auto y) { return arith::remainder(x, y); });
}

}  // namespace

extern const KernelDef remainder_Tensor_out{kOp, "TT|T", &remainder_tensor_out_impl, {}, kElementwiseLayout};

}  // namespace sb::kernels
