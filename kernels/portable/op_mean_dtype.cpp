// aten::mean.dtype_out(Tensor self, *, ScalarType? dtype=None, Tensor(a!) out)
//
// Composite, as in ATen: the mean over every dim, through mean.out.
#include "sb/kernel.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::mean.dtype_out";
constexpr const char* kCalls[] = {"aten::mean.out"};

Error mean_dtype_out_impl(KernelContext& ctx, Args args) {
  Value all_dims = Value::none();
  Value keepdim = Value::from_bool(false);
  Value* mean_args[] = {args[0], &all_dims, &keepdim, args[1], args[2]};
  return ctx.call("aten::mean.out", mean_args);
}

}  // namespace

extern const KernelDef mean_dtype_out{kOp, "Tn|T", &mean_dtype_out_impl, kCalls};

}  // namespace sb::kernels
