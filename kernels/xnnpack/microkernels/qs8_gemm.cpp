// The qs8 GEMM micro-kernels (qs8_gemm.h): a portable version, and on x86-64 an AVX512-VNNI one
// (vpdpbusd) compiled for that target alone and chosen at run time when the CPU has it.
#include "xnnpack/microkernels/qs8_gemm.h"

#include <cmath>
#include <cstring>

#include "xnnpack/microkernels/qs8_config.h"
#include "xnnpack/microkernels/qs8_requantize.h"

#if defined(SB_QS8_X86_VARIANTS)
#include "xnnpack/microkernels/qs8_avx512.h"
#endif

namespace sb::xnnpack_nodes::qs8 {
namespace {

// The portable kernels' tile: accumulators a compiler keeps in vector registers (int32 sums wrap,
// here unsigned, as the vector kernels' adds do), their inner loops running over the tile's lanes.
constexpr int64_t kPortableTile = 32;

}  // namespace

void positions_scalar(const uint8_t* x, const int32_t* step_offsets, int64_t steps, int64_t positions,
                      const int8_t* filter, int64_t rows, const int32_t* bias, const Requantized& y) {
  for (int64_t r = 0; r < rows; ++r) {
    int8_t* out = y.out + r * y.channel_stride;
    for (int64_t q0 = 0; q0 < positions; q0 += kPortableTile) {
      // The whole tile, positions past the last included: the packed activations hold them.
      uint32_t acc[kPortableTile];
      for (int64_t l = 0; l < kPortableTile; ++l) acc[l] = static_cast<uint32_t>(bias[r]);
      for (int64_t s = 0; s < steps; ++s) {
        const uint8_t* xs = x + step_offsets[s] + q0 * kStepDepth;
        const int8_t* w = filter + (s * kChannelBlock + r) * kStepDepth;
        const uint32_t w0 = static_cast<uint32_t>(w[0]), w1 = static_cast<uint32_t>(w[1]);
        const uint32_t w2 = static_cast<uint32_t>(w[2]), w3 = static_cast<uint32_t>(w[3]);
        // Each position's 4 bytes as one word (whole-word loads vectorise where byte gathers do not).
        uint32_t words[kPortableTile];
        memcpy(words, xs, sizeof words);
        for (int64_t l = 0; l < kPortableTile; ++l) {
          const uint32_t v = words[l];
          acc[l] += (v & 0xFF) * w0 + (v >> 8 & 0xFF) * w1 + (v >> 16 & 0xFF) * w2 + (v >> 24) * w3;
        }
      }
      const int64_t count = positions - q0 < kPortableTile ? positions - q0 : kPortableTile;
      int64_t oy = q0 / y.grid_width, ox = q0 - oy * y.grid_width;
      for (int64_t l = 0; l < count; ++l) {
        if (ox < y.out_width) {
          out[oy * y.out_width + ox] =
              requantize(static_cast<int32_t>(acc[l]), y.multipliers[r], y.zero_point, y.qmin, y.qmax);
        }
        if (++ox == y.grid_width) {
          ox = 0;
          ++oy;
        }
      }
    }
  }
}

void channels_scalar(const uint8_t* x, int64_t x_position_stride, const int32_t* step_offsets, int64_t steps,
                     int64_t positions, const int8_t* filter, int64_t channels, const int32_t* bias,
                     const Requantized& y) {
  for (int64_t q = 0; q < positions; ++q) {
    const uint8_t* xq = x + q * x_position_stride;
    for (int64_t c0 = 0; c0 < channels; c0 += kChannelBlock) {
      const int8_t* block = filter + c0 * steps * kStepDepth;
      uint32_t acc[kChannelBlock];  // rows past `channels` are zero filter rows, their sums unused
      for (int64_t l = 0; l < kChannelBlock; ++l) acc[l] = static_cast<uint32_t>(bias[c0 + l]);
      for (int64_t s = 0; s < steps; ++s) {
        const uint8_t* v = xq + step_offsets[s];
        const int32_t v0 = v[0], v1 = v[1], v2 = v[2], v3 = v[3];
        const int8_t* w = block + s * kChannelBlock * kStepDepth;
        for (int64_t l = 0; l < kChannelBlock; ++l) {
          const int8_t* wl = w + l * kStepDepth;
          acc[l] += static_cast<uint32_t>(v0 * wl[0] + v1 * wl[1] + v2 * wl[2] + v3 * wl[3]);
        }
      }
      for (int64_t l = 0; l < kChannelBlock && c0 + l < channels; ++l) {
        y.out[q * y.position_stride + (c0 + l) * y.channel_stride] =
            requantize(static_cast<int32_t>(acc[l]), y.multipliers[c0 + l], y.zero_point, y.qmin, y.qmax);
      }
    }
  }
}

#if defined(SB_QS8_X86_VARIANTS)
// Four filter rows by 8 positions: each step's 8 positions of 4 bytes widened to int16 (vpmovzxbw),
// times each row's 4 weights as int16 (vpmaddwd): two partial sums per position, added pairwise at
// the end (vphaddd).
SB_QS8_AVX2 void positions_avx2(const uint8_t* x, const int32_t* step_offsets, int64_t steps, int64_t positions,
                                const int8_t* filter, int64_t rows, const int32_t* bias, const Requantized& y) {
  constexpr int kRows = 4;
  const __m256 lo = _mm256_set1_ps(static_cast<float>(y.qmin - y.zero_point));
  const __m256 hi = _mm256_set1_ps(static_cast<float>(y.qmax - y.zero_point));
  const __m256i zero_point = _mm256_set1_epi32(y.zero_point);
  for (int64_t r0 = 0; r0 < rows; r0 += kRows) {
    for (int64_t q0 = 0; q0 < positions; q0 += 8) {
      __m256i acc[kRows][2];
      for (int r = 0; r < kRows; ++r) acc[r][0] = acc[r][1] = _mm256_setzero_si256();
      const uint8_t* xq = x + q0 * kStepDepth;
      for (int64_t s = 0; s < steps; ++s) {
        const uint8_t* xs = xq + step_offsets[s];
        const __m256i x0 = _mm256_cvtepu8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(xs)));
        const __m256i x1 = _mm256_cvtepu8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(xs + 16)));
        const int8_t* ws = filter + (s * kChannelBlock + r0) * kStepDepth;
        for (int r = 0; r < kRows; ++r) {
          int32_t word;
          memcpy(&word, ws + r * kStepDepth, 4);
          const __m256i w = _mm256_broadcastq_epi64(_mm_cvtepi8_epi16(_mm_cvtsi32_si128(word)));
          acc[r][0] = _mm256_add_epi32(acc[r][0], _mm256_madd_epi16(x0, w));
          acc[r][1] = _mm256_add_epi32(acc[r][1], _mm256_madd_epi16(x1, w));
        }
      }
      const int64_t count = positions - q0 < 8 ? positions - q0 : 8;
      for (int64_t r = 0; r < kRows && r0 + r < rows; ++r) {
        // Pairwise sums in order p0..p7 (vphaddd works within 128-bit lanes), plus the bias: wrapping.
        __m256i sums = _mm256_permute4x64_epi64(_mm256_hadd_epi32(acc[r][0], acc[r][1]), 0xD8);
        sums = _mm256_add_epi32(sums, _mm256_set1_epi32(bias[r0 + r]));
        __m256 v = _mm256_mul_ps(_mm256_cvtepi32_ps(sums), _mm256_set1_ps(y.multipliers[r0 + r]));
        v = _mm256_min_ps(_mm256_max_ps(v, lo), hi);
        const __m256i q = _mm256_add_epi32(_mm256_cvtps_epi32(v), zero_point);
        alignas(32) int32_t lanes[8];
        _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), q);
        int8_t* out = y.out + (r0 + r) * y.channel_stride;
        int64_t oy = q0 / y.grid_width, ox = q0 - oy * y.grid_width;
        for (int64_t l = 0; l < count; ++l) {
          if (ox < y.out_width) out[oy * y.out_width + ox] = static_cast<int8_t>(lanes[l]);
          if (++ox == y.grid_width) {
            ox = 0;
            ++oy;
          }
        }
      }
    }
  }
}

