// Mean and reciprocal standard deviation of a float row for the
// normalisation kernels (group norm, layer norm), and group norm's
// normalising pass.
// Sums run in float lanes flushed into doubles (vec_reduce.h's row_sum) over
// x - pivot (the row's first element, when finite), so a row far from zero
// keeps its accuracy; the mean is kept as a float pair so centring stays
// exact near it.
#pragma once

#include <cmath>
#include <cstdint>

#include "optimized/simd/vec.h"
#include "optimized/simd/vec_reduce.h"

namespace sb::optimized {

struct RowMoments {
  double mean;
  float hi, lo;  // mean = hi + lo (as nearly as two floats hold it)
  double rstd;   // 1 / sqrt(biased variance + eps)
};

// The moments of x[0..n), n >= 1.
inline RowMoments row_moments(const float* x, int64_t n, double eps) {
  const float pivot = x[0] - x[0] == 0.0f ? x[0] : 0.0f;
  const VecF vp = splat(pivot);
  const double shifted = row_sum(x, nullptr, n, [vp](VecF v) { return v - vp; });
  RowMoments m;
  m.mean = static_cast<double>(pivot) + shifted / static_cast<double>(n);
  m.hi = static_cast<float>(m.mean);
  m.lo = static_cast<float>(m.mean - static_cast<double>(m.hi));
  const VecF vh = splat(m.hi);
  const VecF vl = splat(m.lo);
  const double var = row_sum(x, nullptr, n, [vh, vl](VecF v) {
                       const VecF d = (v - vh) - vl;
                       return d * d;
                     }) /
                     static_cast<double>(n);
  m.rstd = 1.0 / std::sqrt(var + eps);
  return m;
}

// y[i] = ((x[i] - hi) - lo) * scale + shift for i < n.
inline void normalize_span(const float* x, float* y, int64_t n, const RowMoments& m, float scale, float shift) {
  const VecF vh = splat(m.hi);
  const VecF vl = splat(m.lo);
  const VecF vs = splat(scale);
  const VecF vb = splat(shift);
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) store(y + i, ((load(x + i) - vh) - vl) * vs + vb);
  if (i < n) store_tail(y + i, ((load_tail(x + i, n - i) - vh) - vl) * vs + vb, n - i);
}

}  // namespace sb::optimized
