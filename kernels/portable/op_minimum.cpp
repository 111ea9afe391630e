// aten::minimum.out(Tensor self, Tensor other, *, Tensor(a!) out) -- NaN propagates
#include "sb/kernel.h"
#include "util/arith.h"
#include "util/arith_ops.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::minimum.out";

Error minimum_out_impl(KernelContext& /*ctx*/, Args args) {
  return arith_tensor<kOp, MinMaxRule>(*args[0]->as_tensor, *args[1]->as_tensor, *args[2]->as_tensor,
                                       [](auto x, auto y) { return arith::minimum(x, y); });
}

}  // namespace

extern const KernelDef minimum_out{kOp, "TT|T", &minimum_out_impl, {}, kElementwiseLayout};

}  // namespace sb::kernels
