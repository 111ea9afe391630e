// dim_order_ops::_clone_dim_order.out(Tensor self, *, bool non_blocking=False, int[]? dim_order=None,
//                                     Tensor(a!) out)
//
// Composite: a copy into out, through the dispatcher (aten::copy.out, which
// copies between any dim orders); out's dim order is the one asked for.
#include "sb/kernel.h"
#include "util/convert.h"
#include "util/shape.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "dim_order_ops::_clone_dim_order.out";
constexpr const char* kCalls[] = {"aten::copy.out"};

Error clone_dim_order_out_impl(KernelContext& ctx, Args args) {
  Error err = check_dim_order_arg(kOp, *args[2], args[0]->as_tensor, *args[3]->as_tensor);
  if (!err.ok()) return err;
  // copy.out would broadcast; a clone keeps the shape exactly.
  if (!(err = resize_output_like(kOp, *args[3]->as_tensor, *args[0]->as_tensor)).ok()) return err;
  Value* copy_args[] = {args[3], args[0], args[1], args[3]};
  return ctx.call("aten::copy.out", copy_args);
}

}  // namespace

extern const KernelDef _clone_dim_order_out{kOp, "TbJ|T", &clone_dim_order_out_impl, kCalls,
                                          LayoutPolicy::kAny};

}  // namespace sb::kernels
