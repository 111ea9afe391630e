// The float clamp micro-kernel shared by the clamp.out, hardtanh.out and relu.out fast paths.
#pragma once

#include <cstdint>

namespace sb::optimized {

// min(max(x, lo), hi) in the order the portable kernel applies them (lo > hi
// gives hi); a NaN element stays NaN. Out of line (clamp_f32.cpp): clamp,
// hardtanh and relu (lo 0, no hi) share it.
void clamp_f32(const float* x, float* y, int64_t n, bool has_lo, float lo, bool has_hi, float hi);

}  // namespace sb::optimized