using avx512::broadcast_step;
using avx512::first_lanes;
using avx512::requantize16;

// Eight filter rows by 32 positions: 16 accumulators, each step two activation loads and eight
// broadcast filter steps.
SB_QS8_AVX512VNNI void positions_avx512vnni(const uint8_t* x, const int32_t* step_offsets, int64_t steps,
                                        int64_t positions, const int8_t* filter, int64_t rows, const int32_t* bias,
                                        const Requantized& y) {
  constexpr int kRows = 8;
  const avx512::Requantizer requantizer = avx512::requantizer(y.zero_point, y.qmin, y.qmax);
  // Output rows a whole number of vectors wide are computed vector by vector within the rows, the
  // grid's extra columns skipped; other grids run whole, the extra columns dropped at the stores.
  const int64_t vectors_per_row = y.out_width / 16;
  const bool by_rows = y.grid_width != y.out_width && y.out_width % 16 == 0;
  const int64_t vectors = by_rows ? positions / y.grid_width * vectors_per_row : (positions + 15) / 16;
  for (int64_t r0 = 0; r0 < rows; r0 += kRows) {
    const int8_t* half = filter + r0 * kStepDepth;
    const int64_t live_rows = rows - r0 < kRows ? rows - r0 : kRows;
    for (int64_t v0 = 0; v0 < vectors; v0 += 2) {
      const int halves = v0 + 1 < vectors ? 2 : 1;
      int64_t grid_at[2];  // each vector's first grid position
      avx512::GridStores stores[2];
      for (int t = 0; t < 2; ++t) {
        const int64_t v = t < halves ? v0 + t : v0;  // a lone last vector is computed twice, stored once
        if (by_rows) {
          const int64_t oy = v / vectors_per_row, ox = v % vectors_per_row * 16;
          grid_at[t] = oy * y.grid_width + ox;
          avx512::plan_grid_stores(oy * y.out_width + ox, 16, y.out_width, y.out_width, &stores[t]);
        } else {
          grid_at[t] = 16 * v;
          const int64_t left = positions - 16 * v;
          avx512::plan_grid_stores(16 * v, left < 16 ? left : 16, y.grid_width, y.out_width, &stores[t]);
        }
      }
      __m512i acc[kRows][2];
      for (int r = 0; r < kRows; ++r) acc[r][0] = acc[r][1] = _mm512_set1_epi32(bias[r0 + r]);
      const uint8_t* xa = x + grid_at[0] * kStepDepth;
      const uint8_t* xb = x + grid_at[1] * kStepDepth;
      for (int64_t s = 0; s < steps; ++s) {
        const __m512i x0 = _mm512_loadu_si512(xa + step_offsets[s]), x1 = _mm512_loadu_si512(xb + step_offsets[s]);
        const int8_t* ws = half + s * kChannelBlock * kStepDepth;
        for (int r = 0; r < kRows; ++r) {
          const __m512i w = broadcast_step(ws + r * kStepDepth);
          acc[r][0] = avx512::dpbusd(acc[r][0], x0, w);
          acc[r][1] = avx512::dpbusd(acc[r][1], x1, w);
        }
      }
      // Constant bounds, conditions inside: the accumulators stay in registers (an index bounded at run
      // time would keep them in memory).
      for (int r = 0; r < kRows; ++r) {
        if (r >= live_rows) break;
        const __m512 m = _mm512_set1_ps(y.multipliers[r0 + r]);
        int8_t* out = y.out + (r0 + r) * y.channel_stride;
        avx512::store_grid(out, requantize16(acc[r][0], m, requantizer), stores[0]);
        if (halves == 2) avx512::store_grid(out, requantize16(acc[r][1], m, requantizer), stores[1]);
      }
    }
  }
}

