// dim_order_ops::_clone_dim_order.out(Tensor self, *, bool non_blocking=False, int[]? dim_order=None,
//                                     Tensor(a!) out)
//
// Fast path: out of self's dtype and dim order is a byte copy of self (the
// portable kernel goes through the dispatcher to copy.out). A change of dim
// order is the portable kernel's.
#include <cstring>

#include "sb/kernel.h"
#include "util/convert.h"
#include "util/shape.h"

namespace sb::kernels {
extern const KernelDef _clone_dim_order_out;
}  // namespace sb::kernels

namespace sb::optimized {
namespace {

constexpr char kOp[] = "dim_order_ops::_clone_dim_order.out";
constexpr const char* kCalls[] = {"aten::copy.out"};

Error opt_clone_dim_order_out_impl(KernelContext& ctx, Args args) {
  const Tensor& self = *args[0]->as_tensor;
  Tensor& out = *args[3]->as_tensor;
  if (self.dtype != out.dtype || !same_dim_order(self, out)) return kernels::_clone_dim_order_out.fn(ctx, args);
  Error err = kernels::check_dim_order_arg(kOp, *args[2], &self, out);
  if (!err.ok()) return err;
  if (!(err = kernels::resize_output_like(kOp, out, self)).ok()) return err;
  if (out.data != self.data) memmove(out.data, self.data, out.nbytes());
  return Error();
}

}  // namespace

extern const KernelDef opt__clone_dim_order_out{kOp, "TbJ|T", &opt_clone_dim_order_out_impl, kCalls,
                                              LayoutPolicy::kAny};

}  // namespace sb::optimized
