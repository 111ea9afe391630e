// aten::eq.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out) -- out is bool
#include <type_traits>

#include "sb/kernel.h"
#include "util/dtype_switch.h"
#include "util/elementwise.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::eq.Scalar_out";

Error eq_scalar_out_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& self = *args[0]->as_tensor;
  const Value& scalar = *args[1];
  const double other = scalar.scalar_as_double();
  // Integers compare exactly with an integer scalar; through double, large int64s would collide.
  const bool exact = scalar.tag != Tag::kDouble;
  const int64_t other_i = exact ? scalar.scalar_as_int() : 0;
  Tensor& out = *args[2]->as_tensor;
  Error err = resize_output_like(kOp, out, self);
  if (!err.ok()) return err;
  if (!(err = check_dtype(kOp, "out", out, ScalarType::kBool)).ok()) return err;
  return switch_dtype<kOp, kRealAndBool>(self.dtype, [&](auto zero) {
    using T = decltype(zero);
    map_unary<T, bool>(self, out, [=](T x) {
      if constexpr (std::is_integral_v<T>) {
        if (exact) return static_cast<int64_t>(x) == other_i;
      }
      return static_cast<double>(x) == other;
    });
    return Error();
  });
}

}  // namespace

extern const KernelDef eq_Scalar_out{kOp, "Ts|T", &eq_scalar_out_impl, {}};

}  // namespace sb::kernels
