// aten::pow.Tensor_Tensor_out(Tensor self, Tensor exponent, *, Tensor(a!) out)
#include <cmath>

#include "sb/kernel.h"
#include "util/arith.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::pow.Tensor_Tensor_out";

Error pow_tensor_tensor_out_impl(KernelContext& /*ctx*/, Args args) {
  return arith_tensor<kOp, FloatMathRule>(*args[0]->as_tensor, *args[1]->as_tensor, *args[2]->as_tensor,
                                          [](auto x, auto y) { return std::pow(x, y); });
}

}  // namespace

extern const KernelDef pow_Tensor_Tensor_out{kOp, "TT|T", &pow_tensor_tensor_out_impl, {}, kElementwiseLayout};

}  // namespace sb::kernels
