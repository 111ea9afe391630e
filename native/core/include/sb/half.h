// The two 16-bit floating types a .pte may hold: Half (IEEE 754 binary16)
// and BFloat16 (the top half of a binary32). Both are storage types: they
// widen to float exactly, and kernels compute in float and round on store,
// as ATen's and ExecuTorch's portable kernels do. Rounding from float is to
// nearest, ties to even; NaN stays NaN; a float beyond Half's range becomes
// an infinity of its sign.
#pragma once

#include <cstdint>
#include <cstring>

namespace sb {

namespace half_bits {

inline uint32_t float_bits(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
}

inline float bits_float(uint32_t u) {
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}

// binary16 -> binary32, exact.
inline float half_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exponent = (h >> 10) & 0x1fu;
  const uint32_t mantissa = h & 0x3ffu;
  if (exponent == 0x1f) return bits_float(sign | 0x7f800000u | (mantissa << 13));  // inf, NaN (payload kept)
  if (exponent != 0) return bits_float(sign | ((exponent + 112u) << 23) | (mantissa << 13));
  // Zero or subnormal: mantissa * 2^-24, exact in float.
  const float magnitude = static_cast<float>(mantissa) * bits_float(0x33800000u);  // 2^-24
  return bits_float(sign | float_bits(magnitude));
}

// binary32 -> binary16, round to nearest even.
inline uint16_t float_to_half(float f) {
  const uint32_t u = float_bits(f);
  const uint16_t sign = static_cast<uint16_t>((u >> 16) & 0x8000u);
  const uint32_t magnitude = u & 0x7fffffffu;
  if (magnitude > 0x7f800000u) {  // NaN: quiet, keeping the top of the payload
    return static_cast<uint16_t>(sign | 0x7e00u | ((magnitude >> 13) & 0x3ffu));
  }
  if (magnitude >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // >= 65520 rounds to inf
  const uint32_t exponent = magnitude >> 23;
  uint32_t kept;
  uint32_t rest;
  uint32_t halfway;
  if (exponent >= 113) {
    // Normal half: rebias the exponent, keep 10 mantissa bits.
    kept = ((exponent - 112u) << 10) | ((magnitude >> 13) & 0x3ffu);
    rest = magnitude & 0x1fffu;
    halfway = 0x1000u;
  } else {
    // Subnormal half (or zero): the value in units of 2^-24.
    if (exponent < 102) return sign;  // below 2^-25: rounds to zero
    const uint32_t significand = (magnitude & 0x7fffffu) | 0x800000u;
    const uint32_t shift = 126u - exponent;  // 14..24
    kept = significand >> shift;
    rest = significand & ((1u << shift) - 1u);
    halfway = 1u << (shift - 1u);
  }
  // A carry out of the mantissa moves into the exponent, which is what rounding up means.
  if (rest > halfway || (rest == halfway && (kept & 1u))) ++kept;
  return static_cast<uint16_t>(sign | kept);
}

inline float bfloat16_to_float(uint16_t b) { return bits_float(static_cast<uint32_t>(b) << 16); }

// binary32 -> bfloat16, round to nearest even (overflow reaches inf by itself).
inline uint16_t float_to_bfloat16(float f) {
  const uint32_t u = float_bits(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((u >> 16) | 0x40u);  // NaN stays NaN, quiet
  const uint32_t rounding = 0x7fffu + ((u >> 16) & 1u);
  return static_cast<uint16_t>((u + rounding) >> 16);
}

}  // namespace half_bits

// Implicitly a float both ways, so `T(0)`, comparisons and `static_cast<T>(v)`
// read the same for every floating type; arithmetic happens in float.
struct Half {
  uint16_t bits;

  Half() = default;
  Half(float f) : bits(half_bits::float_to_half(f)) {}  // NOLINT: implicit, like a float
  operator float() const { return half_bits::half_to_float(bits); }
  static Half from_bits(uint16_t b) {
    Half h;
    h.bits = b;
    return h;
  }
};

struct BFloat16 {
  uint16_t bits;

  BFloat16() = default;
  BFloat16(float f) : bits(half_bits::float_to_bfloat16(f)) {}  // NOLINT: implicit, like a float
  operator float() const { return half_bits::bfloat16_to_float(bits); }
  static BFloat16 from_bits(uint16_t b) {
    BFloat16 h;
    h.bits = b;
    return h;
  }
};

static_assert(sizeof(Half) == 2 && sizeof(BFloat16) == 2, "16-bit storage types");

}  // namespace sb
