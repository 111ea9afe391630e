// The qs8 max pooling row kernel (qs8_maxpool.h): a portable version, and on x86-64 an AVX-512 one
// (masked 64-byte rows, so the short rows of small planes take no scalar remainder loops).
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
SB_QS8_AVX512VNNI void max_pool_row_avx512(const int8_t* x, const PoolGeometry& g, int64_t oy, int8_t* y) {
  const int64_t *k = g.kernel, *s = g.stride, *p = g.padding, *d = g.dilation;
  // 64 bytes of slack: every pass reads and writes whole vectors, the lanes past the row -128.
  alignas(64) int8_t rows[kPoolRowBytes + 128], cols[kPoolRowBytes + 128];
  const int64_t width = (g.ow - 1) * s[1] + (k[1] - 1) * d[1] + 1;
  const __m512i floor = _mm512_set1_epi8(-128);
  for (int64_t u = 0; u < width + 64; u += 64) _mm512_store_si512(rows + u, floor);
  const int64_t begin = p[1] < width ? p[1] : width, end = p[1] + g.w < width ? p[1] + g.w : width;
  for (int64_t ky = 0; ky < k[0]; ++ky) {
    const int64_t iy = oy * s[0] - p[0] + ky * d[0];
    if (iy < 0 || iy >= g.h) continue;
    const int8_t* row = x + iy * g.w;
    for (int64_t u = begin; u < end; u += 64) {
      const int64_t n = end - u;
      const __mmask64 m = n >= 64 ? ~__mmask64{0} : (__mmask64{1} << n) - 1;
      const __m512i current = _mm512_loadu_si512(rows + u);
      const __m512i v = _mm512_maskz_loadu_epi8(m, row + (u - p[1]));
      _mm512_storeu_si512(rows + u, _mm512_mask_max_epi8(current, m, current, v));
    }
  }
  const int64_t starts = (g.ow - 1) * s[1] + 1;
  for (int64_t u = 0; u < starts; u += 64) {
    __m512i c = _mm512_load_si512(rows + u);
    for (int64_t kx = 1; kx < k[1]; ++kx) c = _mm512_max_epi8(c, _mm512_loadu_si512(rows + u + kx * d[1]));
    _mm512_store_si512(cols + u, c);
  }
  const __m256i lo = _mm256_set1_epi8(g.lo), hi = _mm256_set1_epi8(g.hi);
  if (s[1] == 2) {
    // Even bytes of 64: the low bytes of 32 int16 (vpmovwb).
    for (int64_t ox = 0; ox < g.ow; ox += 32) {
      const int64_t n = g.ow - ox;
      const __mmask32 m = n >= 32 ? ~__mmask32{0} : (__mmask32{1} << n) - 1;
      const __m256i even = _mm512_maskz_cvtepi16_epi8(~__mmask32{0}, _mm512_load_si512(cols + 2 * ox));
      _mm256_mask_storeu_epi8(y + ox, m, _mm256_min_epi8(_mm256_max_epi8(even, lo), hi));
    }
    return;
  }
  for (int64_t ox = 0; ox < g.ow; ++ox) {
    const int8_t best = cols[ox * s[1]];
    y[ox] = best < g.lo ? g.lo : best > g.hi ? g.hi : best;
  }
}
#endif

}  // namespace sb::xnnpack_nodes::qs8