// One position by 16 output channels a block; four partial sums so four vpdpbusd are in flight.
SB_QS8_AVX512VNNI void channels_avx512vnni(const uint8_t* x, int64_t x_position_stride, const int32_t* step_offsets,
                                       int64_t steps, int64_t positions, const int8_t* filter, int64_t channels,
                                       const int32_t* bias, const Requantized& y) {
  const avx512::Requantizer requantizer = avx512::requantizer(y.zero_point, y.qmin, y.qmax);
  const int64_t block_bytes = steps * kChannelBlock * kStepDepth;
  for (int64_t q = 0; q < positions; ++q) {
    const uint8_t* xq = x + q * x_position_stride;
    for (int64_t c0 = 0; c0 < channels; c0 += kChannelBlock) {
      const int8_t* w = filter + c0 / kChannelBlock * block_bytes;
      __m512i a0 = _mm512_loadu_si512(bias + c0), a1 = _mm512_setzero_si512(), a2 = a1, a3 = a1;
      int64_t s = 0;
      for (; s + 4 <= steps; s += 4) {
        a0 = avx512::dpbusd(a0, broadcast_step(xq + step_offsets[s]), _mm512_loadu_si512(w + s * 64));
        a1 = avx512::dpbusd(a1, broadcast_step(xq + step_offsets[s + 1]), _mm512_loadu_si512(w + s * 64 + 64));
        a2 = avx512::dpbusd(a2, broadcast_step(xq + step_offsets[s + 2]), _mm512_loadu_si512(w + s * 64 + 128));
        a3 = avx512::dpbusd(a3, broadcast_step(xq + step_offsets[s + 3]), _mm512_loadu_si512(w + s * 64 + 192));
      }
      for (; s < steps; ++s) {
        a0 = avx512::dpbusd(a0, broadcast_step(xq + step_offsets[s]), _mm512_loadu_si512(w + s * 64));
      }
      const __m512i acc = _mm512_add_epi32(_mm512_add_epi32(a0, a1), _mm512_add_epi32(a2, a3));
      const int64_t live = channels - c0 < kChannelBlock ? channels - c0 : kChannelBlock;
      const __mmask16 mask = first_lanes(live);
      const __m512 m = _mm512_maskz_loadu_ps(mask, y.multipliers + c0);
      const __m128i v = requantize16(acc, m, requantizer);
      int8_t* out = y.out + q * y.position_stride + c0 * y.channel_stride;
      if (y.channel_stride == 1) {
        _mm_mask_storeu_epi8(out, mask, v);
      } else {
        alignas(16) int8_t lanes[16];
        _mm_store_si128(reinterpret_cast<__m128i*>(lanes), v);
        for (int64_t c = 0; c < live; ++c) out[c * y.channel_stride] = lanes[c];
      }
    }
  }
}
#endif

