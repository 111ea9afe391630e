// aten::copy.out(Tensor self, Tensor src, bool non_blocking=False, *, Tensor(a!) out)
//
// out takes self's shape and src's values (broadcast, converted to out's dtype).
#include "sb/kernel.h"
#include "util/convert.h"
#include "util/shape.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::copy.out";

Error copy_out_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& self = *args[0]->as_tensor;
  const Tensor& src = *args[1]->as_tensor;
  Tensor& out = *args[3]->as_tensor;
  Error err = resize_output_like(kOp, out, self);
  if (!err.ok()) return err;
  if (!(err = check_broadcasts_to(kOp, src, out)).ok()) return err;
  return convert_copy<kOp>(src, out);
}

}  // namespace

// convert_copy follows each tensor's dim order.
extern const KernelDef copy_out{kOp, "TTb|T", &copy_out_impl, {}, LayoutPolicy::kAny};

}  // namespace sb::kernels
