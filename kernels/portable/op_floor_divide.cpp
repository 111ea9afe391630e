// aten::floor_divide.out(Tensor self, Tensor other, *, Tensor(a!) out)
#include "sb/kernel.h"
#include "util/arith.h"
#include "util/arith_ops.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::floor_divide.out";

Error floor_divide_out_impl(KernelContext& /*ctx*/, Args args) {
  return arith_tensor_div_checked<kOp, DivisionRule>(*args[0]->as_tensor, *args[1]->as_tensor, *args[2]->as_tensor,
                                              [](auto x, auto y) { return arith::div_floor(x, y); });
}

}  // namespace

extern const KernelDef floor_divide_out{kOp, "TT|T", &floor_divide_out_impl, {}, kElementwiseLayout};

}  // namespace sb::kernels
