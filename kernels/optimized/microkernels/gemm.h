// fp32 GEMM for the optimized kernels: C[M x N] = A[M x K] * B[K x N] (+ bias),
// all row-major with leading dimensions, no heap.
//
// Register-blocked micro-kernels (up to kGemmMR rows of A broadcast against
// 1, 2 or 4 vectors of B columns) written with the vector extensions of
// optimized/simd/vec.h: one K loop per tile shape, M's remainder taken by a
// ladder of smaller row counts, N's last tile by lane masks, so a handful
// of shapes serves every size. The columns are walked tile by tile; each
// tile's B panel (at most kGemmKC rows) is read straight from B when B is a
// row-major matrix, through a table of row offsets (convolution's shifted
// input rows), or packed into a fixed stack buffer of kGemmScratchBytes by a
// PanelPacker (convolution's im2col panels; zero padding happens while
// packing). A is read in place. C is stored from the registers (masked on
// the last tile), or through a column map (convolution's padded rows into
// the output rows) by one shared out-of-line store.
//
// gemm_f32 with at most half a vector of columns (pointwise convolutions
// over tiny planes) takes dot products along K instead: B's few columns
// copied into rows, whole vectors of K.
//
// Given a pool (sb/thread_pool.h), a GEMM of at least kParallelMinFmas
// splits C into blocks of whole column tiles (or, when the columns are few,
// whole row blocks), the split set by the shape alone. Every element of C is
// the same chain of FMAs whichever block and thread computes it (the K
// blocking is fixed by the whole GEMM's tile width), so results do not depend
// on the thread count.
#pragma once

#include <cstdint>

#include "optimized/simd/vec.h"
#include "sb/thread_pool.h"

#if defined(__AVX512F__) || defined(__AVX2__) || (defined(__AVX__) && defined(__FMA__))
#include <immintrin.h>
#elif defined(__aarch64__) && defined(__ARM_NEON)
#include <arm_neon.h>
#endif

namespace sb::optimized {

// Tile shape per target: MR rows x NV vectors of accumulators in registers.
#if defined(__AVX512F__) || defined(__aarch64__)
constexpr int kGemmMR = 8;  // 16 accumulators of 32 registers
#elif defined(__AVX__)
constexpr int kGemmMR = 6;  // 12 accumulators of 16 registers
#else
constexpr int kGemmMR = 4;
#endif
constexpr int kGemmNV = 2;
constexpr int64_t kGemmNR = kGemmNV * kLanes;

// Stack scratch per GEMM call (one packed B panel): kGemmKC rows of kGemmNR
// floats. 24 KiB, so that with a panel packer's own tables (convolution:
// about 3.5 KiB) and the tiles' frames (a store plan, a 1 KiB accumulator
// spill) a kernel call stays within 32 KiB of stack.
constexpr int64_t kGemmScratchBytes = 24 * 1024;
constexpr int64_t kGemmKC = kGemmScratchBytes / (kGemmNR * static_cast<int64_t>(sizeof(float)));

// A parallel GEMM's blocks: at most kGemmMaxBlocks (enough for 2 to 4 threads
// to share evenly when blocks take unequal time), none under
// kGemmMinBlockFmas (a block must outweigh handing it over). Convolution's
// bands split by the same rule.
constexpr int64_t kGemmMaxBlocks = 12;
constexpr int64_t kGemmMinBlockFmas = static_cast<int64_t>(kParallelMinFmas / 4);

// Writes B[k0 .. k0+kc) x [j0 .. j0+nr) (nr <= width) into dst as kc rows of
// `width` floats, columns nr .. width-1 zero.
struct PanelPacker {
  void (*pack)(const void* ctx, int64_t k0, int64_t kc, int64_t j0, int64_t nr, int64_t width, float* dst);
  const void* ctx;
};

// What goes into C once the product is formed: nothing, a per-row bias
// (convolution: per output channel) or a per-column bias (linear/addmm).
struct GemmBias {
  const float* row = nullptr;  // M values, or null
  const float* col = nullptr;  // N values, or null
};

// Where column j of C goes: j = q * period + x lands at q * valid + x when
// x < valid, and nowhere otherwise (convolution's padded-width rows written
// straight into the output rows). The default keeps every column in place.
struct ColumnMap {
  int64_t period = INT64_MAX;
  int64_t valid = INT64_MAX;
};

// C = A * B + bias, B a row-major matrix with leading dimension ldb.
void gemm_f32(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const float* b, int64_t ldb, float* c,
              int64_t ldc, GemmBias bias = {}, ThreadPool* pool = nullptr);

// C = A * B + bias, B given by panels the packer writes (at most kGemmNR
// columns wide).
void gemm_f32_packed(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, PanelPacker packer, float* c,
                     int64_t ldc, GemmBias bias = {}, ThreadPool* pool = nullptr);

// C = A * B + bias where B's row p is b + offsets[p] .. (a row-major B whose
// rows sit anywhere: convolution's shifted input rows), C's columns placed
// by `map`. Every tile reads whole kGemmNR-column rows: b + offsets[p] + j
// must be readable for every j < n rounded up to kGemmNR (columns past n are
// computed, not stored). No K blocking: the caller keeps k small enough for
// B to stay in cache. bias.col is not supported here. Single-threaded: its
// caller (convolution's bands) splits the rows of C itself.
void gemm_f32_offsets(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const float* b,
                      const int32_t* offsets, float* c, int64_t ldc, const float* row_bias, ColumnMap map);

// a * b + c, fused where the target has FMA (the build's -std=c++17 does not
// contract a * b + c by itself).
inline VecF gemm_fma(VecF a, VecF b, VecF c) {
#if defined(__AVX512F__)
  return (VecF)_mm512_fmadd_ps((__m512)a, (__m512)b, (__m512)c);
#elif defined(__AVX__) && defined(__FMA__)
  return (VecF)_mm256_fmadd_ps((__m256)a, (__m256)b, (__m256)c);
#elif defined(__aarch64__) && defined(__ARM_NEON)
  return (VecF)vfmaq_f32((float32x4_t)c, (float32x4_t)a, (float32x4_t)b);
#else
  return a * b + c;
#endif
}

// Lane masks as bits (lane l = bit l): the first n (0 .. kLanes) lanes.
inline uint32_t lane_mask(int64_t n) { return (uint32_t{1} << n) - 1u; }

// p + off floats as an address only: with a mask, lanes before the row's
// start may be named but are never touched.
inline float* shifted(float* p, int64_t off) {
  return reinterpret_cast<float*>(reinterpret_cast<uintptr_t>(p) + static_cast<uintptr_t>(off * 4));
}

// The lanes of `mask` at p (the rest read as zero / are left alone); lanes
// outside the mask are neither read nor written, even where p + lane is
// outside any object.
inline VecF load_mask(const float* p, uint32_t mask) {
#if defined(__AVX512F__)
  return (VecF)_mm512_maskz_loadu_ps(static_cast<__mmask16>(mask), p);
#elif defined(__AVX2__)
  const __m256i bits = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
  const __m256i m = _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_set1_epi32(static_cast<int>(mask)), bits), bits);
  return (VecF)_mm256_maskload_ps(p, m);
