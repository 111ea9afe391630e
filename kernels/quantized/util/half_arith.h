// Arithmetic with PyTorch's promotion and rounding for Half, for the kernels
// whose ExecuTorch loops accumulate in the tensor's own type (mixed_mm,
// mixed_linear): c10::Half op c10::Half is a Half (computed in float, rounded
// after every operation), Half op float is a float, anything op double a
// double. Matching that step by step gives the same Half results.
#pragma once

#include <type_traits>

#include "sb/half.h"

namespace sb::quantized {

template <typename A, typename B>
using Promoted = std::conditional_t<std::is_same_v<A, B>, A,
                                    std::conditional_t<std::is_same_v<A, double> || std::is_same_v<B, double>, double,
                                                       float>>;

// The type a value of T is computed in (Half: float).
template <typename T>
using Widened = std::conditional_t<std::is_same_v<T, double>, double, float>;

template <typename A, typename B>
Promoted<A, B> multiply(A a, B b) {
  using W = Widened<Promoted<A, B>>;
  return static_cast<Promoted<A, B>>(static_cast<W>(a) * static_cast<W>(b));
}

template <typename A, typename B>
Promoted<A, B> add(A a, B b) {
  using W = Widened<Promoted<A, B>>;
  return static_cast<Promoted<A, B>>(static_cast<W>(a) + static_cast<W>(b));
}

}  // namespace sb::quantized
