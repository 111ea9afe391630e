// The body of var.out, var.correction_out and var_mean.correction_out: the
// variance (and mean) of the elements folded into each output, with
// `correction` subtracted from the count (1 = unbiased). As ExecuTorch does,
// an empty fold or a count not above the correction gives NaN.
#pragma once

#include <cmath>

#include "sb/tensor.h"
#include "sb/value.h"
#include "util/dtype_switch.h"
#include "util/fold.h"

namespace sb::kernels {

// var.correction_out's `Scalar? correction`: None means 1.
inline double correction_of(const Value& v) { return v.is_none() ? 1.0 : v.scalar_as_double(); }

// `mean` may be null. dims: `int[1]? dim` (None folds every dim).
template <const char* Op>
Error variance_fold(const Tensor& self, const Value& dims, bool keepdim, double correction, Tensor& var,
                    Tensor* mean) {
  ReducePlan plan;
  Error err = plan_optional_dims(Op, self, dims, keepdim, &plan);
  if (!err.ok()) return err;
  if (!(err = check_dtype(Op, "out", var, self.dtype)).ok()) return err;
  if (!(err = resize_reduced(Op, var, plan)).ok()) return err;
  if (mean) {
    if (!(err = check_dtype(Op, "mean", *mean, self.dtype)).ok()) return err;
    if (!(err = resize_reduced(Op, *mean, plan)).ok()) return err;
  }
  const double denominator = static_cast<double>(plan.count) - correction;
  return switch_dtype<Op, kFloatHBF16>(self.dtype, [&](auto zero) {
    using T = decltype(zero);
    const T* x = self.data_as<T>();
    T* v = var.data_as<T>();
    T* m = mean ? mean->data_as<T>() : nullptr;
    const int64_t n_out = reduced_numel(plan);
    for (int64_t o = 0; o < n_out; ++o) {
      double mu = NAN;
      double m2 = NAN;
      if (plan.count > 0 && denominator > 0) fold_moments(plan, x, o, &mu, &m2);
      v[o] = static_cast<T>(m2 / denominator);
      if (m) m[o] = static_cast<T>(mu);
    }
    return Error();
  });
}

}  // namespace sb::kernels
