// Element functions of the binary kernels, in a compute type C (bool, an
// integer type, float or double; add, mul and div also a complex type), with
// ATen's semantics and no undefined behaviour: integer results wrap (computed
// in unsigned), bool adds as "or" and multiplies as "and", shifts by a
// negative or too large amount give what ATen gives, INT_MIN / -1 wraps,
// NaN propagates through maximum/minimum, complex values compute as
// util/complex.h does. Integer division by zero is the caller's to refuse
// (these return 0 for it).
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "sb/scalar_type.h"
#include "util/complex.h"

namespace sb::kernels::arith {

template <typename C>
C add(C x, C y) {
  if constexpr (std::is_same_v<C, bool>) {
    return x || y;
  } else if constexpr (std::is_integral_v<C>) {
    using U = std::make_unsigned_t<C>;
    return static_cast<C>(static_cast<U>(static_cast<U>(x) + static_cast<U>(y)));
  } else if constexpr (is_complex_v<C>) {
    return ComplexArith<C>::add(x, y);
  } else {
    return x + y;
  }
}

template <typename C>
C sub(C x, C y) {
  if constexpr (std::is_integral_v<C> && !std::is_same_v<C, bool>) {
    using U = std::make_unsigned_t<C>;
    return static_cast<C>(static_cast<U>(static_cast<U>(x) - static_cast<U>(y)));
  } else if constexpr (std::is_same_v<C, bool>) {
    return static_cast<bool>(static_cast<int>(x) - static_cast<int>(y));
  } else {
    return x - y;
  }
}

template <typename C>
C mul(C x, C y) {
  if constexpr (std::is_same_v<C, bool>) {
    return x && y;
  } else if constexpr (std::is_integral_v<C>) {
    // Unsigned narrower than int would be promoted to (signed) int, and
    // 65535 * 65535 overflows it: multiply in at least unsigned int.
    using U = std::common_type_t<std::make_unsigned_t<C>, unsigned>;
    return static_cast<C>(static_cast<U>(static_cast<U>(x) * static_cast<U>(y)));
  } else if constexpr (is_complex_v<C>) {
    return ComplexArith<C>::mul(x, y);
  } else {
    return x * y;
  }
}

// True division, of floating or complex values (integers divide as Float).
template <typename C>
C div(C x, C y) {
  if constexpr (is_complex_v<C>) {
    return ComplexArith<C>::div(x, y);
  } else {
    return x / y;
  }
}

// Integer division rounding toward zero; x / -1 wraps; 0 for y == 0.
template <typename C>
C div_trunc_int(C x, C y) {
  if (y == 0) return 0;
  if constexpr (std::is_signed_v<C>) {
    using U = std::make_unsigned_t<C>;
    if (y == -1) return static_cast<C>(static_cast<U>(U{0} - static_cast<U>(x)));
  }
  return static_cast<C>(x / y);
}

// Integer division rounding toward negative infinity (Python's //).
template <typename C>
C div_floor_int(C x, C y) {
  const C q = div_trunc_int(x, y);
  if constexpr (std::is_signed_v<C>) {
    if (y != 0 && y != -1 && (x % y != 0) && ((x < 0) != (y < 0))) return static_cast<C>(q - 1);
  }
  return q;
}

// Floating floor division as ATen computes it (fmod-based, then rounded to
// the nearest integer so that the quotient is exact).
template <typename C>
C div_floor_float(C x, C y) {
  if (y == 0) return x / y;
  const C mod = std::fmod(x, y);
  C div = (x - mod) / y;
  if (mod != 0 && (y < 0) != (mod < 0)) div -= 1;
  if (div == 0) return std::copysign(C(0), x / y);
  const C floored = std::floor(div);
  return div - floored > C(0.5) ? floored + 1 : floored;
}

template <typename C>
C div_floor(C x, C y) {
  if constexpr (std::is_integral_v<C>) {
    return div_floor_int(x, y);
  } else {
    return div_floor_float(x, y);
  }
}

template <typename C>
C div_trunc(C x, C y) {
  if constexpr (std::is_integral_v<C>) {
    return div_trunc_int(x, y);
  } else {
    return std::trunc(x / y);
  }
}

// Python's modulus: the result has the sign of y. 0 for an integer y == 0.
template <typename C>
C remainder(C x, C y) {
  if constexpr (std::is_integral_v<C>) {
    if (y == 0) return 0;
    if constexpr (std::is_signed_v<C>) {
      if (y == -1) return 0;
    }
    C r = static_cast<C>(x % y);
    if constexpr (std::is_signed_v<C>) {
      if (r != 0 && ((r < 0) != (y < 0))) r = static_cast<C>(r + y);
    }
    return r;
  } else {
    C r = std::fmod(x, y);
    if (r != 0 && ((r < 0) != (y < 0))) r += y;
    return r;
  }
}

// C's modulus (the sign of x).
template <typename C>
C fmod(C x, C y) {
  if constexpr (std::is_integral_v<C>) {
    if (y == 0) return 0;
    if constexpr (std::is_signed_v<C>) {
      if (y == -1) return 0;
    }
    return static_cast<C>(x % y);
  } else {
    return std::fmod(x, y);
  }
}

template <typename C>
bool is_nan(C x) {
  if constexpr (std::is_floating_point_v<C>) {
    return std::isnan(x);
  } else {
    return false;
  }
}

// NaN-propagating maximum and minimum (torch.maximum / torch.minimum).
template <typename C>
C maximum(C x, C y) {
  if (is_nan(x)) return x;
  if (is_nan(y)) return y;
  return x < y ? y : x;
}

template <typename C>
C minimum(C x, C y) {
  if (is_nan(x)) return x;
  if (is_nan(y)) return y;
  return y < x ? y : x;
}

// Shifts of integers (bool shifts as 0/1). ATen: a shift by a negative
// amount or by the width or more gives 0 to the left and the sign to the right.
template <typename C>
C shift_left(C x, C y) {
  if constexpr (std::is_same_v<C, bool>) {
    (void)y;
    return x;  // 1 << 0 and 1 << 1 are both true
  } else {
    using U = std::make_unsigned_t<C>;
    constexpr int64_t kBits = sizeof(C) * 8;
    const int64_t s = static_cast<int64_t>(y);
    if (s < 0 || s >= kBits) return 0;
    return static_cast<C>(static_cast<U>(static_cast<U>(x) << s));
  }
}

template <typename C>
C shift_right(C x, C y) {
  if constexpr (std::is_same_v<C, bool>) {
    return x && !y;
  } else {
    constexpr int64_t kBits = sizeof(C) * 8;
    const int64_t s = static_cast<int64_t>(y);
    if (s < 0 || s >= kBits) {
      if constexpr (std::is_signed_v<C>) {
        return x < 0 ? C(-1) : C(0);
      } else {
        return 0;
      }
    }
    if constexpr (std::is_signed_v<C>) {
      // Arithmetic shift, spelled so that it is defined for negative x.
      return x < 0 ? static_cast<C>(~(~x >> s)) : static_cast<C>(x >> s);
    } else {
      return static_cast<C>(x >> s);
    }
  }
}

}  // namespace sb::kernels::arith
