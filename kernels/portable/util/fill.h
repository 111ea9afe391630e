// Filling a tensor with one scalar value, shared by full, full_like and scalar_tensor.
#pragma once

#include "sb/tensor.h"
#include "sb/value.h"
#include "util/dtype_switch.h"

namespace sb::kernels {

template <const char* Op>
Error fill(const Tensor& out, const Value& value) {
  return switch_dtype<Op, kRealAndBool>(out.dtype, [&](auto zero) {
    using T = decltype(zero);
    const T v = value.tag == Tag::kDouble ? static_cast<T>(value.as_double) : static_cast<T>(value.scalar_as_int());
    T* y = out.data_as<T>();
    const int64_t n = out.numel();
    for (int64_t i = 0; i < n; ++i) y[i] = v;
    return Error();
  });
}

}  // namespace sb::kernels
