// Row reductions on VecF for the normalisation kernels (softmax, layer norm):
// max, sum, and sums of functions of the elements, with float lanes flushed
// into a double every kFlushBlock elements so long rows keep their accuracy;
// lane masks and even/odd lane picks (stride-2 rows, pairwise sums).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <utility>

#include "optimized/simd/vec.h"

namespace sb::optimized {

// Elements summed in float lanes before the partial sum moves to a double.
constexpr int64_t kFlushBlock = 256;

namespace reduce_detail {

// Pairwise folds of a vector's halves down to one element: log2(lanes)
// vector operations instead of a chain of lanes - 1 scalar ones.
template <typename T, size_t Bytes, typename F>
inline T fold(const void* v, F f) {
  if constexpr (Bytes == sizeof(T)) {
    T r;
    std::memcpy(&r, v, sizeof r);
    return r;
  } else {
    typedef T Half __attribute__((vector_size(Bytes / 2)));
    Half lo;
    Half hi;
    std::memcpy(&lo, v, sizeof lo);
    std::memcpy(&hi, static_cast<const char*>(v) + sizeof lo, sizeof hi);
    const Half r = f(lo, hi);
    return fold<T, Bytes / 2>(&r, f);
  }
}

}  // namespace reduce_detail

// The lanes' sum, added in double.
inline double reduce_add_f64(VecF v) {
  typedef double VecD __attribute__((vector_size(2 * kVectorBytes)));
  const VecD d = __builtin_convertvector(v, VecD);
  return reduce_detail::fold<double, sizeof d>(&d, [](auto a, auto b) { return a + b; });
}

// The lanes' maximum (`a > b ? a : b`, as vmax).
inline float reduce_max_tree(VecF v) {
  return reduce_detail::fold<float, sizeof v>(&v, [](auto a, auto b) { return a > b ? a : b; });
}

// A mask vector of the first m lanes (m <= kLanes), as floats for selects.
inline VecI first_lanes(int64_t m) {
  VecI idx;
  for (int64_t i = 0; i < kLanes; ++i) idx[i] = static_cast<int32_t>(i);
  return idx < static_cast<int32_t>(m);
}

namespace detail {
template <size_t... I>
VecF pick(VecF a, VecF b, std::index_sequence<I...>) {
  return __builtin_shufflevector(a, b, static_cast<int>(I)...);
}
template <size_t... I>
constexpr std::index_sequence<2 * I...> evens(std::index_sequence<I...>) {
  return {};
}
template <size_t... I>
constexpr std::index_sequence<(2 * I + 1)...> odds(std::index_sequence<I...>) {
  return {};
}
}  // namespace detail

// The even (odd) elements of the 2 * kLanes floats a:b, in order.
inline VecF even_lanes(VecF a, VecF b) {
  return detail::pick(a, b, detail::evens(std::make_index_sequence<kLanes>{}));
}
inline VecF odd_lanes(VecF a, VecF b) {
  return detail::pick(a, b, detail::odds(std::make_index_sequence<kLanes>{}));
}

// max over x[0..n), n >= 1, comparisons as `a > b ? a : b` (a NaN is kept or
// skipped depending on its position; the kernels' later steps turn any NaN in
// the row into NaN everywhere, as ATen's do).
inline float row_max(const float* x, int64_t n) {
  int64_t i = 0;
  float m = -__builtin_inff();
  if (n >= kLanes) {
    VecF vm = load(x);
    for (i = kLanes; i + kLanes <= n; i += kLanes) vm = vmax(vm, load(x + i));
    m = reduce_max_tree(vm);
  }
  for (; i < n; ++i) m = x[i] > m ? x[i] : m;
  return m;
}

// sum over i < n of f(load(x + i)) (f: VecF -> VecF), the tail's padding
// lanes masked out; if `y` is non-null, f's values are also stored there.
template <typename F>
inline double row_sum(const float* x, float* y, int64_t n, F f) {
  double total = 0.0;
  int64_t i = 0;
  while (i + kLanes <= n) {
    VecF acc = {};
    const int64_t end = n - i > kFlushBlock ? i + kFlushBlock : n;
    for (; i + kLanes <= end; i += kLanes) {
      const VecF v = f(load(x + i));
      if (y != nullptr) store(y + i, v);
      acc += v;
    }
    total += reduce_add_f64(acc);
  }
  if (i < n) {
    const int64_t m = n - i;
    VecF v = f(load_tail(x + i, m));
    if (y != nullptr) store_tail(y + i, v, m);
    v = first_lanes(m) ? v : VecF{};
    total += reduce_add_f64(v);
  }
  return total;
}

}  // namespace sb::optimized
