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
      using U = std::make_unsigned_t<T>;
      if (value.tag == Tag::kDouble) {
        // A float outside the type's range has no defined conversion: refused.
        const double lo = static_cast<double>(std::numeric_limits<T>::min());
        const double past_hi = static_cast<double>(std::numeric_limits<T>::max()) + 1.0;
        if (!(value.as_double >= lo && value.as_double < past_hi)) {
          return Error::make(ErrorCode::kInvalidArgument, "%s: fill value does not fit the out dtype", Op);
        }
        v = static_cast<T>(value.as_double);
      } else {
        // An integer wraps into the type, as ExecuTorch's runtime converts it (-7 into uint8 is 249).
        v = static_cast<T>(static_cast<U>(static_cast<uint64_t>(value.scalar_as_int())));
      }
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
