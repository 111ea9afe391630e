// aten::bitwise_left_shift.Tensor_Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out)
#include "sb/kernel.h"
#include "util/arith.h"
#include "util/arith_ops.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::bitwise_left_shift.Tensor_Scalar_out";

Error bitwise_left_shift_tensor_scalar_out_impl(KernelContext& /*ctx*/, Args args) {
  return arith_scalar<kOp, BitwiseRule>(*args[0]->as_tensor, *args[1], *args[2]->as_tensor,
                                        [](auto x, auto y) { return arith::shift_left(x, y); });
}

}  // namespace

extern const KernelDef bitwise_left_shift_Tensor_Scalar_out{kOp, "Ts|T", &bitwise_left_shift_tensor_scalar_out_impl, {},
    kElementwiseLayout};

}  // namespace sb::kernels