#else
  if (mask == lane_mask(kLanes)) return load(p);
  VecF v = {};
  const uintptr_t at = reinterpret_cast<uintptr_t>(p);
  for (int64_t l = 0; l < kLanes; ++l) {
    if ((mask >> l) & 1u) v[l] = *reinterpret_cast<const float*>(at + static_cast<uintptr_t>(l * 4));
  }
  return v;
#endif
}

inline void store_mask(float* p, VecF v, uint32_t mask) {
#if defined(__AVX512F__)
  _mm512_mask_storeu_ps(p, static_cast<__mmask16>(mask), (__m512)v);
#elif defined(__AVX2__)
  const __m256i bits = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
  const __m256i m = _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_set1_epi32(static_cast<int>(mask)), bits), bits);
  _mm256_maskstore_ps(p, m, (__m256)v);
#else
  if (mask == lane_mask(kLanes)) {
    store(p, v);
    return;
  }
  const uintptr_t at = reinterpret_cast<uintptr_t>(p);
  for (int64_t l = 0; l < kLanes; ++l) {
    if ((mask >> l) & 1u) *reinterpret_cast<float*>(at + static_cast<uintptr_t>(l * 4)) = v[l];
  }
#endif
}

// Whether gather_lanes is one instruction (else lane by lane: panel packers that would gather take
// another way).
#if defined(__AVX512F__) || defined(__AVX2__)
constexpr bool kVectorGathers = true;
#else
constexpr bool kVectorGathers = false;
#endif

// Lane l = base[at[l]], or 0 where at[l] is negative (that lane is not read).
inline VecF gather_lanes(const float* base, VecI at) {
#if defined(__AVX512F__)
  const __m512i idx = (__m512i)at;
  return (VecF)_mm512_mask_i32gather_ps(_mm512_setzero_ps(), _mm512_cmpge_epi32_mask(idx, _mm512_setzero_si512()), idx,
                                        base, 4);
#elif defined(__AVX2__)
  const __m256i idx = (__m256i)at;
  const __m256 keep = _mm256_castsi256_ps(_mm256_cmpgt_epi32(idx, _mm256_set1_epi32(-1)));
  return (VecF)_mm256_mask_i32gather_ps(_mm256_setzero_ps(), base, idx, keep, 4);
#else
  VecF v = {};
  for (int64_t l = 0; l < kLanes; ++l) {
    if (at[l] >= 0) v[l] = base[at[l]];
  }
  return v;
#endif
}

// dst[0 .. n) = src[0 .. n) / = 0, for the short runs panel packers move:
// whole vectors, then one masked (AVX-512, AVX2) or partial tail; nothing
// outside [0, n) is read or written. (Masked moves keep the compiler from
// turning the loop into a memcpy/memset call, which costs more than these
// runs of a few vectors.)
inline void copy_floats(float* dst, const float* src, int64_t n) {
  for (int64_t i = 0; i < n; i += kLanes) {
    if (n - i >= kLanes) {
      store(dst + i, load(src + i));
    } else {
      store_tail(dst + i, load_tail(src + i, n - i), n - i);
    }
  }
}

inline void zero_floats(float* dst, int64_t n) {
  for (int64_t i = 0; i < n; i += kLanes) {
    if (n - i >= kLanes) {
      store(dst + i, VecF{});
    } else {
      store_tail(dst + i, VecF{}, n - i);
    }
  }
}

}  // namespace sb::optimized
