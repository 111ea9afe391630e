// Type promotion and dtype conversion shared by every element-wise kernel.
//
// ATen's model, as ExecuTorch's portable kernels implement it:
//  - the inputs' common dtype is promote_types(a, b) (a Scalar argument only
//    moves it to a higher category: promote_with_scalar);
//  - the op computes in compute_type(common): Float for Half and BFloat16,
//    the common dtype otherwise;
//  - inputs are converted to the compute type on load, the result is
//    converted to out's dtype on store; out may be any dtype the common one
//    can_cast to.
// Conversions are defined for every value (convert<To>): integer results
// wrap, a float outside an integer's range converts as x86 does (via int64,
// whose out-of-range value is INT64_MIN), never undefined behaviour.
#pragma once

#include <cstdint>
#include <limits>
#include <type_traits>

#include "sb/scalar_type.h"
#include "sb/tensor.h"
#include "sb/value.h"
#include "util/dtype_switch.h"
#include "util/elementwise.h"

namespace sb::kernels {

// ATen's promoteTypes over the runtime's dtypes.
constexpr ScalarType promote_types(ScalarType a, ScalarType b) {
  if (a == b) return a;
  if (a == ScalarType::kBool) return b;
  if (b == ScalarType::kBool) return a;
  const bool fa = is_floating_type(a);
  const bool fb = is_floating_type(b);
  if (fa != fb) return fa ? a : b;
  if (fa) {
    // Two different floating types: Half with BFloat16 meet at Float, otherwise the wider wins.
    if (a == ScalarType::kDouble || b == ScalarType::kDouble) return ScalarType::kDouble;
    return ScalarType::kFloat;
  }
  // Two different integer types. Byte is unsigned: with Char it needs Short.
  if (a == ScalarType::kByte || b == ScalarType::kByte) {
    const ScalarType other = a == ScalarType::kByte ? b : a;
    return other == ScalarType::kChar ? ScalarType::kShort : other;
  }
  return element_size(a) > element_size(b) ? a : b;
}

// ATen's canCast: no floating -> integer, nothing but bool -> bool.
constexpr bool can_cast(ScalarType from, ScalarType to) {
  if (is_floating_type(from) && is_integer_type(to)) return false;
  if (from != ScalarType::kBool && to == ScalarType::kBool) return false;
  return true;
}

// The dtype of a Scalar argument in ATen's eyes: Bool, Long or Double.
constexpr ScalarType scalar_dtype(const Value& s) {
  return s.tag == Tag::kBool ? ScalarType::kBool : s.tag == Tag::kDouble ? ScalarType::kDouble : ScalarType::kLong;
}

// A tensor's dtype with a Scalar: the Scalar wins only from a higher
// category (a floating Scalar makes integers Float, an integer one makes
// Bool Long).
ScalarType promote_with_scalar(ScalarType t, const Value& s);

constexpr ScalarType compute_type(ScalarType t) {
  return t == ScalarType::kHalf || t == ScalarType::kBFloat16 ? ScalarType::kFloat : t;
}

template <typename T>
struct ComputeOf {
  using type = T;
};
template <>
struct ComputeOf<Half> {
  using type = float;
};
template <>
struct ComputeOf<BFloat16> {
  using type = float;
};
// The C++ type kernels compute in for elements of type T.
template <typename T>
using compute_t = typename ComputeOf<T>::type;

// v converted to To, defined for every value (see the top of this file).
template <typename To, typename From>
To convert(From v) {
  if constexpr (std::is_same_v<To, From>) {
    return v;
  } else if constexpr (std::is_same_v<To, bool>) {
    if constexpr (is_floating_v<From>) {
      return static_cast<double>(v) != 0.0;  // NaN is true
    } else {
      return v != 0;
    }
  } else if constexpr (is_integer_v<To>) {
    using U = std::make_unsigned_t<To>;
    int64_t wide;
    if constexpr (is_floating_v<From>) {
      const double d = static_cast<double>(static_cast<compute_t<From>>(v));
      wide = d >= -9.223372036854775808e18 && d < 9.223372036854775808e18 ? static_cast<int64_t>(d)
                                                                           : std::numeric_limits<int64_t>::min();
    } else {
      wide = static_cast<int64_t>(v);
    }
    return static_cast<To>(static_cast<U>(static_cast<uint64_t>(wide)));
  } else if constexpr (std::is_same_v<From, Half> || std::is_same_v<From, BFloat16>) {
    return static_cast<To>(static_cast<float>(v));
  } else {
    return static_cast<To>(v);
  }
}

// A Scalar argument as T (ExecuTorch's scalar_to): bools as 0/1, doubles
// and ints converted.
template <typename T>
T scalar_to(const Value& s) {
  if (s.tag == Tag::kBool) return convert<T>(s.as_bool);
  if (s.tag == Tag::kDouble) return convert<T>(s.as_double);
  return convert<T>(s.as_int);
}

// A Scalar argument as T when T can hold it (ExecuTorch's extract_scalar):
// integers take in-range integers, floating types take ints and doubles
// (finite ones within range), bool takes ints and bools.
template <typename T>
bool extract_scalar(const Value& s, T* out) {
  if constexpr (std::is_same_v<T, bool>) {
    if (s.tag == Tag::kDouble) return false;
    *out = s.tag == Tag::kBool ? s.as_bool : s.as_int != 0;
    return true;
  } else if constexpr (is_integer_v<T>) {
    if (s.tag != Tag::kInt) return false;
    if (s.as_int < static_cast<int64_t>(std::numeric_limits<T>::lowest()) ||
        s.as_int > static_cast<int64_t>(std::numeric_limits<T>::max())) {
      return false;
    }
    *out = static_cast<T>(s.as_int);
    return true;
  } else {
    if (s.tag == Tag::kBool) return false;
    if (s.tag == Tag::kDouble) {
      const double v = s.as_double;
      const double lim = static_cast<double>(std::numeric_limits<T>::max());
      if (v - v == 0.0 && (v < -lim || v > lim)) return false;  // finite and out of range
      *out = static_cast<T>(v);
      return true;
    }
    *out = static_cast<T>(s.as_int);
    return true;
  }
}

// What a sum or product of T accumulates in: float for Half and BFloat16,
// a 32- or 64-bit unsigned type for integers (sums wrap, defined; converting
// back keeps the low bits, as wrapping in T would), T otherwise.
template <typename T>
struct AccOf {
  using type = T;
};
template <>
struct AccOf<Half> {
  using type = float;
};
template <>
struct AccOf<BFloat16> {
  using type = float;
};
template <>
struct AccOf<uint8_t> {
  using type = uint32_t;
};
template <>
struct AccOf<int8_t> {
  using type = uint32_t;
};
template <>
struct AccOf<int16_t> {
  using type = uint32_t;
};
template <>
struct AccOf<int32_t> {
  using type = uint32_t;
};
template <>
struct AccOf<int64_t> {
  using type = uint64_t;
};
template <typename T>
using acc_t = typename AccOf<T>::type;

// acc + a * b in T's arithmetic, as a convolution accumulates: integers wrap
// (computed in 32- or 64-bit unsigned), float and double in their own type;
// Half and BFloat16 round the product and the sum to T, as arithmetic on
// ExecuTorch's Half does.
template <typename T>
T mul_add(T acc, T a, T b) {
  if constexpr (is_integer_v<T>) {
    using U = std::conditional_t<sizeof(T) == 8, uint64_t, uint32_t>;
    return convert<T>(static_cast<U>(static_cast<U>(acc) + static_cast<U>(a) * static_cast<U>(b)));
  } else if constexpr (std::is_same_v<T, bool>) {
    return acc || (a && b);
  } else if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) {
    return T(static_cast<float>(acc) + static_cast<float>(T(static_cast<float>(a) * static_cast<float>(b))));
  } else {
    return acc + a * b;
  }
}

