// aten::maximum.out(Tensor self, Tensor other, *, Tensor(a!) out) -- NaN propagates
#include "sb/kernel.h"
#include "util/arith.h"
#include "util/arith_ops.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::maximum.out";

Error maximum_out_impl(KernelContext& /*ctx*/, Args args) {
  return arith_tensor<kOp, MinMaxRule>(*args[0]->as_tensor, *args[1]->as_tensor, *args[2]->as_tensor,
                                       [](auto x, auto y) { return arith::maximum(x, y); });
}

}  // namespace

extern const KernelDef maximum_out{kOp, "TT|T", &maximum_out_impl, {}, kElementwiseLayout};

}  // namespace sb::kernels
