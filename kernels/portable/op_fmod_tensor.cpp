// aten::fmod.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out) -- the sign of self
#include "sb/kernel.h"
#include "util/arith.h"
#include "util/arith_ops.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::fmod.Tensor_out";

Error fmod_tensor_out_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& self = *args[0]->as_tensor;
  const Tensor& other = *args[1]->as_tensor;
  const bool integral = !is_floating_type(promote_types(self.dtype, other.dtype));
  bool by_zero = false;
  Error err = arith_tensor<kOp, FloatMathRule>(self, other, *args[2]->as_tensor, [&](auto x, auto y) {
    if (integral && y == 0) by_zero = true;
    return arith::fmod(x, y);
  });
  return err.ok() && by_zero ? integer_division_by_zero(kOp) : err;
}

}  // namespace

extern const KernelDef fmod_Tensor_out{kOp, "TT|T", &fmod_tensor_out_impl, {}, kElementwiseLayout};

}  // namespace sb::kernels
