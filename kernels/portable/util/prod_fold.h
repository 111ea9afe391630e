// The body of prod.out and prod.int_out: the product of the elements folded
// into each output, computed in out's dtype (the input converted on load, as
// ExecuTorch does). Integers wrap; an empty fold is 1.
#pragma once

#include <type_traits>

#include "sb/tensor.h"
#include "sb/value.h"
#include "util/dtype_switch.h"
#include "util/fold.h"
#include "util/promote.h"

namespace sb::kernels {

// x * y wrapping in T, computed in uint64 so that no narrow type promotes to
// a signed int that could overflow.
template <typename T>
T wrapping_mul(T x, T y) {
  if constexpr (std::is_same_v<T, bool>) {
    return x && y;
  } else if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    const uint64_t p = static_cast<uint64_t>(static_cast<U>(x)) * static_cast<uint64_t>(static_cast<U>(y));
    return static_cast<T>(static_cast<U>(p));
  } else {
    return static_cast<T>(static_cast<compute_t<T>>(x) * static_cast<compute_t<T>>(y));
  }
}

// ATen's out dtype for a product: dtype= when given, Long for integer and
// bool inputs, else the input's.
inline ScalarType prod_dtype(const Tensor& self, const Value& dtype) {
  if (!dtype.is_none()) return static_cast<ScalarType>(dtype.as_int);
  if (self.dtype == ScalarType::kBool || !is_floating_type(self.dtype)) return ScalarType::kLong;
  return self.dtype;
}

template <const char* Op>
Error prod_fold(const Tensor& self, const ReducePlan& plan, const Value& dtype, const Tensor& out) {
  if (!dtype.is_none() && dtype.as_int != static_cast<int64_t>(out.dtype)) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: dtype differs from out's dtype %s", Op,
                       scalar_type_name(out.dtype));
  }
  if (out.dtype != prod_dtype(self, dtype)) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: out has dtype %s, expected %s", Op,
                       scalar_type_name(out.dtype), scalar_type_name(prod_dtype(self, dtype)));
  }
  return switch_dtype<Op, kRealHBBF16>(self.dtype, [&](auto in_zero) {
    using In = decltype(in_zero);
    return switch_dtype<Op, kRealHBBF16>(out.dtype, [&](auto out_zero) {
      using T = decltype(out_zero);
      const In* x = self.data_as<In>();
      T* y = out.data_as<T>();
      const int64_t n_out = reduced_numel(plan);
      for (int64_t o = 0; o < n_out; ++o) {
        y[o] = fold_reduced(plan, x, o, convert<T>(1), [](T acc, In v, int64_t) { return wrapping_mul(acc, convert<T>(v)); });
      }
      return Error();
    });
  });
}

}  // namespace sb::kernels
