// The shared body of broadcasting binary kernels of one dtype.
#pragma once

#include "sb/tensor.h"
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

}  // namespace sb::kernels
