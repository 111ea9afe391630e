// The shared body of element-wise unary kernels: validate, dispatch on the
// dtype (so dtype selection applies per op), and map.
#pragma once

#include "sb/tensor.h"
#include "util/dtype_switch.h"
#include "util/elementwise.h"
#include "util/promote.h"

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

// out = f(x) for floating math (log, tanh, sigmoid): any real or bool input,
// computed in double for a double input and in float otherwise (Half and
// BFloat16 widen), stored in out's floating dtype, which may differ from in's.
template <const char* Op, typename F>
Error unary_float_op(const Tensor& in, const Tensor& out, F f) {
  Error err = resize_output_like(Op, const_cast<Tensor&>(out), in);
  if (!err.ok()) return err;
  if (!is_floating_type(out.dtype)) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: out must be a floating dtype, not %s", Op,
                       scalar_type_name(out.dtype));
  }
  if (in.dtype == ScalarType::kDouble) {
    return map_unary_as<Op, kRealHBBF16, kFloatHBF16, double>(in, out, [&](double x) { return f(x); });
  }
  return map_unary_as<Op, kRealHBBF16, kFloatHBF16, float>(in, out, [&](float x) { return f(x); });
}

}  // namespace sb::kernels
