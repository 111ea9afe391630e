// aten::eq.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out)
//
// Compares in the dtype self and the Scalar promote to (an integer tensor
// with an integer Scalar exactly, with a floating one as float); out may
// have any dtype and receives 0 or 1.
#include "sb/kernel.h"
#include "util/dtype_switch.h"
#include "util/elementwise.h"
#include "util/promote.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::eq.Scalar_out";

Error eq_scalar_out_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& self = *args[0]->as_tensor;
  const Value& scalar = *args[1];
  Tensor& out = *args[2]->as_tensor;
  Error err = resize_output_like(kOp, out, self);
  if (!err.ok()) return err;
  const ScalarType common = compute_type(promote_with_scalar(self.dtype, scalar));
  return switch_compute_dtype<kOp, kRealB>(common, [&](auto zero) {
    using C = decltype(zero);
    const C other = scalar_to<C>(scalar);
    return map_unary_as<kOp, kRealHBBF16, kRealHBBF16, C>(self, out, [=](C x) { return x == other; });
  });
}

}  // namespace

extern const KernelDef eq_Scalar_out{kOp, "Ts|T", &eq_scalar_out_impl, {}, kElementwiseLayout};

}  // namespace sb::kernels
