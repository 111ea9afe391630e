// The float clamp shared by clamp.out and hardtanh.out's fast paths.
#pragma once

#include <cstdint>

#include "optimized/util/binary_fast.h"
#include "optimized/util/vec.h"
#include "optimized/util/vec_math.h"
#include "sb/value.h"
#include "util/promote.h"

namespace sb::optimized {

// A bound the fast path takes: an int or double Scalar (a Float result with
// either) that float holds and that is not NaN (NaN bounds go to portable).
inline bool plain_bound(const Value& v) {
  if (v.tag != Tag::kInt && v.tag != Tag::kDouble) return false;
  if (!kernels::scalar_fits(v, ScalarType::kFloat)) return false;
  const float f = kernels::scalar_to<float>(v);
  return f == f;
}

// min(max(x, lo), hi) in the order the portable kernel applies them (lo > hi
// gives hi); a NaN element stays NaN.
inline void clamp_f32(const float* x, float* y, int64_t n, bool has_lo, float lo, bool has_hi, float hi) {
  if (!has_hi) hi = __builtin_inff();
  if (!has_lo) lo = -__builtin_inff();
  const VecF vlo = splat(lo);
  const VecF vhi = splat(hi);
  map_unary_f32(x, y, n, [vlo, vhi](VecF v) {
    v = v < vlo ? vlo : v;
    return v > vhi ? vhi : v;
  });
}

}  // namespace sb::optimized
