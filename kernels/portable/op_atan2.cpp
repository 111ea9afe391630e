// aten::atan2.out(Tensor self, Tensor other, *, Tensor(a!) out) -- integers promote to Float
#include <cmath>

#include "sb/kernel.h"
#include "util/arith.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::atan2.out";

Error atan2_out_impl(KernelContext& /*ctx*/, Args args) {
  using Rule = ArithRule<kFloatTypes, kRealHBBF16, kFloatHBF16, kIntToFloat>;
  return arith_tensor<kOp, Rule>(*args[0]->as_tensor, *args[1]->as_tensor, *args[2]->as_tensor,
                                 [](auto y, auto x) { return std::atan2(y, x); });
}

}  // namespace

extern const KernelDef atan2_out{kOp, "TT|T", &atan2_out_impl, {}, kElementwiseLayout};

}  // namespace sb::kernels
