// dim_order_ops::_to_dim_order_copy.out(Tensor self, *, bool non_blocking=False, int[]? dim_order=None,
//                                       Tensor(a!) out)
//
// A copy into out's dtype and dim order (e.g. int64 -> float32, or contiguous
// -> channels-last): out's element at each index is self's, converted.
#include "sb/kernel.h"
#include "util/convert.h"
#include "util/shape.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "dim_order_ops::_to_dim_order_copy.out";

Error to_dim_order_copy_out_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& self = *args[0]->as_tensor;
  Tensor& out = *args[3]->as_tensor;
  Error err = check_dim_order_arg(kOp, *args[2], &self, out);
  if (!err.ok()) return err;
  if (!(err = resize_output_like(kOp, out, self)).ok()) return err;
  return convert_copy<kOp>(self, out);
}

}  // namespace

extern const KernelDef _to_dim_order_copy_out{kOp, "TbJ|T", &to_dim_order_copy_out_impl, {},
                                            LayoutPolicy::kAny};

}  // namespace sb::kernels
