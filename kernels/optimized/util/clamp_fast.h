// The float clamp shared by clamp.out and hardtanh.out's fast paths.
#pragma once

#include <cstdint>

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
// gives hi); a NaN element stays NaN. Out of line (clamp_fast.cpp): clamp,
// hardtanh and relu (lo 0, no hi) share it.
void clamp_f32(const float* x, float* y, int64_t n, bool has_lo, float lo, bool has_hi, float hi);

}  // namespace sb::optimized
