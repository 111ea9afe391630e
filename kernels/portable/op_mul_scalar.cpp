// aten::mul.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out)
//
// self's dtype promoted with the Scalar's (an integer tensor times a floating
// Scalar is Float); out must have that dtype.
#include "sb/kernel.h"
#include "util/binary.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::mul.Scalar_out";

Error mul_scalar_out_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& self = *args[0]->as_tensor;
  const Tensor& out = *args[2]->as_tensor;
  const ScalarType common = promote_with_scalar(self.dtype, *args[1]);
  Error err = resize_output_like(kOp, const_cast<Tensor&>(out), self);
  if (!err.ok() || !(err = check_dtype(kOp, "out", out, common)).ok()) return err;
  return switch_compute_dtype<kOp, kRealB>(compute_type(common), [&](auto zero) {
    using C = decltype(zero);
    const C other = scalar_to<C>(*args[1]);
    return map_unary_as<kOp, kRealHBBF16, kRealHBBF16, C>(self, out,
                                                          [other](C x) { return binary_detail::mul(x, other); });
  });
}

}  // namespace

extern const KernelDef mul_Scalar_out{kOp, "Ts|T", &mul_scalar_out_impl, {}, kElementwiseLayout};

}  // namespace sb::kernels
