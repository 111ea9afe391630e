// The shared body of element-wise unary kernels: validate, dispatch on the
// dtype (so dtype selection applies per op), and map.
#pragma once

#include "sb/tensor.h"
#include "util/dtype_switch.h"
#include "util/elementwise.h"

namespace sb::kernels {

// out = f(in) element-wise; f is a generic callable invoked with T.
template <const char* Op, DtypeMask Types, typename F>
Error unary_op(const Tensor& in, const Tensor& out, F f) {
  // The out tensor is the program's (never a const object): it takes in's shape.
  Error err = resize_output_like(Op, const_cast<Tensor&>(out), in);
  if (!err.ok()) return err;
  if (!(err = check_dtype(Op, "self", in, out.dtype)).ok()) return err;
  return switch_dtype<Op, Types>(out.dtype, [&](auto zero) {
    using T = decltype(zero);
    map_unary<T, T>(in, out, [&](T x) { return static_cast<T>(f(x)); });
    return Error();
  });
}

}  // namespace sb::kernels
