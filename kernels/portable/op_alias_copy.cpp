// aten::alias_copy.out(Tensor self, *, Tensor(a!) out)
#include "sb/kernel.h"
#include "util/copy.h"
#include "util/shape.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::alias_copy.out";

Error alias_copy_out_impl(KernelContext& /*ctx*/, Args args) {
  return copy_like(kOp, *args[0]->as_tensor, *args[1]->as_tensor);
}

}  // namespace

extern const KernelDef alias_copy_out{kOp, "T|T", &alias_copy_out_impl, {}};

}  // namespace sb::kernels