// Per-element access to a tensor of a dtype known only at run time,
// converting to and from the compute type C.
template <typename C>
using LoadFn = C (*)(const void* data, int64_t i);
template <typename R>
using StoreFn = void (*)(void* data, int64_t i, R v);

template <typename C, typename T>
C load_as(const void* data, int64_t i) {
  return convert<C>(static_cast<const T*>(data)[i]);
}
template <typename R, typename T>
void store_as(void* data, int64_t i, R v) {
  static_cast<T*>(data)[i] = convert<T>(v);
}

template <const char* Op, DtypeMask Types, typename C>
Error get_load(const Tensor& t, LoadFn<C>* fn) {
  return switch_dtype<Op, Types>(t.dtype, [&](auto zero) {
    *fn = &load_as<C, decltype(zero)>;
    return Error();
  });
}

template <const char* Op, DtypeMask Types, typename R>
Error get_store(const Tensor& t, StoreFn<R>* fn) {
  return switch_dtype<Op, Types>(t.dtype, [&](auto zero) {
    *fn = &store_as<R, decltype(zero)>;
    return Error();
  });
}

// Calls fn(T{}) when `t` is stored as a type T that computes in C (C
// itself, or Half and BFloat16 for float) and Types has it built; returns
// whether it did. The typed fast path of the element-wise maps.
template <const char* Op, DtypeMask Types, typename C, typename Fn>
bool with_storage_for(ScalarType t, Fn&& fn) {
  if constexpr (dtype_enabled<Op, Types>(ScalarTypeOf<C>::value)) {
    if (t == ScalarTypeOf<C>::value) {
      fn(C{});
      return true;
    }
  }
  if constexpr (std::is_same_v<C, float>) {
    if constexpr (dtype_enabled<Op, Types>(ScalarType::kHalf)) {
      if (t == ScalarType::kHalf) {
        fn(Half{});
        return true;
      }
    }
    if constexpr (dtype_enabled<Op, Types>(ScalarType::kBFloat16)) {
      if (t == ScalarType::kBFloat16) {
        fn(BFloat16{});
        return true;
      }
    }
  }
  return false;
}

