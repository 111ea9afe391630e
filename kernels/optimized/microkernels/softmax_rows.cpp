// The shared softmax loops of optimized/microkernels/softmax_rows.h.
#include "optimized/microkernels/softmax_rows.h"
#include "sb/thread_pool.h"

#include <cmath>

#include "optimized/simd/vec.h"
#include "optimized/simd/vec_math.h"
#include "optimized/simd/vec_reduce.h"

namespace sb::optimized {
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
  VecF m = load_tail(x, w);
  for (int64_t k = 1; k < n; ++k) m = vmax(m, load_tail(x + k * inner, w));
  typedef double VecD __attribute__((vector_size(2 * kVectorBytes)));  // kLanes doubles
  VecF acc = {};
  VecD total = {};
  for (int64_t k = 0; k < n; ++k) {
    const VecF e = vexp(load_tail(x + k * inner, w) - m);
    if (!log) store_tail(y + k * inner, e, w);
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
      store_tail(y + k * inner, (load_tail(x + k * inner, w) - m) - scale, w);
    } else {
      store_tail(y + k * inner, load_tail(y + k * inner, w) * scale, w);
    }
  }
}

}  // namespace

// Elements per tile of a parallel softmax (whole rows or column vectors: at least one).
constexpr int64_t kSoftmaxTileElements = 16 * 1024;

void softmax_f32(const float* x, float* y, const SoftmaxShape& s, bool log, ThreadPool* pool) {
  const int64_t plane = s.n * s.inner;
  // Items: a row (inner 1) or a vector of columns of one outer index, numbered o-major.
  const int64_t per_outer = s.inner == 1 ? 1 : (s.inner + kLanes - 1) / kLanes;
  const int64_t items = s.outer * per_outer;
  const int64_t item_elements = s.inner == 1 ? s.n : s.n * (s.inner < kLanes ? s.inner : kLanes);
  const auto run = [&](int64_t first, int64_t last) {
    for (int64_t t = first; t < last; ++t) {
      const int64_t o = t / per_outer;
      if (s.inner == 1) {
        row(x + o * plane, y + o * plane, s.n, log);
        continue;
      }
      const int64_t i = t % per_outer * kLanes;
      const int64_t w = s.inner - i < kLanes ? s.inner - i : kLanes;
      columns(x + o * plane + i, y + o * plane + i, s.n, s.inner, w, log);
    }
  };
  pool = pool_for(pool, static_cast<uint64_t>(s.outer) * static_cast<uint64_t>(plane), kParallelMinElements);
  if (pool == nullptr) {
    run(0, items);
    return;
  }
  const int64_t step = (kSoftmaxTileElements + item_elements - 1) / item_elements;
  parallelize_1d(pool, tiles_of(items, step), [&](size_t t) {
    const int64_t first = static_cast<int64_t>(t) * step;
    run(first, items - first < step ? items : first + step);
  });
}

}  // namespace sb::optimized
