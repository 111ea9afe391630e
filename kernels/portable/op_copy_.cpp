// aten::copy_(Tensor(a!) self, Tensor src, bool non_blocking=False) -> Tensor(a!)
//
// In place: self takes src's values, broadcast to self's shape and converted
// to self's dtype. ExecuTorch emits it to write mutated inputs and buffers
// back. The signature has no out part: self is written and is also what the
// program call returns, so the loader's check of the returned value covers it.
#include "sb/kernel.h"
#include "util/convert.h"
#include "util/elementwise.h"
#include "util/shape.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::copy_";

Error copy__impl(KernelContext& /*ctx*/, Args args) {
  Tensor& self = *args[0]->as_tensor;
  const Tensor& src = *args[1]->as_tensor;
  if (args[2]->as_bool) return Error::make(ErrorCode::kNotSupported, "%s: non_blocking copies are not supported", kOp);
  Error err = check_broadcast_out(kOp, src, self, self);
  if (!err.ok()) return err;
  if (self.data == src.data) return Error();  // a copy onto itself (same shape and dtype after the check)
  return convert_copy<kOp>(src, self);
}

}  // namespace

extern const KernelDef copy_{kOp, "TTb", &copy__impl, {}};

}  // namespace sb::kernels
