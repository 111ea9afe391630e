// dim_order_ops::_to_dim_order_copy.out(Tensor self, *, bool non_blocking=False, int[]? dim_order=None,
//                                       Tensor(a!) out)
//
// A copy into out's dtype and dim order (e.g. int64 -> float32, or contiguous
// -> channels-last): out's element at each index is self's, converted.
// Complex tensors copy to complex ones and to and from Half, Float and Double.
#include "sb/kernel.h"
#include "util/convert.h"
#include "util/unary_ufunc.h"
#include "util/shape.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "dim_order_ops::_to_dim_order_copy.out";

// One element into To when self or out is complex: a complex value keeps its
// parts (converted), a real one becomes re + 0i, a complex one into a real
// dtype gives its real part.
template <typename To, typename From>
To convert_complex(From v) {
  if constexpr (is_complex_v<To> && is_complex_v<From>) {
    using P = decltype(To{}.re);
    return To{static_cast<P>(static_cast<float_compute_t<decltype(v.re)>>(v.re)),
              static_cast<P>(static_cast<float_compute_t<decltype(v.im)>>(v.im))};
  } else if constexpr (is_complex_v<To>) {
    using P = decltype(To{}.re);
    return To{static_cast<P>(static_cast<float_compute_t<From>>(v)), static_cast<P>(0.0f)};
  } else if constexpr (is_complex_v<From>) {
    return static_cast<To>(static_cast<float_compute_t<decltype(v.re)>>(v.re));
  } else {
    return convert<To>(v);
  }
}

// ExecuTorch's complex copies: complex to complex, and between a complex
// dtype and Half, Float or Double (no integer, bool or BFloat16 side).
Error complex_copy(const Tensor& self, const Tensor& out) {
  constexpr DtypeMask kTypes = kFloatHTypes | kComplexHTypes;
  return switch_dtype<kOp, kTypes>(self.dtype, [&](auto from_zero) {
    using From = decltype(from_zero);
    return switch_dtype<kOp, kTypes>(out.dtype, [&](auto to_zero) {
      using To = decltype(to_zero);
      const From* x = self.data_as<From>();
      To* y = out.data_as<To>();
      const BroadcastIndex at(self, out);
      const int64_t n = out.numel();
      for (int64_t i = 0; i < n; ++i) y[i] = convert_complex<To>(x[at(i)]);
      return Error();
    });
  });
}

Error to_dim_order_copy_out_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& self = *args[0]->as_tensor;
  Tensor& out = *args[3]->as_tensor;
  Error err = check_dim_order_arg(kOp, *args[2], &self, out);
  if (!err.ok()) return err;
  if (!(err = resize_output_like(kOp, out, self)).ok()) return err;
  if (is_complex_type(self.dtype) || is_complex_type(out.dtype)) return complex_copy(self, out);
  return convert_copy<kOp>(self, out);
}

}  // namespace

extern const KernelDef _to_dim_order_copy_out{kOp, "TbJ|T", &to_dim_order_copy_out_impl, {},
                                            LayoutPolicy::kAny};

}  // namespace sb::kernels
