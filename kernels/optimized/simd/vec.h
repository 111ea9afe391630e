// The optimized kernels' SIMD vocabulary: GCC/Clang vector extensions, so one
// source serves every target. The width is chosen at build time from what the
// compiler may emit (the runtime's -march, config `cpu:`): 64 bytes with
// AVX-512, 32 with AVX/AVX2, otherwise 16 (SSE2 on x86-64, NEON on aarch64;
// on a core without a float SIMD unit, such as Cortex-M4, the compiler lowers
// the same code to scalar instructions).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#if defined(__AVX512F__) || defined(__AVX__)
#include <immintrin.h>
#endif

namespace sb::optimized {

#if defined(__AVX512F__)
constexpr size_t kVectorBytes = 64;
#elif defined(__AVX__)
constexpr size_t kVectorBytes = 32;
#else
constexpr size_t kVectorBytes = 16;
#endif

typedef float VecF __attribute__((vector_size(kVectorBytes)));
typedef int32_t VecI __attribute__((vector_size(kVectorBytes)));  // lane masks and float bit patterns
constexpr int64_t kLanes = static_cast<int64_t>(kVectorBytes / sizeof(float));

// Unaligned loads and stores: memcpy compiles to one vector move.
inline VecF load(const float* p) {
  VecF v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

inline void store(float* p, VecF v) { std::memcpy(p, &v, sizeof v); }

// x in every lane. x - 0 is x for every x, -0.0 included (0 + x would turn
// -0.0 into +0.0 and flip the sign of an infinity a -0.0 divisor gives), and
// folds to one broadcast (vbroadcastss / dup).
inline VecF splat(float x) { return x - VecF{}; }

// Lane-wise max/min with torch's NaN rule for clamp-like ops is the caller's
// business; these are the plain comparisons (a NaN in `a` yields `b`).
inline VecF vmax(VecF a, VecF b) { return a > b ? a : b; }
inline VecF vmin(VecF a, VecF b) { return a < b ? a : b; }

// A loop's tail: the first n (0 <= n <= kLanes) lanes at p. load_tail reads
// p[0, n) and gives zero in the lanes from n on; store_tail writes p[0, n).
// Nothing outside p[0, n) is read or written, so a tail may end at the end of
// a buffer. Every kernel's tail goes through these two: masked moves where the
// target has them (AVX-512, AVX), no memcpy call; elsewhere (SSE, NEON, no
// SIMD) a memcpy of n floats.
#if defined(__AVX512F__)
namespace vec_detail {
inline __mmask16 tail_mask(int64_t n) { return static_cast<__mmask16>((1u << n) - 1u); }
}  // namespace vec_detail
inline VecF load_tail(const float* p, int64_t n) { return (VecF)_mm512_maskz_loadu_ps(vec_detail::tail_mask(n), p); }
inline void store_tail(float* p, VecF v, int64_t n) { _mm512_mask_storeu_ps(p, vec_detail::tail_mask(n), (__m512)v); }
#elif defined(__AVX__)
namespace vec_detail {
inline __m256i tail_mask(int64_t n) {
  const VecI lane = {0, 1, 2, 3, 4, 5, 6, 7};
  return (__m256i)(lane < static_cast<int32_t>(n));
}
}  // namespace vec_detail
inline VecF load_tail(const float* p, int64_t n) { return (VecF)_mm256_maskload_ps(p, vec_detail::tail_mask(n)); }
inline void store_tail(float* p, VecF v, int64_t n) { _mm256_maskstore_ps(p, vec_detail::tail_mask(n), (__m256)v); }
#else
inline VecF load_tail(const float* p, int64_t n) {
  VecF v = {};
  std::memcpy(&v, p, static_cast<size_t>(n) * sizeof(float));
  return v;
}
inline void store_tail(float* p, VecF v, int64_t n) { std::memcpy(p, &v, static_cast<size_t>(n) * sizeof(float)); }
#endif

inline float reduce_add(VecF v) {
  float sum = 0.0f;
  for (int64_t i = 0; i < kLanes; ++i) sum += v[i];
  return sum;
}

inline float reduce_max(VecF v) {
  float m = v[0];
  for (int64_t i = 1; i < kLanes; ++i) m = v[i] > m ? v[i] : m;
  return m;
}

// y[i] = f(x[i]) for i < n; f takes and returns VecF. The tail runs on a
// zero-padded vector, so f must not trap on zero (no float op traps here).
// y may alias x.
template <typename F>
inline void map_unary_f32(const float* x, float* y, int64_t n, F f) {
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) store(y + i, f(load(x + i)));
  if (i < n) store_tail(y + i, f(load_tail(x + i, n - i)), n - i);
}

}  // namespace sb::optimized
