// The qs8 max pooling row kernel (qs8_maxpool.h): a portable version, and on x86-64 an AVX-512 one
// (masked 64-byte loads, so the short rows of small planes take no scalar remainder loops).
#include "xnnpack/microkernels/qs8_maxpool.h"

#include "xnnpack/microkernels/qs8_config.h"

#if defined(SB_QS8_X86_VARIANTS)
#include "xnnpack/microkernels/qs8_avx512.h"
#endif

namespace sb::xnnpack_nodes::qs8 {

void max_pool_row_scalar(const int8_t* x, const PoolGeometry& g, int64_t oy, int8_t* y) {
  const int64_t *k = g.kernel, *s = g.stride, *p = g.padding, *d = g.dilation;
  int8_t rows[kPoolRowBytes], cols[kPoolRowBytes];
  const int64_t width = (g.ow - 1) * s[1] + (k[1] - 1) * d[1] + 1;  // padded columns the windows cover
  for (int64_t u = 0; u < width; ++u) rows[u] = -128;
  // Columns [begin, end) of the padded row are the input's.
  const int64_t begin = p[1] < width ? p[1] : width, end = p[1] + g.w < width ? p[1] + g.w : width;
  for (int64_t ky = 0; ky < k[0]; ++ky) {
    const int64_t iy = oy * s[0] - p[0] + ky * d[0];
    if (iy < 0 || iy >= g.h) continue;
    const int8_t* row = x + iy * g.w;
    for (int64_t u = begin; u < end; ++u) rows[u] = row[u - p[1]] > rows[u] ? row[u - p[1]] : rows[u];
  }
  const int64_t starts = (g.ow - 1) * s[1] + 1;
  for (int64_t u = 0; u < starts; ++u) cols[u] = rows[u];
  for (int64_t kx = 1; kx < k[1]; ++kx) {
    const int8_t* shifted = rows + kx * d[1];
    for (int64_t u = 0; u < starts; ++u) cols[u] = shifted[u] > cols[u] ? shifted[u] : cols[u];
  }
  for (int64_t ox = 0; ox < g.ow; ++ox) {
    const int8_t best = cols[ox * s[1]];
    y[ox] = best < g.lo ? g.lo : best > g.hi ? g.hi : best;
  }
}

#if defined(SB_QS8_X86_VARIANTS)
namespace {

// Lanes [lo, hi) of 64 (empty when hi <= lo).
SB_QS8_AVX512VNNI inline __mmask64 lane_range(int64_t lo, int64_t hi) {
  lo = lo < 0 ? 0 : lo;
  hi = hi > 64 ? 64 : hi;
  if (hi <= lo) return 0;
  const __mmask64 below_hi = hi >= 64 ? ~__mmask64{0} : (__mmask64{1} << hi) - 1;
  return below_hi & ~((__mmask64{1} << lo) - 1);
}

}  // namespace

// 64 window starts at a time, each window's taps read straight from the input rows by masked loads
// (the lanes outside the row keep -128) and kept in one register; then the stride's pick (stride 2:
// the even bytes, by vpmovwb).
SB_QS8_AVX512VNNI void max_pool_row_avx512(const int8_t* x, const PoolGeometry& g, int64_t oy, int8_t* y) {
  const int64_t *k = g.kernel, *s = g.stride, *p = g.padding, *d = g.dilation;
  const int64_t starts = (g.ow - 1) * s[1] + 1;
  const __m512i floor = _mm512_set1_epi8(-128);
  const __m512i lo = _mm512_set1_epi8(g.lo), hi = _mm512_set1_epi8(g.hi);
  alignas(64) int8_t picked[64];
  for (int64_t u0 = 0; u0 < starts; u0 += 64) {
    __m512i best = floor;
    for (int64_t ky = 0; ky < k[0]; ++ky) {
      const int64_t iy = oy * s[0] - p[0] + ky * d[0];
      if (iy < 0 || iy >= g.h) continue;
      const int8_t* row = x + iy * g.w;
      for (int64_t kx = 0; kx < k[1]; ++kx) {
        const int64_t column = u0 + kx * d[1] - p[1];  // input column of lane 0
        const __mmask64 inside = lane_range(-column, g.w - column);
        if (inside == 0) continue;
        // Lanes outside [0, w) are masked off: not read.
        best = _mm512_mask_max_epi8(best, inside, best, _mm512_maskz_loadu_epi8(inside, row + column));
      }
    }
    best = _mm512_min_epi8(_mm512_max_epi8(best, lo), hi);
    if (s[1] == 1) {
      const int64_t n = g.ow - u0;
      _mm512_mask_storeu_epi8(y + u0, n >= 64 ? ~__mmask64{0} : (__mmask64{1} << n) - 1, best);
    } else if (s[1] == 2) {
      const int64_t ox = u0 / 2, n = g.ow - ox;
      const __m256i even = _mm512_maskz_cvtepi16_epi8(~__mmask32{0}, best);
      _mm256_mask_storeu_epi8(y + ox, n >= 32 ? ~__mmask32{0} : (__mmask32{1} << n) - 1, even);
    } else {
      _mm512_store_si512(picked, best);
      for (int64_t u = u0 % s[1] == 0 ? 0 : s[1] - u0 % s[1]; u < 64 && u0 + u < starts; u += s[1]) {
        y[(u0 + u) / s[1]] = picked[u];
      }
    }
  }
}
#endif

}  // namespace sb::xnnpack_nodes::qs8
