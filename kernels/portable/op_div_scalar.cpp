// aten::div.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out)
//
// A floating self keeps its dtype, anything else divides as Float; out must
// have that dtype.
#include "sb/kernel.h"
#include "util/binary.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::div.Scalar_out";

Error div_scalar_out_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& self = *args[0]->as_tensor;
  const Tensor& out = *args[2]->as_tensor;
  const ScalarType common = is_floating_type(self.dtype) ? self.dtype : ScalarType::kFloat;
  Error err = resize_output_like(kOp, const_cast<Tensor&>(out), self);
  if (!err.ok() || !(err = check_dtype(kOp, "out", out, common)).ok()) return err;
  return switch_compute_dtype<kOp, kFloatTypes>(compute_type(common), [&](auto zero) {
    using C = decltype(zero);
    const C other = scalar_to<C>(*args[1]);
    return map_unary_as<kOp, kRealHBBF16, kFloatHBF16, C>(self, out, [other](C x) { return x / other; });
  });
}

}  // namespace

extern const KernelDef div_Scalar_out{kOp, "Ts|T", &div_scalar_out_impl, {}, kElementwiseLayout};

}  // namespace sb::kernels
