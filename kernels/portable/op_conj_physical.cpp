// aten::_conj_physical.out(Tensor self, *, Tensor(a!) out)
//
// ExecuTorch's kernel takes complex tensors only (a real tensor's conjugate is
// itself, and ATen never lowers conj to this op for one). This runtime holds
// no complex dtype, so every call is refused, as ExecuTorch refuses a real
// tensor; the entry keeps programs that list the op loadable.
#include "sb/kernel.h"
#include "util/shape.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::_conj_physical.out";

Error conj_physical_out_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& self = *args[0]->as_tensor;
  Tensor& out = *args[1]->as_tensor;
  Error err = resize_output_like(kOp, out, self);
  if (!err.ok()) return err;
  return Error::make(ErrorCode::kNotSupported, "%s: takes complex tensors only, not %s", kOp,
                     scalar_type_name(self.dtype));
}

}  // namespace

extern const KernelDef _conj_physical_out{kOp, "T|T", &conj_physical_out_impl, {}};

}  // namespace sb::kernels
