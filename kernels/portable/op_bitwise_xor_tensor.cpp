// aten::bitwise_xor.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out)
#include "sb/kernel.h"
#include "util/arith.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::bitwise_xor.Tensor_out";

Error bitwise_xor_tensor_out_impl(KernelContext& /*ctx*/, Args args) {
  return arith_tensor<kOp, BitwiseRule>(*args[0]->as_tensor, *args[1]->as_tensor, *args[2]->as_tensor,
                                        [](auto x, auto y) { return static_cast<decltype(x)>(x ^ y); });
}

}  // namespace

extern const KernelDef bitwise_xor_Tensor_out{kOp, "TT|T", &bitwise_xor_tensor_out_impl, {}, kElementwiseLayout};

}  // namespace sb::kernels
