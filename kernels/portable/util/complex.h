// Arithmetic on complex elements (sb::Complex<T>, T = Half, float or double),
// as ExecuTorch's portable kernels compute it with c10::complex: one trait
// that add, mul, div, sum, bmm and abs share.
//
//  - float and double parts compute in their own type; a ComplexHalf
//    operation computes each result part in float and rounds it to Half once
//    (c10::complex<Half>'s += and *=);
//  - a product is (ac - bd) + (ad + bc)i, even by a real-valued factor (so
//    0 * Inf parts give NaN, as alpha * b does in ExecuTorch's add);
//  - a quotient follows NumPy's (Smith's) scaling, as c10::complex's /= does;
//  - |z| is sqrt(re*re + im*im) in the part type (not hypot), as
//    ExecuTorch's abs computes it.
#pragma once

#include <cmath>
#include <type_traits>

#include "sb/scalar_type.h"

namespace sb::kernels {

template <typename C>
struct ComplexArith;

template <typename T>
struct ComplexArith<Complex<T>> {
  using C = Complex<T>;
  // The type each part is computed in.
  using W = std::conditional_t<std::is_same_v<T, Half>, float, T>;

  static C make(W re, W im) { return C{static_cast<T>(re), static_cast<T>(im)}; }
  static C zero() { return make(W(0), W(0)); }
  // A real value as a complex one (a Scalar or a real tensor's element).
  static C of_real(W re) { return make(re, W(0)); }

  static C add(C x, C y) { return make(W(x.re) + W(y.re), W(x.im) + W(y.im)); }

  static C mul(C x, C y) {
    const W a = x.re, b = x.im, c = y.re, d = y.im;
    return make(a * c - b * d, a * d + b * c);
  }

  static C div(C x, C y) {
    const W a = x.re, b = x.im, c = y.re, d = y.im;
    const W abs_c = std::fabs(c), abs_d = std::fabs(d);
    if (abs_c >= abs_d) {
      if (abs_c == W(0) && abs_d == W(0)) return make(a / abs_c, b / abs_d);  // a complex Inf or NaN
      const W rat = d / c;
      const W scl = W(1) / (c + d * rat);
      return make((a + b * rat) * scl, (b - a * rat) * scl);
    }
    const W rat = c / d;
    const W scl = W(1) / (d + c * rat);
    return make((a * rat + b) * scl, (b * rat - a) * scl);
  }

  // |x|: each product and the sum rounded to T (for Half too), then the root in W.
  static W abs(C x) {
    const T rr = static_cast<T>(W(x.re) * W(x.re));
    const T ii = static_cast<T>(W(x.im) * W(x.im));
    const T sum = static_cast<T>(W(rr) + W(ii));
    return std::sqrt(W(sum));
  }
};

}  // namespace sb::kernels
