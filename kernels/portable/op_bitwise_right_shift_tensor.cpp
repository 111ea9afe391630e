// aten::bitwise_right_shift.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out)
#include "sb/kernel.h"
#include "util/arith.h"
#include "util/arith_ops.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::bitwise_right_shift.Tensor_out";

Error bitwise_right_shift_tensor_out_impl(KernelContext& /*ctx*/, Args args) {
  return arith_tensor<kOp, BitwiseRule>(*args[0]->as_tensor, *args[1]->as_tensor, *args[2]->as_tensor,
                                        [](auto x, auto y) { return arith::shift_right(x, y); });
}

}  // namespace

extern const KernelDef bitwise_right_shift_Tensor_out{kOp, "TT|T", &bitwise_right_shift_tensor_out_impl, {},
    kElementwiseLayout};

}  // namespace sb::kernels
