// aten::addmm.out(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1, Tensor(a!) out)
//
// Composite, as ATen decomposes it: mm into out, scale by alpha when it is
// not 1, then add beta * self (broadcast) in place, through the dispatcher.
#include "sb/kernel.h"
#include "util/matmul.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::addmm.out";
constexpr const char* kCalls[] = {"aten::mm.out", "aten::mul.Scalar_out", "aten::add.out"};

Error addmm_out_impl(KernelContext& ctx, Args args) {
  Value* self = args[0];
  Value* beta = args[3];
  Value* alpha = args[4];
  Value* out = args[5];
  const bool use_self = beta->scalar_as_double() != 0.0;  // ATen ignores self then, even NaNs
  // mm writes out before self is read, so out must not share self's bytes.
  Error err = use_self ? check_no_overlap(kOp, *out->as_tensor, *self->as_tensor, *self->as_tensor) : Error();
  if (!err.ok()) return err;
  Value* mm_args[] = {args[1], args[2], out};
  if (!(err = ctx.call("aten::mm.out", mm_args)).ok()) return err;
  if (alpha->scalar_as_double() != 1.0) {
    Value* scale_args[] = {out, alpha, out};
    if (!(err = ctx.call("aten::mul.Scalar_out", scale_args)).ok()) return err;
  }
  if (!use_self) return Error();
  Value* add_args[] = {out, self, beta, out};
  return ctx.call("aten::add.out", add_args);
}

}  // namespace

extern const KernelDef addmm_out{kOp, "TTTss|T", &addmm_out_impl, kCalls};

}  // namespace sb::kernels