// out[i] = f(in[i]) computed in C: in (of a dtype in InTypes) is converted
// to C, f's result to out's dtype (in OutTypes). Same element count (checked
// by the caller); out may alias in.
template <const char* Op, DtypeMask InTypes, DtypeMask OutTypes, typename C, typename F>
Error map_unary_as(const Tensor& in, const Tensor& out, F f) {
  using R = decltype(f(C{}));
  const int64_t n = out.numel();
  if (in.dtype == out.dtype) {
    const bool done = with_storage_for<Op, InTypes & OutTypes, C>(out.dtype, [&](auto zero) {
      using T = decltype(zero);
      const T* x = in.data_as<T>();
      T* y = out.data_as<T>();
      for (int64_t i = 0; i < n; ++i) y[i] = convert<T>(f(static_cast<C>(x[i])));
    });
    if (done) return Error();
  }
  LoadFn<C> load = nullptr;
  StoreFn<R> store = nullptr;
  Error err = get_load<Op, InTypes, C>(in, &load);
  if (!err.ok() || !(err = get_store<Op, OutTypes, R>(out, &store)).ok()) return err;
  for (int64_t i = 0; i < n; ++i) store(out.data, i, f(load(in.data, i)));
  return Error();
}

// out = f(a, b) computed in C, with a and b broadcast to out's shape
// (checked by the caller) and converted as map_unary_as does.
template <const char* Op, DtypeMask InTypes, DtypeMask OutTypes, typename C, typename F>
Error map_binary_as(const Tensor& a, const Tensor& b, const Tensor& out, F f) {
  using R = decltype(f(C{}, C{}));
  const int64_t n = out.numel();
  const BroadcastIndex ia(a, out);
  const BroadcastIndex ib(b, out);
  if (a.dtype == out.dtype && b.dtype == out.dtype) {
    const bool done = with_storage_for<Op, InTypes & OutTypes, C>(out.dtype, [&](auto zero) {
      using T = decltype(zero);
      const T* x = a.data_as<T>();
      const T* y = b.data_as<T>();
      T* z = out.data_as<T>();
      for (int64_t i = 0; i < n; ++i) z[i] = convert<T>(f(static_cast<C>(x[ia(i)]), static_cast<C>(y[ib(i)])));
    });
    if (done) return Error();
  }
  LoadFn<C> load_a = nullptr;
  LoadFn<C> load_b = nullptr;
  StoreFn<R> store = nullptr;
  Error err = get_load<Op, InTypes, C>(a, &load_a);
  if (!err.ok() || !(err = get_load<Op, InTypes, C>(b, &load_b)).ok()) return err;
  if (!(err = get_store<Op, OutTypes, R>(out, &store)).ok()) return err;
  for (int64_t i = 0; i < n; ++i) store(out.data, i, f(load_a(a.data, ia(i)), load_b(b.data, ib(i))));
  return Error();
}

// Whether a Scalar bound fits dtype t (ExecuTorch's clamp check): an
// integer within t's range for integer t, a finite double within t's range
// (or any non-finite one) for floating t.
bool scalar_fits(const Value& s, ScalarType t);

// Fails unless out's dtype is one the common dtype can be cast to.
Error check_can_cast(const char* op, ScalarType common, const Tensor& out);

}  // namespace sb::kernels
