// The reduction walker every reduction kernel shares: plan the kept and
// folded dims once (util/reduce.h), then fold the input elements of each
// output element in index order. No scratch memory.
#pragma once

#include <limits>

#include "sb/error.h"
#include "sb/value.h"
#include "util/promote.h"
#include "util/reduce.h"
#include "util/shape.h"

namespace sb::kernels {

// Plans a reduction over one optional dim (argmax's `int? dim`): None folds
// every dim; a 0-d input takes dim 0 or -1.
inline Error plan_optional_dim(const char* op, const Tensor& in, const Value& dim, bool keepdim, ReducePlan* plan) {
  if (dim.is_none()) return plan_reduction(op, in, Span<const int64_t>(), keepdim, plan);
  const int64_t d = dim.as_int;
  return plan_reduction(op, in, Span<const int64_t>(&d, 1), keepdim, plan);
}

// Plans a reduction over an optional dim list (`int[1]? dim`): None or []
// folds every dim.
inline Error plan_optional_dims(const char* op, const Tensor& in, const Value& dims, bool keepdim, ReducePlan* plan) {
  return plan_reduction(op, in, dims.is_none() ? Span<const int64_t>() : dims.as_int_list, keepdim, plan);
}

// Gives `out` the plan's output shape.
inline Error resize_reduced(const char* op, Tensor& out, const ReducePlan& plan) {
  return resize_output(op, out, plan.out_sizes, plan.out_rank);
}

// Output elements of the plan (the product of the kept sizes).
inline int64_t reduced_numel(const ReducePlan& plan) {
  int64_t n = 1;
  for (int32_t d = 0; d < plan.kept; ++d) n *= plan.kept_sizes[d];
  return n;
}

// Reductions with no identity (max, argmax, ...) refuse to fold nothing.
inline Error check_nonempty_fold(const char* op, const ReducePlan& plan) {
  if (plan.count > 0) return Error();
  return Error::make(ErrorCode::kInvalidArgument, "%s: cannot reduce over a dim of size 0", op);
}

// Folds the input elements that output element `o` reduces, in index order:
// acc = f(acc, x, r), r being the element's position among them (for a
// single dim, its index along that dim).
template <typename T, typename Acc, typename F>
Acc fold_reduced(const ReducePlan& plan, const T* in, int64_t o, Acc acc, F f) {
  const T* first = in + kept_offset(plan, o);
  for (int64_t r = 0; r < plan.count; ++r) acc = f(acc, first[folded_offset(plan, r)], r);
  return acc;
}

// NaN test that also compiles for integer and bool element types.
template <typename T>
constexpr bool is_nan(T v) {
  return v != v;
}

// Whether `v` takes over from the running extreme `acc` (max when kMax, else
// min). A NaN wins and then stays, as in ATen; ties keep the first.
template <bool kMax, typename T>
constexpr bool extreme_replaces(T v, T acc) {
  if (is_nan(acc)) return false;
  return kMax ? !(v <= acc) : !(v >= acc);
}

// The running extreme of an empty fold (ExecuTorch's max()/min() of an empty tensor).
template <bool kMax, typename T>
T extreme_identity() {
  if constexpr (is_floating_v<T>) {
    const float inf = std::numeric_limits<float>::infinity();
    return static_cast<T>(kMax ? -inf : inf);
  } else {
    return kMax ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max();
  }
}

// Mean and sum of squared deviations of output element `o`'s fold, in
// double, two passes (stable for the small folds kernels see).
template <typename T>
void fold_moments(const ReducePlan& plan, const T* in, int64_t o, double* mean, double* m2) {
  const double n = static_cast<double>(plan.count);
  const double sum = fold_reduced(plan, in, o, 0.0, [](double a, T x, int64_t) { return a + static_cast<double>(x); });
  const double mu = sum / n;
  *mean = mu;
  *m2 = fold_reduced(plan, in, o, 0.0, [mu](double a, T x, int64_t) {
    const double d = static_cast<double>(x) - mu;
    return a + d * d;
  });
}

}  // namespace sb::kernels
