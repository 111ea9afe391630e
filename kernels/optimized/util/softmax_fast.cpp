// The shared softmax loops of util/softmax_fast.h.
#include "optimized/util/softmax_fast.h"

#include <cmath>

#include "optimized/util/binary_fast.h"
#include "optimized/util/vec.h"
#include "optimized/util/vec_math.h"
#include "optimized/util/vec_reduce.h"
#include "util/shape.h"

namespace sb::optimized {

// args: (self, dim, half_to_float, out). The portable kernel's checks, in its
// order; false sends the call to the portable kernel (other dtypes, a 0-d or
// empty self, half_to_float, or any failed check, which it then reports).
bool prepare_softmax_f32(const char* op, Args args, SoftmaxShape* shape) {
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

namespace {

// One contiguous row (the last dim). out may alias x: each element is read
// before it is written.
void row(const float* x, float* y, int64_t n, bool log) {
  const VecF m = splat(row_max(x, n));
  // softmax keeps the exponentials in y; log-softmax only sums them.
  const double sum = row_sum(x, log ? nullptr : y, n, [m](VecF v) { return vexp(v - m); });
  if (log) {
    const VecF log_sum = splat(static_cast<float>(std::log(sum)));
    map_unary_f32(x, y, n, [m, log_sum](VecF v) { return (v - m) - log_sum; });
  } else {
    const VecF scale = splat(static_cast<float>(1.0 / sum));
    map_unary_f32(y, y, n, [scale](VecF v) { return v * scale; });
  }
}

// `w` (<= kLanes) adjacent columns of a dim with stride `inner`.
void columns(const float* x, float* y, int64_t n, int64_t inner, int64_t w, bool log) {
  VecF m = load_first(x, w);
  for (int64_t k = 1; k < n; ++k) m = vmax(m, load_first(x + k * inner, w));
  typedef double VecD __attribute__((vector_size(2 * kVectorBytes)));  // kLanes doubles
  VecF acc = {};
  VecD total = {};
  for (int64_t k = 0; k < n; ++k) {
    const VecF e = vexp(load_first(x + k * inner, w) - m);
    if (!log) store_first(y + k * inner, e, w);
    acc += e;
    if ((k + 1) % kFlushBlock == 0) {
      total += __builtin_convertvector(acc, VecD);
      acc = VecF{};
    }
  }
  total += __builtin_convertvector(acc, VecD);
  VecF scale;  // 1 / sum, or log(sum) for log-softmax
  if (log) {
#pragma GCC unroll 1
    for (int64_t l = 0; l < kLanes; ++l) scale[l] = static_cast<float>(std::log(total[l]));
  } else {
    scale = __builtin_convertvector(1.0 / total, VecF);
  }
  for (int64_t k = 0; k < n; ++k) {
    if (log) {
      store_first(y + k * inner, (load_first(x + k * inner, w) - m) - scale, w);
    } else {
      store_first(y + k * inner, load_first(y + k * inner, w) * scale, w);
    }
  }
}

}  // namespace

void run_softmax_f32(const Tensor& self, const Tensor& out, const SoftmaxShape& s, bool log) {
  const float* x = self.data_as<float>();
  float* y = out.data_as<float>();
  const int64_t plane = s.n * s.inner;
  for (int64_t o = 0; o < s.outer; ++o) {
    if (s.inner == 1) {
      row(x + o * plane, y + o * plane, s.n, log);
      continue;
    }
    for (int64_t i = 0; i < s.inner; i += kLanes) {
      const int64_t w = s.inner - i < kLanes ? s.inner - i : kLanes;
      columns(x + o * plane + i, y + o * plane + i, s.n, s.inner, w, log);
    }
  }
}

}  // namespace sb::optimized
