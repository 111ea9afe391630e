// aten::eq.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out) -- out is bool
#include "sb/kernel.h"
#include "util/dtype_switch.h"
#include "util/elementwise.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::eq.Scalar_out";

Error eq_scalar_out_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& self = *args[0]->as_tensor;
  const double other = args[1]->scalar_as_double();
  const Tensor& out = *args[2]->as_tensor;
  Error err = check_same_shape(kOp, "out", out, self);
  if (!err.ok()) return err;
  if (!(err = check_dtype(kOp, "out", out, ScalarType::kBool)).ok()) return err;
  return switch_dtype<kOp, kRealAndBool>(self.dtype, [&](auto zero) {
    using T = decltype(zero);
    map_unary<T, bool>(self, out, [other](T x) { return static_cast<double>(x) == other; });
    return Error();
  });
}

}  // namespace

extern const KernelDef eq_Scalar_out{kOp, "Ts|T", &eq_scalar_out_impl, {}};

}  // namespace sb::kernels
