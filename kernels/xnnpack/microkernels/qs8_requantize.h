// XNNPACK's fp32 requantization of an int32 accumulator to int8, the rule every qs8 kernel and each
// of its vectorised variants follows bit for bit: acc * multiplier (in float), clamped to
// [qmin - zero_point, qmax - zero_point], rounded to nearest even, plus zero_point.
#pragma once

#include <cmath>
#include <cstdint>

namespace sb::xnnpack_nodes::qs8 {

inline int8_t requantize(int32_t acc, float multiplier, int32_t zero_point, int32_t qmin, int32_t qmax) {
  float v = static_cast<float>(acc) * multiplier;
  const float lo = static_cast<float>(qmin - zero_point), hi = static_cast<float>(qmax - zero_point);
  v = v < lo ? lo : v > hi ? hi : v;
  return static_cast<int8_t>(static_cast<int32_t>(std::nearbyint(v)) + zero_point);
}

}  // namespace sb::xnnpack_nodes::qs8
