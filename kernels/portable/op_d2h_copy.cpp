// et_copy::_d2h_copy.out(Tensor self, *, Tensor(a!) out)
//
// ExecuTorch's device-to-host copy, inserted by device partitioning. This
// runtime has one memory space, the host's, so it is a byte copy: out takes
// self's shape, dtype and bytes.
#include "sb/kernel.h"
#include "util/copy.h"
#include "util/shape.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "et_copy::_d2h_copy.out";

Error d2h_copy_out_impl(KernelContext& /*ctx*/, Args args) {
  return copy_like(kOp, *args[0]->as_tensor, *args[1]->as_tensor);
}

}  // namespace

extern const KernelDef _d2h_copy_out{kOp, "T|T", &d2h_copy_out_impl, {}};

}  // namespace sb::kernels
