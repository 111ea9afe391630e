// AVX-512 helpers of the qs8 micro-kernels' x86-64 variants, each compiled for the variant's target
// (qs8_config.h) whatever the build's -march. Included only where SB_QS8_X86_VARIANTS is defined.
//
// (The zero-masking forms of some intrinsics below: GCC 12 warns of the unmasked ones' undefined
// pass-through operand.)
#pragma once

#include <immintrin.h>

#include <cstdint>
#include <cstring>

#include "xnnpack/microkernels/qs8_config.h"

namespace sb::xnnpack_nodes::qs8::avx512 {

SB_QS8_AVX512VNNI inline __mmask16 first_lanes(int64_t n) {
  return n >= 16 ? static_cast<__mmask16>(0xFFFF) : static_cast<__mmask16>((1u << n) - 1u);
}

// The requantization's constants in every lane.
struct Requantizer {
  __m512 lo, hi;
  __m512i zero_point;
};

SB_QS8_AVX512VNNI inline Requantizer requantizer(int32_t zero_point, int32_t qmin, int32_t qmax) {
  return Requantizer{_mm512_set1_ps(static_cast<float>(qmin - zero_point)),
                     _mm512_set1_ps(static_cast<float>(qmax - zero_point)), _mm512_set1_epi32(zero_point)};
}

// acc * multiplier clamped to [qmin - zp, qmax - zp], rounded to nearest even (cvtps2dq under the
// default rounding mode, as nearbyint), plus zp: the scalar rule lane by lane.
SB_QS8_AVX512VNNI inline __m128i requantize16(__m512i acc, __m512 multiplier, const Requantizer& r) {
  const __mmask16 all = 0xFFFF;
  __m512 v = _mm512_mul_ps(_mm512_maskz_cvtepi32_ps(all, acc), multiplier);
  v = _mm512_maskz_min_ps(all, _mm512_maskz_max_ps(all, v, r.lo), r.hi);
  return _mm512_maskz_cvtepi32_epi8(all, _mm512_add_epi32(_mm512_maskz_cvtps_epi32(all, v), r.zero_point));
}

// Where the `lanes` (<= 16) bytes of a vector of grid positions q0, q0 + 1, ... go in an image of
// rows of out_width, from a grid of rows of grid_width (>= out_width; the columns past out_width
// are dropped): one masked store per grid row the lanes cover, of the lanes shifted to its start.
// Worked out once per vector of positions, then applied to every channel's.
struct GridStores {
  int count;
  int64_t offset[17];  // into the channel's image
  __m128i shuffle[17];
  __mmask16 mask[17];
};

SB_QS8_AVX512VNNI inline void plan_grid_stores(int64_t q0, int64_t lanes, int64_t grid_width, int64_t out_width,
                                               GridStores* stores) {
  stores->count = 0;
  const __m128i iota = _mm_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  if (grid_width == out_width) {
    stores->offset[0] = q0;
    stores->shuffle[0] = iota;
    stores->mask[0] = first_lanes(lanes);
    stores->count = 1;
    return;
  }
  int64_t oy = q0 / grid_width, ox = q0 - oy * grid_width;
  for (int64_t l = 0; l < lanes; ++oy, ox = 0) {
    const int64_t run = grid_width - ox < lanes - l ? grid_width - ox : lanes - l;
    if (ox < out_width) {
      const int64_t n = run < out_width - ox ? run : out_width - ox;
      stores->offset[stores->count] = oy * out_width + ox;
      stores->shuffle[stores->count] = _mm_add_epi8(iota, _mm_set1_epi8(static_cast<char>(l)));
      stores->mask[stores->count] = first_lanes(n);
      ++stores->count;
    }
    l += run;
  }
}

SB_QS8_AVX512VNNI inline void store_grid(int8_t* out, __m128i v, const GridStores& stores) {
  for (int i = 0; i < stores.count; ++i) {
    _mm_mask_storeu_epi8(out + stores.offset[i], stores.mask[i], _mm_shuffle_epi8(v, stores.shuffle[i]));
  }
}

// acc + the u8 x s8 four-way dot products of a and b (vpdpbusd), and acc + the s16 x s16 two-way
// ones (vpdpwssd). Inline assembly rather than the intrinsics: GCC 12 does not tie the intrinsics'
// accumulator to their result, and copies it around every use (two register moves per instruction
// in the GEMM's inner loop, and spills).
SB_QS8_AVX512VNNI inline __m512i dpbusd(__m512i acc, __m512i a, __m512i b) {
  asm("vpdpbusd %2, %1, %0" : "+v"(acc) : "v"(a), "v"(b));
  return acc;
}

SB_QS8_AVX512VNNI inline __m512i dpwssd(__m512i acc, __m512i a, __m512i b) {
  asm("vpdpwssd %2, %1, %0" : "+v"(acc) : "v"(a), "v"(b));
  return acc;
}

SB_QS8_AVX512VNNI inline __m512i broadcast_step(const void* p) {
  int32_t v;
  memcpy(&v, p, 4);
  return _mm512_set1_epi32(v);
}

}  // namespace sb::xnnpack_nodes::qs8::avx512
