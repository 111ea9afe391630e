// XNNPACK's fp32 requantization of an int32 accumulator to int8, the rule every qs8 kernel and each
// of its vectorised variants follows bit for bit: acc * multiplier (in float), clamped to
// [qmin - zero_point, qmax - zero_point], rounded to nearest even, plus zero_point.
#pragma once

#include <cstdint>

namespace sb::xnnpack_nodes::qs8 {

// std::nearbyint under the default rounding mode for |v| <= 2^22, in a form compilers vectorise
// (nearbyint itself is only vectorised when traps may be ignored): adding 1.5 * 2^23 leaves no
// fraction bits, so the sum rounds to nearest even, and subtracting it back is exact.
inline int32_t round_to_int(float v) {
  constexpr float kRoundingBias = 12582912.0f;
  return static_cast<int32_t>((v + kRoundingBias) - kRoundingBias);
}

inline int8_t requantize(int32_t acc, float multiplier, int32_t zero_point, int32_t qmin, int32_t qmax) {
  float v = static_cast<float>(acc) * multiplier;
  const float lo = static_cast<float>(qmin - zero_point), hi = static_cast<float>(qmax - zero_point);
  v = v < lo ? lo : v > hi ? hi : v;  // within [-255, 255]: round_to_int's range
  return static_cast<int8_t>(round_to_int(v) + zero_point);
}

}  // namespace sb::xnnpack_nodes::qs8
