// aten::fmod.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out) -- the sign of self
#include "sb/kernel.h"
#include "util/arith.h"
#include "util/arith_ops.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::fmod.Tensor_out";

Error fmod_tensor_out_impl(KernelContext& /*ctx*/, Args args) {
  return arith_tensor_div_checked<kOp, FloatMathRule>(*args[0]->as_tensor, *args[1]->as_tensor, *args[2]->as_tensor,
                                              [](auto x, auto y) { return arith::fmod(x, y); });
}

}  // namespace

extern const KernelDef fmod_Tensor_out{kOp, "TT|T", &fmod_tensor_out_impl, {}, kElementwiseLayout};

}  // namespace sb::kernels
