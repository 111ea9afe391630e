// aten::sub.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out)
#include "sb/kernel.h"
#include "util/binary.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::sub.out";

Error sub_out_impl(KernelContext& /*ctx*/, Args args) {
  return add_scaled<kOp, true>(*args[0]->as_tensor, *args[1]->as_tensor, *args[2], *args[3]->as_tensor);
}

}  // namespace

extern const KernelDef sub_out{kOp, "TTs|T", &sub_out_impl, {}, kElementwiseLayout};

}  // namespace sb::kernels
