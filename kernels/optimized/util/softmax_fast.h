// Float softmax and log-softmax over one dim, shared by _softmax.out and
// _log_softmax.out's fast paths.
#pragma once

#include <cmath>
#include <cstdint>

#include "optimized/util/binary_fast.h"
#include "optimized/util/vec.h"
#include "optimized/util/vec_math.h"
#include "optimized/util/vec_reduce.h"
#include "sb/kernel.h"
#include "sb/tensor.h"
#include "util/shape.h"

namespace sb::optimized {

struct SoftmaxShape {
  int64_t outer = 0;  // product of the dims before `dim`
  int64_t n = 0;      // size of `dim`
  int64_t inner = 0;  // product of the dims after it (the stride of `dim`)
};

// args: (self, dim, half_to_float, out). The portable kernel's checks, in its
// order; false sends the call to the portable kernel (other dtypes, a 0-d or
// empty self, half_to_float, or any failed check, which it then reports).
inline bool prepare_softmax_f32(const char* op, Args args, SoftmaxShape* shape) {
  const Tensor& self = *args[0]->as_tensor;
  Tensor& out = *args[3]->as_tensor;
  if (self.dtype != ScalarType::kFloat || out.dtype != ScalarType::kFloat || self.dim == 0 || args[2]->as_bool) {
    return false;
  }
  // normalize_dim's rule, without its Error values on the way.
  const int64_t d = args[1]->as_int;
  if (d < -self.dim || d >= self.dim) return false;
  const int32_t dim = static_cast<int32_t>(d < 0 ? d + self.dim : d);
  if (!same_shape(self, out) && !kernels::resize_output_like(op, out, self).ok()) return false;
  shape->outer = kernels::size_product(self, 0, dim);
  shape->n = self.sizes[dim];
  shape->inner = kernels::size_product(self, dim + 1, self.dim);
  return shape->n > 0;
}

namespace softmax_detail {

// One contiguous row (the last dim). out may alias x: each element is read
// before it is written.
inline void row(const float* x, float* y, int64_t n, bool log) {
  const float max = row_max(x, n);
  const VecF vmax_ = splat(max);
  if (log) {
    const double sum = row_sum(x, nullptr, n, [vmax_](VecF v) { return vexp(v - vmax_); });
    const VecF log_sum = splat(static_cast<float>(std::log(sum)));
    map_unary_f32(x, y, n, [vmax_, log_sum](VecF v) { return (v - vmax_) - log_sum; });
    return;
  }
  const double sum = row_sum(x, y, n, [vmax_](VecF v) { return vexp(v - vmax_); });
  const VecF scale = splat(static_cast<float>(1.0 / sum));
  map_unary_f32(y, y, n, [scale](VecF v) { return v * scale; });
}

// `w` (<= kLanes) adjacent columns of a dim with stride `inner`.
inline void columns(const float* x, float* y, int64_t n, int64_t inner, int64_t w, bool log) {
  VecF m = load_partial(x, w);
  for (int64_t k = 1; k < n; ++k) m = vmax(m, load_partial(x + k * inner, w));
  VecF acc = {};
  double total[kLanes] = {};
  for (int64_t k = 0; k < n; ++k) {
    const VecF e = vexp(load_partial(x + k * inner, w) - m);
    if (!log) store_partial(y + k * inner, e, w);
    acc += e;
    if ((k + 1) % kFlushBlock == 0) {
      for (int64_t l = 0; l < kLanes; ++l) total[l] += static_cast<double>(acc[l]);
      acc = VecF{};
    }
  }
  VecF scale;  // 1 / sum, or log(sum) for log-softmax
  for (int64_t l = 0; l < kLanes; ++l) {
    const double s = total[l] + static_cast<double>(acc[l]);
    scale[l] = log ? static_cast<float>(std::log(s)) : static_cast<float>(1.0 / s);
  }
  for (int64_t k = 0; k < n; ++k) {
    if (log) {
      store_partial(y + k * inner, (load_partial(x + k * inner, w) - m) - scale, w);
    } else {
      store_partial(y + k * inner, load_partial(y + k * inner, w) * scale, w);
    }
  }
}

}  // namespace softmax_detail

inline void run_softmax_f32(const Tensor& self, const Tensor& out, const SoftmaxShape& s, bool log) {
  const float* x = self.data_as<float>();
  float* y = out.data_as<float>();
  const int64_t plane = s.n * s.inner;
  for (int64_t o = 0; o < s.outer; ++o) {
    if (s.inner == 1) {
      softmax_detail::row(x + o * plane, y + o * plane, s.n, log);
      continue;
    }
    for (int64_t i = 0; i < s.inner; i += kLanes) {
      const int64_t w = s.inner - i < kLanes ? s.inner - i : kLanes;
      softmax_detail::columns(x + o * plane + i, y + o * plane + i, s.n, s.inner, w, log);
    }
  }
}

}  // namespace sb::optimized
