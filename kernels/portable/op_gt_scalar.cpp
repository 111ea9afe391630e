// aten::gt.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out) -- out may have any dtype
#include "sb/kernel.h"
#include "util/compare.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::gt.Scalar_out";

Error gt_scalar_out_impl(KernelContext& /*ctx*/, Args args) {
  return compare_scalar<kOp>(*args[0]->as_tensor, *args[1], *args[2]->as_tensor,
                             [](auto x, auto y) { return x > y; });
}

}  // namespace

extern const KernelDef gt_Scalar_out{kOp, "Ts|T", &gt_scalar_out_impl, {}, kElementwiseLayout};

}  // namespace sb::kernels
