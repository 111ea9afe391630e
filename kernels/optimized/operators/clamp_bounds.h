// Which clamp bounds the float fast paths of clamp.out and hardtanh.out take
// to optimized/microkernels/clamp_f32.h (the rest go to the portable kernel).
#pragma once

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

}  // namespace sb::optimized