// ---- activations ---------------------------------------------------------------------------------------

void interleave_row_scalar(const int8_t* const* lanes, int64_t origin, int64_t sw, int64_t first, int64_t last,
                           uint8_t* image) {
  const int8_t *l0 = lanes[0], *l1 = lanes[1], *l2 = lanes[2], *l3 = lanes[3];
  for (int64_t j = first; j < last; ++j) {
    const int64_t col = j * sw + origin;
    image[4 * j] = static_cast<uint8_t>(l0[col] ^ 0x80);
    image[4 * j + 1] = static_cast<uint8_t>(l1[col] ^ 0x80);
    image[4 * j + 2] = static_cast<uint8_t>(l2[col] ^ 0x80);
    image[4 * j + 3] = static_cast<uint8_t>(l3[col] ^ 0x80);
  }
}

#if defined(SB_QS8_X86_VARIANTS)
// 16 positions at a time: four masked row loads (stride 2: the even bytes of 32, by vpmovwb),
// flipped, interleaved by bytes then words, one masked 64-byte store.
SB_QS8_AVX512VNNI void interleave_row_avx512(const int8_t* const* lanes, int64_t origin, int64_t sw, int64_t first,
                                             int64_t last, uint8_t* image) {
  if (sw > 2) {
    interleave_row_scalar(lanes, origin, sw, first, last, image);
    return;
  }
  if (sw == 1) {
    // 64 positions at a time: bytes then words interleaved within 128-bit lanes, then the lanes
    // transposed (vshufi32x4) so each 64-byte store holds 16 consecutive positions.
    const __m512i flip = _mm512_set1_epi8(static_cast<char>(0x80));
    const __mmask16 all = 0xFFFF;  // (zero-masking forms: GCC 12 warns of the unmasked ones)
    for (int64_t j = first; j < last; j += 64) {
      const int64_t n = last - j;
      const __mmask64 in = n >= 64 ? ~__mmask64{0} : (__mmask64{1} << n) - 1;
      __m512i r[4];
      for (int l = 0; l < 4; ++l) {
        r[l] = _mm512_xor_si512(_mm512_maskz_loadu_epi8(in, lanes[l] + j + origin), flip);
      }
      const __m512i lo01 = _mm512_unpacklo_epi8(r[0], r[1]), hi01 = _mm512_unpackhi_epi8(r[0], r[1]);
      const __m512i lo23 = _mm512_unpacklo_epi8(r[2], r[3]), hi23 = _mm512_unpackhi_epi8(r[2], r[3]);
      const __m512i b0 = _mm512_unpacklo_epi16(lo01, lo23), b1 = _mm512_unpackhi_epi16(lo01, lo23);
      const __m512i b2 = _mm512_unpacklo_epi16(hi01, hi23), b3 = _mm512_unpackhi_epi16(hi01, hi23);
      const __m512i t0 = _mm512_maskz_shuffle_i32x4(all, b0, b1, 0x44);
      const __m512i t1 = _mm512_maskz_shuffle_i32x4(all, b2, b3, 0x44);
      const __m512i t2 = _mm512_maskz_shuffle_i32x4(all, b0, b1, 0xEE);
      const __m512i t3 = _mm512_maskz_shuffle_i32x4(all, b2, b3, 0xEE);
      const __m512i out[4] = {
          _mm512_maskz_shuffle_i32x4(all, t0, t1, 0x88), _mm512_maskz_shuffle_i32x4(all, t0, t1, 0xDD),
          _mm512_maskz_shuffle_i32x4(all, t2, t3, 0x88), _mm512_maskz_shuffle_i32x4(all, t2, t3, 0xDD)};
      for (int k = 0; k < 4 && 16 * k < n; ++k) {
        const int64_t bytes = (n - 16 * k) * 4;
        const __mmask64 written = bytes >= 64 ? ~__mmask64{0} : (__mmask64{1} << bytes) - 1;
        _mm512_mask_storeu_epi8(image + 4 * (j + 16 * k), written, out[k]);
      }
    }
    return;
  }
  const __m128i flip = _mm_set1_epi8(static_cast<char>(0x80));
  for (int64_t j = first; j < last; j += 16) {
    const int64_t n = last - j < 16 ? last - j : 16;
    __m128i r[4];
    for (int l = 0; l < 4; ++l) {
      if (sw == 1) {
        r[l] = _mm_maskz_loadu_epi8(first_lanes(n), lanes[l] + j + origin);
      } else {
        // Bytes 2j + origin .. 2(j + n - 1) + origin: never past the row's last column read.
        const __mmask32 bytes = n >= 16 ? 0x7FFFFFFFu : static_cast<__mmask32>((1u << (2 * n - 1)) - 1u);
        r[l] = _mm256_maskz_cvtepi16_epi8(0xFFFF, _mm256_maskz_loadu_epi8(bytes, lanes[l] + 2 * j + origin));
      }
      r[l] = _mm_xor_si128(r[l], flip);
    }
    const __m128i lo01 = _mm_unpacklo_epi8(r[0], r[1]), hi01 = _mm_unpackhi_epi8(r[0], r[1]);
    const __m128i lo23 = _mm_unpacklo_epi8(r[2], r[3]), hi23 = _mm_unpackhi_epi8(r[2], r[3]);
    __m512i all = _mm512_inserti32x4(_mm512_setzero_si512(), _mm_unpacklo_epi16(lo01, lo23), 0);
    all = _mm512_inserti32x4(all, _mm_unpackhi_epi16(lo01, lo23), 1);
    all = _mm512_inserti32x4(all, _mm_unpacklo_epi16(hi01, hi23), 2);
    all = _mm512_inserti32x4(all, _mm_unpackhi_epi16(hi01, hi23), 3);
    const __mmask64 bytes = n >= 16 ? ~__mmask64{0} : (__mmask64{1} << (4 * n)) - 1;
    _mm512_mask_storeu_epi8(image + 4 * j, bytes, all);
  }
}
#endif

