// aten::abs.out(Tensor self, *, Tensor(a!) out)
#include <cmath>
#include <type_traits>

#include "sb/kernel.h"
#include "util/complex.h"
#include "util/unary_ufunc.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::abs.out";

// A complex self gives its magnitude (util/complex.h) in out's Half, Float or Double.
Error complex_abs(const Tensor& self, Tensor& out) {
  Error err = resize_output_like(kOp, out, self);
  if (!err.ok()) return err;
  return switch_dtype<kOp, kComplexHTypes>(self.dtype, [&](auto in_zero) {
    using C = decltype(in_zero);
    return switch_dtype<kOp, kFloatHTypes>(out.dtype, [&](auto out_zero) {
      using T = decltype(out_zero);
      map_unary<C, T>(self, out, [](C x) { return static_cast<T>(ComplexArith<C>::abs(x)); });
      return Error();
    });
  });
}

Error abs_out_impl(KernelContext& /*ctx*/, Args args) {
  if (is_complex_type(args[0]->as_tensor->dtype)) return complex_abs(*args[0]->as_tensor, *args[1]->as_tensor);
  return unary_same<kOp, kRealHBF16>(*args[0]->as_tensor, *args[1]->as_tensor, [](auto x) {
    using T = decltype(x);
    if constexpr (is_integer_v<T>) {
      using U = std::make_unsigned_t<T>;
      return x < T(0) ? static_cast<T>(U(0) - static_cast<U>(x)) : x;  // abs(INT_MIN) wraps to INT_MIN
    } else {
      return static_cast<T>(std::fabs(static_cast<float_compute_t<T>>(x)));
    }
  });
}

}  // namespace

extern const KernelDef abs_out{kOp, "T|T", &abs_out_impl, {}, kElementwiseLayout};

}  // namespace sb::kernels
