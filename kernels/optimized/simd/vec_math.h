// Vectorised transcendental math on VecF (exp, sigmoid, tanh, erf, GELU,
// rsqrt), written with vector extensions (plus, under AVX guards, a reciprocal
// estimate) so it compiles for every target vec.h serves. Accuracy: a few
// float ulps (about 3e-7 relative) over the whole range, erf and exact GELU
// 5e-7 absolute; NaN propagates, +-inf give the limits ATen gives. One
// formula per function, no per-lane choice between two.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "optimized/simd/vec.h"

namespace sb::optimized {


inline VecI as_int(VecF v) {
  VecI r;
  std::memcpy(&r, &v, sizeof r);
  return r;
}

inline VecF as_float(VecI v) {
  VecF r;
  std::memcpy(&r, &v, sizeof r);
  return r;
}

inline VecF vabs(VecF x) { return as_float(as_int(x) & 0x7fffffff); }

// x with the sign of s.
inline VecF copy_sign(VecF x, VecF s) {
  return as_float((as_int(x) & 0x7fffffff) | (as_int(s) & static_cast<int32_t>(0x80000000u)));
}

// Round to nearest (ties to even) for |x| < 2^22, without a libm call.
inline VecF round_small(VecF x) {
  const VecF magic = splat(12582912.0f);  // 1.5 * 2^23
  return (x + magic) - magic;
}

// c[0] + x (c[1] + x (c[2] + ...)): a polynomial by Horner's rule, its
// coefficients from the constant term up.
template <size_t N>
inline VecF poly(VecF x, const float (&c)[N]) {
  VecF p = splat(c[N - 1]);
  for (size_t i = N - 1; i-- > 0;) p = p * x + c[i];
  return p;
}

// x = n ln2 + r with |r| <= ln2/2, ln2 split in two so n * hi is exact: n
// (as a float) returned, r in *r. NaN gives NaN for both.
inline VecF reduce_ln2(VecF x, VecF* r) {
  const VecF fn = round_small(x * 1.44269504088896341f);
  *r = (x - fn * 0.693359375f) - fn * -2.12194440e-4f;
  return fn;
}

// p * 2^n for an integral n in [-150, 128] given as a float (NaN: NaN): one
// vscalefps with AVX-512 (which rounds subnormal results and overflows to inf
// by itself), else two exponent-field factors so both ends come out right.
inline VecF scale_pow2(VecF p, VecF fn) {
#if defined(__AVX512F__)
  // (the masked form: the plain one reads an undefined vector GCC warns about)
  return (VecF)_mm512_mask_scalef_ps((__m512)p, static_cast<__mmask16>(0xffff), (__m512)p, (__m512)fn);
#else
  const VecI n = __builtin_convertvector(fn == fn ? fn : VecF{}, VecI);
  const VecI n1 = n >> 1;
  const VecF y = (p * as_float((n1 + 127) << 23)) * as_float((n - n1 + 127) << 23);
  return fn == fn ? y : fn;
#endif
}

// e^x. Range reduction x = n ln2 + r with |r| <= ln2/2 (ln2 split in two so
// n * ln2_hi is exact), a degree-7 polynomial for e^r, then a scaling by 2^n
// done as two factors so results in the subnormal range and overflow to inf
// come out right.
inline VecF vexp(VecF x) {
  // Clamp into a range where 2^n stays representable as two factors (and
  // +-inf reduce without inf - inf); NaN passes the clamp, and scale_pow2
  // keeps it.
  VecF xc = x > splat(89.0f) ? splat(89.0f) : x;
  xc = xc < splat(-104.0f) ? splat(-104.0f) : xc;
  VecF r;
  const VecF fn = reduce_ln2(xc, &r);
  // Taylor to degree 7: truncation below 1e-8 on |r| <= 0.347.
  static constexpr float kP[] = {1.0f, 1.0f, 0.5f, 1.0f / 6, 1.0f / 24, 1.0f / 120, 1.0f / 720, 1.0f / 5040};
  const VecF p = poly(r, kP);
  return scale_pow2(p, fn);
}

// e^z for z <= 0 (or NaN), flushed to 0 below -87 (where e^z leaves float's
// normal range; with AVX-512's scalef, subnormal down to -104, 0 below): the
// range reduction of vexp with one scaling and a degree-5
// polynomial fitted for relative error (2e-7 in float arithmetic) on
// |r| <= ln2/2.
inline VecF vexp_nonpos(VecF z) {
#if defined(__AVX512F__)
  const VecF zc = z < splat(-104.0f) ? splat(-104.0f) : z;  // scalef: 0 below
#else
  const VecI low = z < splat(-87.0f);
  VecF zc = low ? splat(-87.0f) : z;
  zc = z == z ? zc : splat(0.0f);  // float-to-int of NaN is undefined
#endif
  VecF r;
  const VecF fn = reduce_ln2(zc, &r);
  static constexpr float kP[] = {1.00000012f, 9.99999702e-1f, 4.99988943e-1f, 1.66675596e-1f, 4.19154465e-2f, 8.29871278e-3f};
  const VecF p = poly(r, kP);
#if defined(__AVX512F__)
  return scale_pow2(p, fn);  // NaN stays NaN
#else
  const VecF y = p * as_float((__builtin_convertvector(fn, VecI) + 127) << 23);  // 2^n, n in [-126, 0]
  return z == z ? (low ? VecF{} : y) : z;
#endif
}

// 1 / d for d in [1, 2] (no zero, infinity or subnormal to care for): the
// hardware estimate and one Newton step where there is one (AVX-512: 14 bits,
// AVX: 12 bits; a few ulp after the step), a division elsewhere.
inline VecF vrecip_1_2(VecF d) {
#if defined(__AVX512F__) || defined(__AVX__)
#if defined(__AVX512F__)
  // (the masked form: the plain one reads an undefined vector GCC warns about)
  const VecF r = (VecF)_mm512_mask_rcp14_ps((__m512)d, static_cast<__mmask16>(0xffff), (__m512)d);
#else
  const VecF r = (VecF)_mm256_rcp_ps((__m256)d);
#endif
  return r + r * (splat(1.0f) - d * r);
#else
  return splat(1.0f) / d;
#endif
}

// 1 / (1 + e^-x) through e = e^-|x|, which cannot overflow: 1 / (1 + e) for
// x >= 0, e / (1 + e) below (relative accuracy in both tails; NaN kept).
inline VecF vsigmoid(VecF x) {
  const VecF e = vexp_nonpos(-vabs(x));
  const VecF r = vrecip_1_2(splat(1.0f) + e);
  return x >= splat(0.0f) ? r : e * r;
}

// e^x - 1 for x <= 0 (callers pass -|y|), accurate near 0 where e^x - 1
// would cancel: x = n ln2 + r as in vexp, e^x - 1 = 2^n (e^r - 1) + (2^n - 1)
// with e^r - 1 = r + r^2 q(r) (no constant term to cancel). Below -20 the
// result is -1 in float; NaN propagates.
inline VecF vexpm1_neg(VecF x) {
  VecF xc = x < splat(-20.0f) ? splat(-20.0f) : x;
  xc = x == x ? xc : splat(0.0f);  // float-to-int of NaN is undefined
  VecF r;
  const VecF fn = reduce_ln2(xc, &r);
  // Taylor to degree 8 of e^r - 1 = r + r^2 q(r).
  static constexpr float kQ[] = {0.5f, 1.0f / 6, 1.0f / 24, 1.0f / 120, 1.0f / 720, 1.0f / 5040, 1.0f / 40320};
  const VecF q = poly(r, kQ);
  const VecF em = r + (r * r) * q;
  const VecF scale = as_float((__builtin_convertvector(fn, VecI) + 127) << 23);  // 2^n, n in [-29, 0]
  const VecF y = scale * em + (scale - 1.0f);
  return x == x ? y : x;
}

// tanh(x) = -m / (2 + m) with m = e^(-2|x|) - 1, the sign of x restored: one
// formula over the whole range (1 for large |x|, x near 0, NaN kept).
inline VecF vtanh(VecF x) {
  const VecF m = vexpm1_neg(splat(-2.0f) * vabs(x));
  return copy_sign(-m / (splat(2.0f) + m), x);
}

// erf(z) for |z| < 3.9 as z P(z^2) / Q(z^2), degrees 5 and 5 (a rational
// fit to erf on [0, 4], weighted towards its largest errors; 3e-8 absolute in
// exact arithmetic, 5e-7 evaluated in float), and +-1 beyond, where erf is 1
// in float (so GELU's negative tail is exactly 0 and GELU(-inf) NaN, as in
// ATen). NaN propagates.
inline VecF verf(VecF z) {
  const VecF c = z < splat(-3.9f) ? splat(-3.9f) : (z > splat(3.9f) ? splat(3.9f) : z);
  const VecF u = c * c;
  static constexpr float kP[] = {1.12837899f, 1.94202662e-1f, 5.31783365e-2f, 3.91166843e-3f, 2.85303075e-4f, 1.98149246e-6f};
  const VecF p = poly(u, kP);
  static constexpr float kQ[] = {1.0f, 5.05439222e-1f, 1.15614079e-1f, 1.52596310e-2f, 1.19286485e-3f, 3.74069932e-5f};
  const VecF q = poly(u, kQ);
  const VecF e = c * p / q;
  return vabs(c) >= splat(3.9f) ? copy_sign(splat(1.0f), c) : e;
}

// GELU, exact form: x/2 * (1 + erf(x / sqrt 2)), ATen's formula (its float
// rounding in the negative tail included: 5e-7 absolute at worst).
inline VecF vgelu_erf(VecF x) {
  constexpr float kSqrt1_2 = 0.70710678118654752f;
  const VecF h = splat(0.5f) * x;
  return h + h * verf(x * kSqrt1_2);
}

// GELU, tanh approximation (ATen's formula x/2 * (1 + tanh(u))), through
// 1 + tanh(u) = 2 sigmoid(2u): x * sigmoid(2u), one exponential.
inline VecF vgelu_tanh(VecF x) {
  constexpr float kBeta = 0.79788456080286536f;  // sqrt(2 / pi)
  constexpr float kKappa = 0.044715f;
  const VecF u = kBeta * (x + kKappa * x * x * x);
  return x * vsigmoid(u + u);
}

// 1 / sqrt(x): a bit-pattern first guess and three Newton steps (about 2 ulp),
// subnormals scaled into range first; 0 gives inf of its sign, negatives
// NaN, inf 0, NaN itself (std's 1 / sqrt(x) everywhere).
inline VecF vrsqrt(VecF x) {
  constexpr float kMinNormal = 1.17549435e-38f;
  const VecI tiny = x < splat(kMinNormal);
  const VecF xs = tiny ? x * 16777216.0f : x;  // 2^24
  // The first guess in unsigned lanes: the bit pattern of a negative input
  // (NaN-selected below) must wrap, not overflow.
  typedef uint32_t VecU __attribute__((vector_size(kVectorBytes)));
  VecU bits;
  std::memcpy(&bits, &xs, sizeof bits);
  bits = 0x5f375a86u - (bits >> 1);
  VecF y;
  std::memcpy(&y, &bits, sizeof y);
  const VecF h = 0.5f * xs;
  y = y * (1.5f - h * y * y);
  y = y * (1.5f - h * y * y);
  y = y * (1.5f - h * y * y);
  y = tiny ? y * 4096.0f : y;  // 2^12
  y = x == splat(0.0f) ? copy_sign(splat(__builtin_inff()), x) : y;
  y = x < splat(0.0f) ? splat(__builtin_nanf("")) : y;
  y = x == splat(__builtin_inff()) ? splat(0.0f) : y;
  return x == x ? y : x;
}

}  // namespace sb::optimized
