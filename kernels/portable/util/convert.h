// Copy with dtype conversion and broadcasting (copy, _to_dim_order_copy),
// between any dim orders (BroadcastIndex follows each tensor's).
#pragma once

#include "sb/tensor.h"
#include "sb/value.h"
#include "util/dtype_switch.h"
#include "util/elementwise.h"
#include "util/promote.h"

namespace sb::kernels {

// out = src converted to out's dtype, src broadcast to out's shape (checked by the caller).
template <const char* Op>
Error convert_copy(const Tensor& src, const Tensor& out) {
  return switch_dtype<Op, kRealHBBF16>(src.dtype, [&](auto from_zero) {
    using From = decltype(from_zero);
    return switch_dtype<Op, kRealHBBF16>(out.dtype, [&](auto to_zero) {
      using To = decltype(to_zero);
      const From* x = src.data_as<From>();
      To* y = out.data_as<To>();
      const BroadcastIndex at(src, out);
      const int64_t n = out.numel();
      for (int64_t i = 0; i < n; ++i) y[i] = convert<To>(x[at(i)]);
      return Error();
    });
  });
}

// ExecuTorch's dim_order argument (_to_dim_order_copy, _clone_dim_order,
// _empty_dim_order): the order the op lays out, which the program planned out
// with, so out must already have it. None keeps `like`'s order (the input's),
// or the default when `like` is null.
Error check_dim_order_arg(const char* op, const Value& dim_order, const Tensor* like, const Tensor& out);

}  // namespace sb::kernels
