// The shared body of broadcasting binary kernels of one dtype.
#pragma once

#include <cstdint>
#include <type_traits>

#include "sb/tensor.h"
#include "sb/value.h"
#include "util/dtype_switch.h"
#include "util/elementwise.h"

namespace sb::kernels {

// out = f(a, b) with broadcasting; a, b and out share one dtype.
template <const char* Op, DtypeMask Types, typename F>
Error binary_op(const Tensor& a, const Tensor& b, const Tensor& out, F f) {
  Error err = check_broadcast_out(Op, a, b, out);
  if (!err.ok()) return err;
  if (!(err = check_dtype(Op, "self", a, out.dtype)).ok()) return err;
  if (!(err = check_dtype(Op, "other", b, out.dtype)).ok()) return err;
  return switch_dtype<Op, Types>(out.dtype, [&](auto zero) {
    using T = decltype(zero);
    map_binary<T, T, T>(a, b, out, [&](T x, T y) { return static_cast<T>(f(x, y)); });
    return Error();
  });
}

// out = a + alpha * b (or a - alpha * b when `subtract`), add.out's and sub.out's
// shared body. Integer tensors wrap like ATen's (unsigned arithmetic keeps that
// defined); a floating alpha is refused for them, as ATen does.
template <const char* Op>
Error add_scaled(const Tensor& a, const Tensor& b, const Value& alpha, const Tensor& out, bool subtract) {
  if (out.dtype != ScalarType::kFloat && alpha.tag == Tag::kDouble) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: alpha must be an integer for integer tensors", Op);
  }
  const double alpha_f = subtract ? -alpha.scalar_as_double() : alpha.scalar_as_double();
  const uint64_t alpha_u = static_cast<uint64_t>(alpha.tag == Tag::kDouble ? 0 : alpha.scalar_as_int());
  const uint64_t scale_u = subtract ? uint64_t{0} - alpha_u : alpha_u;
  return binary_op<Op, kRealTypes>(a, b, out, [=](auto x, auto y) {
    using T = decltype(x);
    if constexpr (std::is_floating_point_v<T>) {
      return static_cast<T>(x + alpha_f * y);
    } else {
      using U = std::make_unsigned_t<T>;
      return static_cast<T>(static_cast<U>(x) + static_cast<U>(scale_u) * static_cast<U>(y));
    }
  });
}

}  // namespace sb::kernels
