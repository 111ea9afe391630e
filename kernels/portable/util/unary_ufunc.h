// Element-wise unary kernels in the three shapes ExecuTorch's portable
// library has them (its unary_ufunc patterns):
//
//   unary_same     out has in's dtype            (neg, abs, floor, round, sign, ...)
//   unary_to_float out is a floating dtype; an
//                  integer or bool input is read
//                  as float (ATen's "int to
//                  float" promotion)             (exp, sin, sqrt, log2, ...)
//   unary_to_bool  out is bool                   (isnan, isinf)
//
// Each sets out's shape through resize_output_like, checks the dtypes, and
// dispatches on them per op (so dtype selection applies).
// Floating math runs in double for double tensors and in float for every
// other dtype (Half and BFloat16 are storage types that widen to float), as
// ExecuTorch's portable kernels compute.
#pragma once

#include <type_traits>

#include "sb/tensor.h"
#include "util/dtype_switch.h"
#include "util/elementwise.h"
#include "util/shape.h"

namespace sb::kernels {

// The type floating math runs in for elements of T: double for double, float
// for everything else (integers and bool included: ATen's int-to-float).
template <typename T>
using float_compute_t = std::conditional_t<std::is_same_v<T, double>, double, float>;

// out = f(in), out of in's dtype; f is called with the element type T and
// returns something convertible to T.
template <const char* Op, DtypeMask Types, typename F>
Error unary_same(const Tensor& in, Tensor& out, F f) {
  Error err = resize_output_like(Op, out, in);
  if (!err.ok()) return err;
  if (!(err = check_dtype(Op, "out", out, in.dtype)).ok()) return err;
  return switch_dtype<Op, Types>(in.dtype, [&](auto zero) {
    using T = decltype(zero);
    map_unary<T, T>(in, out, [&](T x) { return static_cast<T>(f(x)); });
    return Error();
  });
}

// out = f(x) with x the input element as float_compute_t<In>; out must be floating.
template <const char* Op, typename F>
Error unary_to_float(const Tensor& in, Tensor& out, F f) {
  Error err = resize_output_like(Op, out, in);
  if (!err.ok()) return err;
  if (!is_floating_type(out.dtype)) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: out must be a floating dtype, not %s", Op,
                       scalar_type_name(out.dtype));
  }
  return switch_dtype<Op, kRealHBBF16>(in.dtype, [&](auto in_zero) {
    using In = decltype(in_zero);
    using C = float_compute_t<In>;
    return switch_dtype<Op, kFloatHBF16>(out.dtype, [&](auto out_zero) {
      using Out = decltype(out_zero);
      map_unary<In, Out>(in, out, [&](In x) { return static_cast<Out>(f(static_cast<C>(x))); });
      return Error();
    });
  });
}

// out = pred(x) with x the input element as float_compute_t<In>; out must be bool.
template <const char* Op, typename F>
Error unary_to_bool(const Tensor& in, Tensor& out, F pred) {
  Error err = resize_output_like(Op, out, in);
  if (!err.ok()) return err;
  if (!(err = check_dtype(Op, "out", out, ScalarType::kBool)).ok()) return err;
  return switch_dtype<Op, kRealHBBF16>(in.dtype, [&](auto zero) {
    using In = decltype(zero);
    using C = float_compute_t<In>;
    map_unary<In, bool>(in, out, [&](In x) { return static_cast<bool>(pred(static_cast<C>(x))); });
    return Error();
  });
}

}  // namespace sb::kernels
