// The shared body of the broadcasting arithmetic kernels that predate the
// arith.h family (add, sub, mul, div and their Scalar forms), with ATen's
// promotion as ExecuTorch's portable kernels apply it (util/promote.h): the
// operands meet at their promoted dtype, the op computes in its compute type,
// and out takes any dtype the result can be cast to.
#pragma once

#include <cstdint>
#include <type_traits>

#include "sb/tensor.h"
#include "sb/value.h"
#include "util/complex.h"
#include "util/dtype_switch.h"
#include "util/elementwise.h"
#include "util/promote.h"

namespace sb::kernels {

namespace binary_detail {

// Integer arithmetic wraps (in an unsigned type at least as wide as int, so
// no promotion to a signed int can overflow); bool adds as "or", multiplies
// as "and".
template <typename C>
using Wide = std::conditional_t<sizeof(C) == 8, uint64_t, uint32_t>;

template <typename C>
C add(C x, C y) {
  if constexpr (std::is_same_v<C, bool>) {
    return x || y;
  } else if constexpr (is_integer_v<C>) {
    return convert<C>(static_cast<Wide<C>>(static_cast<Wide<C>>(x) + static_cast<Wide<C>>(y)));
  } else if constexpr (is_complex_v<C>) {
    return ComplexArith<C>::add(x, y);
  } else {
    return x + y;
  }
}

template <typename C>
C mul(C x, C y) {
  if constexpr (std::is_same_v<C, bool>) {
    return x && y;
  } else if constexpr (is_integer_v<C>) {
    return convert<C>(static_cast<Wide<C>>(static_cast<Wide<C>>(x) * static_cast<Wide<C>>(y)));
  } else if constexpr (is_complex_v<C>) {
    return ComplexArith<C>::mul(x, y);
  } else {
    return x * y;
  }
}

template <typename C>
C negate(C x) {
  if constexpr (is_integer_v<C>) {
    return convert<C>(static_cast<Wide<C>>(Wide<C>{0} - static_cast<Wide<C>>(x)));
  } else {
    return -x;
  }
}

}  // namespace binary_detail

// The complex form of a binary kernel, as ExecuTorch's portable kernels take
// complex tensors: when a, b or out is complex, all three must have one
// dtype of Types, and out = f(a, b) in that type with broadcasting. Returns
// false (leaving *result alone) when none of them is complex.
template <const char* Op, DtypeMask Types, typename F>
bool complex_binary(const Tensor& a, const Tensor& b, const Tensor& out, Error* result, F f) {
  if (!is_complex_type(a.dtype) && !is_complex_type(b.dtype) && !is_complex_type(out.dtype)) return false;
  if (a.dtype != b.dtype || a.dtype != out.dtype) {
    *result = Error::make(ErrorCode::kInvalidArgument, "%s: complex operands need one dtype (self %s, other %s, out %s)",
                          Op, scalar_type_name(a.dtype), scalar_type_name(b.dtype), scalar_type_name(out.dtype));
    return true;
  }
  *result = check_broadcast_out(Op, a, b, out);
  if (!result->ok()) return true;
  *result = switch_dtype<Op, Types>(out.dtype, [&](auto zero) {
    using C = decltype(zero);
    return f(C{});
  });
  return true;
}

// out = a + alpha * b (a - alpha * b when Subtract): add.out's and sub.out's
// body. alpha must be castable to the result's dtype (an integer one for a
// bool result) and representable in the compute type. sub takes no bool.
template <const char* Op, bool Subtract>
Error add_scaled(const Tensor& a, const Tensor& b, const Value& alpha, const Tensor& out) {
  constexpr DtypeMask kCompute = Subtract ? kRealTypes : kRealB;
  constexpr DtypeMask kStored = Subtract ? kRealHBF16 : kRealHBBF16;
  if constexpr (!Subtract) {
    // Complex: out = a + alpha * b with alpha a complex of zero imaginary part.
    Error result;
    const bool complex = complex_binary<Op, kComplexHTypes>(a, b, out, &result, [&](auto zero) {
      using C = decltype(zero);
      using Arith = ComplexArith<C>;
      const C k = Arith::of_real(scalar_to<typename Arith::W>(alpha));
      map_binary<C, C, C>(a, b, out, [k](C x, C y) { return Arith::add(x, Arith::mul(k, y)); });
      return Error();
    });
    if (complex) return result;
  }
  const ScalarType common = promote_types(a.dtype, b.dtype);
  if (Subtract && common == ScalarType::kBool) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: bool tensors cannot be subtracted", Op);
  }
  Error err = check_can_cast(Op, common, out);
  if (!err.ok()) return err;
  const ScalarType alpha_type = scalar_dtype(alpha);
  if ((Subtract && alpha_type == ScalarType::kBool) ||
      !(can_cast(alpha_type, common) || (common == ScalarType::kBool && alpha_type != ScalarType::kDouble))) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: alpha's dtype %s does not cast to %s", Op,
                       scalar_type_name(alpha_type), scalar_type_name(common));
  }
  if (!(err = check_broadcast_out(Op, a, b, out)).ok()) return err;
  return switch_compute_dtype<Op, kCompute>(compute_type(common), [&](auto zero) {
    using C = decltype(zero);
    C k{};
    if (!extract_scalar<C>(alpha, &k)) {
      return Error::make(ErrorCode::kInvalidArgument, "%s: alpha does not fit the result's dtype", Op);
    }
    if constexpr (Subtract) k = binary_detail::negate(k);
    return map_binary_as<Op, kStored, kStored, C>(
        a, b, out, [k](C x, C y) { return binary_detail::add(x, binary_detail::mul(k, y)); });
  });
}

}  // namespace sb::kernels
