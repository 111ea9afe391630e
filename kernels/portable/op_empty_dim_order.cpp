// dim_order_ops::_empty_dim_order.out(int[] size, *, int[]? dim_order=None, Tensor(a!) out)
//
// empty.out with ExecuTorch's dim order: out (planned with that order) takes
// the size. The contents are unspecified.
#include "sb/kernel.h"
#include "util/convert.h"
#include "util/shape.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "dim_order_ops::_empty_dim_order.out";

Error empty_dim_order_out_impl(KernelContext& /*ctx*/, Args args) {
  Error err = check_dim_order_arg(kOp, *args[1], nullptr, *args[2]->as_tensor);
  if (!err.ok()) return err;
  return resize_output_to_size(kOp, *args[2]->as_tensor, args[0]->as_int_list);
}

}  // namespace

extern const KernelDef _empty_dim_order_out{kOp, "IJ|T", &empty_dim_order_out_impl, {},
                                          LayoutPolicy::kAny};

}  // namespace sb::kernels
