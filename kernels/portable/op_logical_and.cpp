// aten::logical_and.out(Tensor self, Tensor other, *, Tensor(a!) out) -- any dtypes
#include "sb/kernel.h"
#include "util/compare.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::logical_and.out";

Error logical_and_out_impl(KernelContext& /*ctx*/, Args args) {
  return logical_tensor<kOp>(*args[0]->as_tensor, *args[1]->as_tensor, *args[2]->as_tensor,
                             [](bool x, bool y) { return x && y; });
}

}  // namespace

extern const KernelDef logical_and_out{kOp, "TT|T", &logical_and_out_impl, {}, kElementwiseLayout};

}  // namespace sb::kernels
