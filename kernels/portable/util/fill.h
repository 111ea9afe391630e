// Filling a tensor with one scalar value, shared by full, full_like and scalar_tensor.
#pragma once

#include <limits>
#include <type_traits>

#include "sb/tensor.h"
#include "sb/value.h"
#include "util/dtype_switch.h"

namespace sb::kernels {

template <const char* Op>
Error fill(const Tensor& out, const Value& value) {
  return switch_dtype<Op, kRealHBBF16>(out.dtype, [&](auto zero) {
    using T = decltype(zero);
    T v{};
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
      // Like ATen, refuse a value the integer type cannot hold (converting it would be undefined).
      const double lo = static_cast<double>(std::numeric_limits<T>::min());
      const int64_t lo_i = std::numeric_limits<T>::min();
      const int64_t hi_i = std::numeric_limits<T>::max();
      const bool fits = value.tag == Tag::kDouble ? value.as_double >= lo && value.as_double < -lo
                                                  : value.scalar_as_int() >= lo_i && value.scalar_as_int() <= hi_i;
      if (!fits) return Error::make(ErrorCode::kInvalidArgument, "%s: fill value does not fit the out dtype", Op);
      v = value.tag == Tag::kDouble ? static_cast<T>(value.as_double) : static_cast<T>(value.scalar_as_int());
    } else if (value.tag == Tag::kDouble) {
      v = static_cast<T>(value.as_double);
    } else {
      v = static_cast<T>(value.scalar_as_int());
    }
    T* y = out.data_as<T>();
    const int64_t n = out.numel();
    for (int64_t i = 0; i < n; ++i) y[i] = v;
    return Error();
  });
}

}  // namespace sb::kernels
