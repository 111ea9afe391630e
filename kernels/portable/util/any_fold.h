// The body of any.all_out and any.dims_out: whether any element folded into
// each output is non-zero (NaN counts), written as Bool or Byte.
#pragma once

#include "sb/tensor.h"
#include "util/dtype_switch.h"
#include "util/fold.h"
#include "util/promote.h"

namespace sb::kernels {

// `plan` null maps each element to itself (any.dims with dim=[]).
template <const char* Op>
Error any_fold(const Tensor& self, const ReducePlan* plan, const Tensor& out) {
  if (out.dtype != ScalarType::kBool && out.dtype != ScalarType::kByte) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: out must be Bool or Byte, not %s", Op,
                       scalar_type_name(out.dtype));
  }
  return switch_dtype<Op, kRealHBBF16>(self.dtype, [&](auto zero) {
    using T = decltype(zero);
    const T* x = self.data_as<T>();
    // Bool and Byte outputs are both one byte of 0 or 1.
    uint8_t* y = out.data_as<uint8_t>();
    const int64_t n_out = plan ? reduced_numel(*plan) : self.numel();
    for (int64_t o = 0; o < n_out; ++o) {
      const bool any = plan ? fold_reduced(*plan, x, o, false, [](bool acc, T v, int64_t) { return acc || convert<bool>(v); })
                            : convert<bool>(x[o]);
      y[o] = any ? 1 : 0;
    }
    return Error();
  });
}

}  // namespace sb::kernels
