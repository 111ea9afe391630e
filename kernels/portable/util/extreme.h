// The bodies of the max/min reductions (amax/amin, argmax/argmin, max.dim /
// min.dim, max()/min()), one template each, instantiated for max and min.
// NaN propagates: the first NaN is the extreme and its index the arg.
#pragma once

#include "sb/kernel.h"
#include "util/dtype_switch.h"
#include "util/fold.h"

namespace sb::kernels {

// amax/amin.out(Tensor self, int[1] dim=[], bool keepdim=False, *, Tensor(a!) out)
template <const char* Op, bool kMax, DtypeMask Types>
Error extreme_over_dims(Args args) {
  const Tensor& self = *args[0]->as_tensor;
  Tensor& out = *args[3]->as_tensor;
  ReducePlan plan;
  Error err = plan_reduction(Op, self, args[1]->as_int_list, args[2]->as_bool, &plan);
  if (!err.ok()) return err;
  if (!(err = check_dtype(Op, "out", out, self.dtype)).ok()) return err;
  if (!(err = resize_reduced(Op, out, plan)).ok()) return err;
  const int64_t n_out = reduced_numel(plan);
  if (n_out > 0 && !(err = check_nonempty_fold(Op, plan)).ok()) return err;
  return switch_dtype<Op, Types>(self.dtype, [&](auto zero) {
    using T = decltype(zero);
    const T* x = self.data_as<T>();
    T* y = out.data_as<T>();
    for (int64_t o = 0; o < n_out; ++o) {
      const T first = x[kept_offset(plan, o)];
      y[o] = fold_reduced(plan, x, o, first, [](T acc, T v, int64_t) { return extreme_replaces<kMax>(v, acc) ? v : acc; });
    }
    return Error();
  });
}

// Writes the extreme (when `values`) and its index along the fold of every
// output element. Shapes and dtypes are the caller's to check.
template <const char* Op, bool kMax, DtypeMask Types>
Error arg_extreme(const Tensor& self, const ReducePlan& plan, const Tensor* values, const Tensor& indices) {
  const int64_t n_out = reduced_numel(plan);
  if (n_out > 0) {
    Error err = check_nonempty_fold(Op, plan);
    if (!err.ok()) return err;
  }
  return switch_dtype<Op, Types>(self.dtype, [&](auto zero) {
    using T = decltype(zero);
    struct Best {
      T value;
      int64_t index;
    };
    const T* x = self.data_as<T>();
    int64_t* idx = indices.data_as<int64_t>();
    T* y = values ? values->data_as<T>() : nullptr;
    for (int64_t o = 0; o < n_out; ++o) {
      const Best best = fold_reduced(plan, x, o, Best{x[kept_offset(plan, o)], 0}, [](Best acc, T v, int64_t r) {
        return extreme_replaces<kMax>(v, acc.value) ? Best{v, r} : acc;
      });
      idx[o] = best.index;
      if (y) y[o] = best.value;
    }
    return Error();
  });
}

// argmax/argmin.out(Tensor self, int? dim=None, bool keepdim=False, *, Tensor(a!) out)
template <const char* Op, bool kMax, DtypeMask Types>
Error arg_extreme_out(Args args) {
  const Tensor& self = *args[0]->as_tensor;
  Tensor& out = *args[3]->as_tensor;
  ReducePlan plan;
  Error err = plan_optional_dim(Op, self, *args[1], args[2]->as_bool, &plan);
  if (!err.ok()) return err;
  if (!(err = check_dtype(Op, "out", out, ScalarType::kLong)).ok()) return err;
  if (!(err = resize_reduced(Op, out, plan)).ok()) return err;
  return arg_extreme<Op, kMax, Types>(self, plan, nullptr, out);
}

// max/min.dim_max(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) values, Tensor(b!) indices)
template <const char* Op, bool kMax, DtypeMask Types>
Error extreme_along_dim(Args args) {
  const Tensor& self = *args[0]->as_tensor;
  Tensor& values = *args[3]->as_tensor;
  Tensor& indices = *args[4]->as_tensor;
  ReducePlan plan;
  Error err = plan_optional_dim(Op, self, *args[1], args[2]->as_bool, &plan);
  if (!err.ok()) return err;
  if (!(err = check_dtype(Op, "values", values, self.dtype)).ok()) return err;
  if (!(err = check_dtype(Op, "indices", indices, ScalarType::kLong)).ok()) return err;
  if (!(err = resize_reduced(Op, values, plan)).ok()) return err;
  if (!(err = resize_reduced(Op, indices, plan)).ok()) return err;
  return arg_extreme<Op, kMax, Types>(self, plan, &values, indices);
}

// max/min.unary_out(Tensor self, *, Tensor(a!) out): the extreme of every
// element; an empty input gives -inf/+inf (the type's bound for integers).
template <const char* Op, bool kMax, DtypeMask Types>
Error extreme_of_all(Args args) {
  const Tensor& self = *args[0]->as_tensor;
  Tensor& out = *args[1]->as_tensor;
  Error err = resize_output(Op, out, nullptr, 0);
  if (!err.ok()) return err;
  if (!(err = check_dtype(Op, "out", out, self.dtype)).ok()) return err;
  return switch_dtype<Op, Types>(self.dtype, [&](auto zero) {
    using T = decltype(zero);
    const T* x = self.data_as<T>();
    const int64_t n = self.numel();
    T acc = extreme_identity<kMax, T>();
    for (int64_t i = 0; i < n; ++i) {
      if (is_nan(x[i])) {
        acc = x[i];
        break;
      }
      if (kMax ? x[i] > acc : x[i] < acc) acc = x[i];
    }
    out.data_as<T>()[0] = acc;
    return Error();
  });
}

}  // namespace sb::kernels
