// index_put.out's and index_put_'s shared body.
#pragma once

#include "sb/error.h"
#include "sb/span.h"
#include "sb/tensor.h"
#include "util/advanced_index.h"
#include "util/dtype_switch.h"
#include "util/elementwise.h"
#include "util/indexing.h"
#include "util/shape.h"

namespace sb::kernels {

// out = self with the elements the index list selects set to (or, when
// `accumulate`, increased by) values broadcast to the indexing result's shape.
// out may be self (index_put_); otherwise it gets self's shape.
template <const char* Op>
Error index_put(const Tensor& self, Span<Tensor* const> indices, const Tensor& values,
                bool accumulate, Tensor& out) {
  AdvancedIndex plan;
  Error err = plan_advanced_index(Op, self, indices, &plan);
  if (!err.ok()) return err;
  if (&out != &self && !(err = resize_output_like(Op, out, self)).ok()) return err;
  if (!(err = check_dtype(Op, "self", self, out.dtype)).ok()) return err;
  if (!(err = check_dtype(Op, "values", values, out.dtype)).ok()) return err;
  // values broadcast to the indexing result's shape.
  const Tensor result = view_with_sizes(self, plan.out_sizes, plan.out_rank);  // only its shape is used
  bool fits = values.dim <= result.dim;
  for (int32_t d = 0; fits && d < values.dim; ++d) {
    const int64_t v = values.sizes[d];
    fits = v == 1 || v == result.sizes[result.dim - values.dim + d];
  }
  if (!fits) return Error::make(ErrorCode::kInvalidArgument, "%s: values cannot be broadcast to the indexed shape", Op);
  if (values.data == out.data && values.numel() != 0 && &out != &self) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: out must not alias values", Op);
  }
  return switch_dtype<Op, kRealHBBF16>(out.dtype, [&](auto zero) {
    using T = decltype(zero);
    const T* x = self.data_as<const T>();
    const T* v = values.data_as<const T>();
    T* y = out.data_as<T>();
    if (y != x) {
      const int64_t n = self.numel();
      for (int64_t i = 0; i < n; ++i) y[i] = x[i];
    }
    const BroadcastIndex at(values, result);
    // In result order, so repeated targets end with the last value (or sum, accumulating) as ATen's serial loop.
    if (accumulate) {
      for_each_advanced_index(plan, [&](int64_t i, int64_t to) { y[to] = wrapping_add(y[to], v[at(i)]); });
    } else {
      for_each_advanced_index(plan, [&](int64_t i, int64_t to) { y[to] = v[at(i)]; });
    }
    return Error();
  });
}

}  // namespace sb::kernels
