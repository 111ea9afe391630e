// dim_order_ops::_to_dim_order_copy.out(Tensor self, *, bool non_blocking=False, int[]? dim_order=None,
//                                       Tensor(a!) out)
//
// A dtype-converting copy (e.g. int64 -> float32).
#include "sb/kernel.h"
#include "util/convert.h"
#include "util/shape.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "dim_order_ops::_to_dim_order_copy.out";

Error to_dim_order_copy_out_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& self = *args[0]->as_tensor;
  Tensor& out = *args[3]->as_tensor;
  Error err = check_contiguous_dim_order(kOp, *args[2], out.dim);
  if (!err.ok()) return err;
  if (!(err = resize_output_like(kOp, out, self)).ok()) return err;
  return convert_copy<kOp>(self, out);
}

}  // namespace

extern const KernelDef _to_dim_order_copy_out{kOp, "TbJ|T", &to_dim_order_copy_out_impl, {}};

}  // namespace sb::kernels
