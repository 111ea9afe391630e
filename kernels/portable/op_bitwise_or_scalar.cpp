// aten::bitwise_or.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out)
#include "sb/kernel.h"
#include "util/arith.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::bitwise_or.Scalar_out";

Error bitwise_or_scalar_out_impl(KernelContext& /*ctx*/, Args args) {
  return arith_scalar<kOp, BitwiseRule>(*args[0]->as_tensor, *args[1], *args[2]->as_tensor,
                                        [](auto x, auto y) { return static_cast<decltype(x)>(x | y); });
}

}  // namespace

extern const KernelDef bitwise_or_Scalar_out{kOp, "Ts|T", &bitwise_or_scalar_out_impl, {}, kElementwiseLayout};

}  // namespace sb::kernels
