// aten::ne.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out) -- out may have any dtype
#include "sb/kernel.h"
#include "util/compare.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::ne.Tensor_out";

Error ne_tensor_out_impl(KernelContext& /*ctx*/, Args args) {
  return compare_tensor<kOp>(*args[0]->as_tensor, *args[1]->as_tensor, *args[2]->as_tensor,
                             [](auto x, auto y) { return x != y; });
}

}  // namespace

extern const KernelDef ne_Tensor_out{kOp, "TT|T", &ne_tensor_out_impl, {}, kElementwiseLayout};

}  // namespace sb::kernels
