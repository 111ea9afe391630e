// aten::add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out)
#include "sb/kernel.h"
#include "util/binary.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::add.out";

Error add_out_impl(KernelContext& /*ctx*/, Args args) {
  return add_scaled<kOp, false>(*args[0]->as_tensor, *args[1]->as_tensor, *args[2], *args[3]->as_tensor);
}

}  // namespace

extern const KernelDef add_out{kOp, "TTs|T", &add_out_impl, {}, kElementwiseLayout};

}  // namespace sb::kernels