void pack_image(const int8_t* x, const ConvShape& s, int32_t zero_point, int8_t* pad_row, uint8_t* image) {
  memset(pad_row, static_cast<int8_t>(zero_point), static_cast<size_t>(s.w));
  const InterleaveRowKernel interleave_row = micro_kernels().interleave_row;
  const uint8_t pad = static_cast<uint8_t>(zero_point ^ 0x80);
  const int64_t hq = s.phase_h(), wq = s.phase_w(), quads = round_up(s.channels, kStepDepth) / kStepDepth;
  if (s.sh == 1 && s.sw == 1 && s.ph == 0 && s.pw == 0) {
    // No padding and one phase (a 1x1 convolution's): each plane is one run of positions. Channels
    // past the last (zero filter rows) read the quad's first plane.
    const int64_t plane = s.h * s.w;
    for (int64_t quad = 0; quad < quads; ++quad, image += plane * kStepDepth) {
      const int8_t* lanes[kStepDepth];
      for (int64_t l = 0; l < kStepDepth; ++l) {
        const int64_t c = quad * kStepDepth + l;
        lanes[l] = x + (c < s.channels ? c : quad * kStepDepth) * plane;
      }
      interleave_row(lanes, 0, 1, 0, plane, image);
    }
    memset(image, pad, static_cast<size_t>((wq + kPositionTile) * kStepDepth));
    return;
  }
  for (int64_t quad = 0; quad < quads; ++quad) {
    for (int64_t pr = 0; pr < s.sh; ++pr) {
      for (int64_t pc = 0; pc < s.sw; ++pc) {
        // Columns j of this phase read input column j * sw + pc - pw: [first, last) are inside.
        int64_t first = (s.pw - pc + s.sw - 1) / s.sw;
        first = first < 0 ? 0 : first > wq ? wq : first;
        int64_t last = (s.w + s.pw - pc + s.sw - 1) / s.sw;
        last = last < first ? first : last > wq ? wq : last;
        for (int64_t i = 0; i < hq; ++i, image += wq * kStepDepth) {
          const int64_t row = i * s.sh + pr - s.ph;
          const int8_t* lanes[kStepDepth];
          for (int64_t l = 0; l < kStepDepth; ++l) {
            const int64_t c = quad * kStepDepth + l;
            lanes[l] = c < s.channels && row >= 0 && row < s.h ? x + (c * s.h + row) * s.w : pad_row;
          }
          for (int64_t j = 0; j < first * kStepDepth; ++j) image[j] = pad;
          interleave_row(lanes, pc - s.pw, s.sw, first, last, image);
          for (int64_t j = last * kStepDepth; j < wq * kStepDepth; ++j) image[j] = pad;
        }
      }
    }
  }
  // The tail a tile reads past the last plane: defined bytes, whose results are discarded.
  memset(image, pad, static_cast<size_t>((wq + kPositionTile) * kStepDepth));
}

void conv_step_offsets(const ConvShape& s, int32_t* step_offsets) {
  const int64_t quads = round_up(s.channels, kStepDepth) / kStepDepth, wq = s.phase_w();
  const int64_t plane = s.phase_plane();
  for (int64_t quad = 0; quad < quads; ++quad) {
    for (int64_t ky = 0; ky < s.kh; ++ky) {
      for (int64_t kx = 0; kx < s.kw; ++kx) {
        const int64_t pr = ky * s.dh % s.sh, pc = kx * s.dw % s.sw;
        const int64_t phase = (quad * s.sh + pr) * s.sw + pc;
        const int64_t at = phase * plane + ky * s.dh / s.sh * wq + kx * s.dw / s.sw;
        *step_offsets++ = static_cast<int32_t>(at * kStepDepth);
      }
    }
  }
}

}  // namespace sb::xnnpack_nodes::qs8
