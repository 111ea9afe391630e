// et_copy::_h2d_copy.out(Tensor self, *, Tensor(a!) out)
//
// ExecuTorch's host-to-device copy, inserted by device partitioning. This
// runtime has one memory space, the host's, so it is a byte copy: out takes
// self's shape, dtype and bytes.
#include "sb/kernel.h"
#include "util/copy.h"
#include "util/shape.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "et_copy::_h2d_copy.out";

Error h2d_copy_out_impl(KernelContext& /*ctx*/, Args args) {
  return copy_like(kOp, *args[0]->as_tensor, *args[1]->as_tensor);
}

}  // namespace

extern const KernelDef _h2d_copy_out{kOp, "T|T", &h2d_copy_out_impl, {}};

}  // namespace sb::kernels
