// The qs8 depthwise micro-kernel (qs8_dwconv.h): a portable version, and on x86-64 an AVX512-VNNI
// one (vpdpwssd) compiled for that target alone and chosen at run time (qs8_config.cpp).
#include "xnnpack/microkernels/qs8_dwconv.h"

#include <cstring>

#include "xnnpack/microkernels/qs8_config.h"
#include "xnnpack/microkernels/qs8_requantize.h"

#if defined(SB_QS8_X86_VARIANTS)
#include "xnnpack/microkernels/qs8_avx512.h"
#endif

namespace sb::xnnpack_nodes::qs8 {
namespace {

void tap_offsets(const ConvShape& s, int32_t* offsets) {
  const int64_t wq = s.phase_w(), plane = s.phase_plane();
  for (int64_t ky = 0; ky < s.kh; ++ky) {
    for (int64_t kx = 0; kx < s.kw; ++kx) {
      const int64_t phase = ky * s.dh % s.sh * s.sw + kx * s.dw % s.sw;
      offsets[ky * s.kw + kx] = static_cast<int32_t>(phase * plane + ky * s.dh / s.sh * wq + kx * s.dw / s.sw);
    }
  }
}

// Phase columns [first, last) of phase column `pc` that fall inside the input row.
void inside_columns(const ConvShape& s, int64_t pc, int64_t* first, int64_t* last) {
  const int64_t wq = s.phase_w();
  int64_t f = (s.pw - pc + s.sw - 1) / s.sw;
  f = f < 0 ? 0 : f > wq ? wq : f;
  int64_t l = (s.w + s.pw - pc + s.sw - 1) / s.sw;
  *first = f;
  *last = l < f ? f : l > wq ? wq : l;
}

// The phase-split planes of one input channel: only the positions inside the input are written,
// the padding around them keeping the zeros clear_plane put there for every channel of the call.
template <typename Widen>
void fill_plane(const int8_t* x_plane, const ConvShape& s, int32_t* plane, Widen widen) {
  const int64_t hq = s.phase_h(), wq = s.phase_w();
  int32_t* dst = plane;
  for (int64_t pr = 0; pr < s.sh; ++pr) {
    for (int64_t pc = 0; pc < s.sw; ++pc) {
      int64_t first = 0, last = 0;
      inside_columns(s, pc, &first, &last);
      for (int64_t i = 0; i < hq; ++i, dst += wq) {
        const int64_t row = i * s.sh + pr - s.ph;
        if (row >= 0 && row < s.h) widen(x_plane + row * s.w, pc - s.pw, first, last, dst);
      }
    }
  }
}

// Zeros the planes and the tail the last vectors read past the grid.
void clear_plane(const ConvShape& s, int32_t* plane) {
  memset(plane, 0, static_cast<size_t>(s.sh * s.sw * s.phase_plane() + s.phase_w() + 64) * 4);
}

}  // namespace

void depthwise_scalar(const DepthwiseImage& image, const ConvShape& s, int32_t* scratch) {
  const int64_t wq = s.phase_w(), taps = s.kh * s.kw, grid = s.grid_positions();
  const int64_t multiplier = image.out_channels / image.in_channels;
  int32_t* offsets = scratch;
  int32_t* plane = offsets + taps;
  uint32_t* acc = reinterpret_cast<uint32_t*>(plane + s.sh * s.sw * s.phase_plane() + wq + 64);
  tap_offsets(s, offsets);
  clear_plane(s, plane);
  const int32_t zx = image.input_zero_point;
  for (int64_t o = 0; o < image.out_channels; ++o) {
    if (o % multiplier == 0) {
      fill_plane(image.x + o / multiplier * s.h * s.w, s, plane,
                 [&](const int8_t* src, int64_t origin, int64_t first, int64_t last, int32_t* dst) {
                   for (int64_t j = first; j < last; ++j) dst[j] = src[j * s.sw + origin] - zx;
                 });
    }
    // Wrapping int32 sums (unsigned here), as the vector kernels' adds.
    const uint32_t bias = image.bias != nullptr ? static_cast<uint32_t>(image.bias[o]) : 0;
    for (int64_t q = 0; q < grid; ++q) acc[q] = bias;
    for (int64_t t = 0; t < taps; ++t) {
      const int32_t w = image.weights[t * image.out_channels + o];
      const int32_t* src = plane + offsets[t];
      for (int64_t q = 0; q < grid; ++q) acc[q] += static_cast<uint32_t>(w * src[q]);
    }
    int8_t* y = image.out + o * s.oh * s.ow;
    for (int64_t oy = 0; oy < s.oh; ++oy) {
      for (int64_t ox = 0; ox < s.ow; ++ox) {
        const int32_t sum = static_cast<int32_t>(acc[oy * wq + ox]);
        y[oy * s.ow + ox] = requantize(sum, image.multipliers[o], image.output_zero_point, image.qmin, image.qmax);
      }
    }
  }
}

#if defined(SB_QS8_X86_VARIANTS)
namespace {

using avx512::first_lanes;

// Phase columns [first, last) of one input row, widened to int32 minus the zero point, 16 at a time
// for stride 1 (stride 2 goes through split_rows_by_column_parity).
SB_QS8_AVX512VNNI __attribute__((always_inline)) inline void widen_row(const int8_t* src, int64_t sw, int64_t origin,
                                                                       int64_t first, int64_t last, int32_t zp,
                                                                       int32_t* dst) {
  const __m512i zero_point = _mm512_set1_epi32(zp);
  if (sw == 1) {
    for (int64_t j = first; j < last; j += 16) {
      const __mmask16 m = first_lanes(last - j);
      const __m512i v = _mm512_maskz_cvtepi8_epi32(m, _mm_maskz_loadu_epi8(m, src + j + origin));
      _mm512_mask_storeu_epi32(dst + j, m, _mm512_sub_epi32(v, zero_point));
    }
  } else {
    for (int64_t j = first; j < last; ++j) dst[j] = src[j * sw + origin] - zp;
  }
}

}  // namespace

// The taps accumulate in registers, 32 grid positions at a time: vpdpwssd of the int32 plane (its
// high int16 times 0) by (w, 0) pairs adds x * w exactly.
namespace {

// Lanes over 16 channels: each output position sums its in-bound taps only, from the image
// transposed to [position][channel] (x - zero point as int32, whose high int16 vpdpwssd multiplies
// by 0).
SB_QS8_AVX512VNNI void depthwise_channels_avx512vnni(const DepthwiseImage& image, const ConvShape& s,
                                                     int32_t* transposed) {
  const int64_t channels = image.out_channels, plane = s.h * s.w, n = s.oh * s.ow;
  for (int64_t c = 0; c < channels; ++c) {
    const int8_t* x = image.x + c * plane;
    for (int64_t p = 0; p < plane; ++p) transposed[p * channels + c] = x[p] - image.input_zero_point;
  }
  const avx512::Requantizer requantizer = avx512::requantizer(image.output_zero_point, image.qmin, image.qmax);
  const __m512i low_halves = _mm512_set1_epi32(0xFFFF);
  alignas(16) int8_t lanes[16];
  for (int64_t oy = 0; oy < s.oh; ++oy) {
    for (int64_t ox = 0; ox < s.ow; ++ox) {
      for (int64_t c0 = 0; c0 < channels; c0 += 16) {
        const __mmask16 live = avx512::first_lanes(channels - c0);
        __m512i acc = image.bias != nullptr ? _mm512_maskz_loadu_epi32(live, image.bias + c0) : _mm512_setzero_si512();
        for (int64_t ky = 0; ky < s.kh; ++ky) {
          const int64_t iy = oy * s.sh - s.ph + ky * s.dh;
          if (iy < 0 || iy >= s.h) continue;
          for (int64_t kx = 0; kx < s.kw; ++kx) {
            const int64_t ix = ox * s.sw - s.pw + kx * s.dw;
            if (ix < 0 || ix >= s.w) continue;
            const __m128i tap = _mm_maskz_loadu_epi8(live, image.weights + (ky * s.kw + kx) * channels + c0);
            const __m512i w = _mm512_and_si512(_mm512_maskz_cvtepi8_epi32(live, tap), low_halves);
            const __m512i v = _mm512_maskz_loadu_epi32(live, transposed + (iy * s.w + ix) * channels + c0);
            acc = avx512::dpwssd(acc, v, w);
          }
        }
        const __m512 m = _mm512_maskz_loadu_ps(live, image.multipliers + c0);
        const __m128i q = avx512::requantize16(acc, m, requantizer);
        int8_t* y = image.out + c0 * n + oy * s.ow + ox;
        if (n == 1) {
          _mm_mask_storeu_epi8(y, live, q);
        } else {
          _mm_store_si128(reinterpret_cast<__m128i*>(lanes), q);
          for (int64_t c = 0; c < 16 && c0 + c < channels; ++c) y[c * n] = lanes[c];
        }
      }
    }
  }
}

// The phase-split plane of a stride-2 (in columns) depthwise input: each input row read once, 32
// bytes at a time as int16 pairs (even column, odd column), the even columns to one column phase and
// the odd ones to the other (the padding's parity decides which, and where they start).
SB_QS8_AVX512VNNI void split_rows_by_column_parity(const int8_t* x_plane, const ConvShape& s, int32_t zp,
                                                   int32_t* plane) {
  const int64_t wq = s.phase_w(), phase_plane = s.phase_plane();
  const __m512i zero_point = _mm512_set1_epi32(zp);
  const __mmask16 all = 0xFFFF;
  // Input column c sits in column phase (c + pw) % 2, at phase column (c + pw) / 2.
  const int64_t even_phase = s.pw % 2, odd_phase = (s.pw + 1) % 2;
  const int64_t even_at = s.pw / 2, odd_at = (s.pw + 1) / 2;
  for (int64_t row = 0; row < s.h; ++row) {
    const int64_t padded = row + s.ph, pr = padded % s.sh, i = padded / s.sh;
    int32_t* even_dst = plane + (pr * 2 + even_phase) * phase_plane + i * wq + even_at;
    int32_t* odd_dst = plane + (pr * 2 + odd_phase) * phase_plane + i * wq + odd_at;
    const int8_t* src = x_plane + row * s.w;
    for (int64_t c = 0; c < s.w; c += 32) {
      const int64_t n = s.w - c;  // columns left
      const __mmask32 bytes = n >= 32 ? ~__mmask32{0} : (__mmask32{1} << n) - 1;
      const __m512i pairs = _mm512_maskz_cvtepi8_epi16(~__mmask32{0}, _mm256_maskz_loadu_epi8(bytes, src + c));
      const __m512i even = _mm512_maskz_srai_epi32(all, _mm512_maskz_slli_epi32(all, pairs, 16), 16);
      const __m512i odd = _mm512_maskz_srai_epi32(all, pairs, 16);
      const int64_t evens = (n + 1) / 2, odds = n / 2;  // of the columns left
      _mm512_mask_storeu_epi32(even_dst + c / 2, first_lanes(evens), _mm512_sub_epi32(even, zero_point));
      if (odds > 0) _mm512_mask_storeu_epi32(odd_dst + c / 2, first_lanes(odds), _mm512_sub_epi32(odd, zero_point));
    }
  }
}

// acc[v] = bias + the taps over the 16 grid positions from base + v * stride, v < kVectors. Each vector
// keeps two partial sums (even and odd taps) so that twice as many vpdpwssd are in flight.
template <int kVectors>
SB_QS8_AVX512VNNI __attribute__((always_inline)) inline void accumulate_taps(const int32_t* base, int64_t stride,
                                                                             const int32_t* offsets,
                                                                             const int32_t* tap_pairs, int64_t taps,
                                                                             __m512i bias, __m512i* acc) {
  __m512i even[kVectors], odd[kVectors];
  for (int v = 0; v < kVectors; ++v) {
    even[v] = bias;
    odd[v] = _mm512_setzero_si512();
  }
  int64_t t = 0;
  for (; t + 2 <= taps; t += 2) {
    const int32_t* s0 = base + offsets[t];
    const int32_t* s1 = base + offsets[t + 1];
    const __m512i w0 = _mm512_set1_epi32(tap_pairs[t]), w1 = _mm512_set1_epi32(tap_pairs[t + 1]);
    for (int v = 0; v < kVectors; ++v) {
      even[v] = avx512::dpwssd(even[v], _mm512_loadu_si512(s0 + v * stride), w0);
      odd[v] = avx512::dpwssd(odd[v], _mm512_loadu_si512(s1 + v * stride), w1);
    }
  }
  if (t < taps) {
    const int32_t* s0 = base + offsets[t];
    const __m512i w0 = _mm512_set1_epi32(tap_pairs[t]);
    for (int v = 0; v < kVectors; ++v) even[v] = avx512::dpwssd(even[v], _mm512_loadu_si512(s0 + v * stride), w0);
  }
  for (int v = 0; v < kVectors; ++v) acc[v] = _mm512_add_epi32(even[v], odd[v]);
}

}  // namespace

SB_QS8_AVX512VNNI void depthwise_avx512vnni(const DepthwiseImage& image, const ConvShape& s, int32_t* scratch) {
  if (depthwise_by_channels(s) && image.out_channels == image.in_channels) {
    depthwise_channels_avx512vnni(image, s, scratch + depthwise_scratch_words(s, 0));
    return;
  }
  const int64_t hq = s.phase_h(), wq = s.phase_w(), taps = s.kh * s.kw, grid = s.grid_positions();
  const int64_t ow = s.ow, oh = s.oh, multiplier = image.out_channels / image.in_channels;
  int32_t* offsets = scratch;
  int32_t* plane = offsets + taps;
  // Each tap's weight as the int16 pair (w, 0) vpdpwssd multiplies a plane's int32 by.
  int32_t* tap_pairs = plane + s.sh * s.sw * s.phase_plane() + wq + 64;
  tap_offsets(s, offsets);
  clear_plane(s, plane);
  const avx512::Requantizer requantizer =
      avx512::requantizer(image.output_zero_point, image.qmin, image.qmax);
  const int32_t zx = image.input_zero_point;
  // Every channel stores its grid alike: the first vectors' stores worked out once.
  constexpr int64_t kPlannedVectors = 32;
  avx512::GridStores planned[kPlannedVectors];
  for (int64_t vector = 0; vector < kPlannedVectors && 16 * vector < grid; ++vector) {
    const int64_t lanes = grid - 16 * vector < 16 ? grid - 16 * vector : 16;
    avx512::plan_grid_stores(16 * vector, lanes, wq, ow, &planned[vector]);
  }
  for (int64_t o = 0; o < image.out_channels; ++o) {
    if (o % multiplier == 0) {
      // fill_plane, with the vector widening (a lambda would not carry this function's target).
      const int8_t* x_plane = image.x + o / multiplier * s.h * s.w;
      if (s.sw == 2) {
        split_rows_by_column_parity(x_plane, s, zx, plane);
      } else {
        int32_t* dst = plane;
        for (int64_t pr = 0; pr < s.sh; ++pr) {
          for (int64_t pc = 0; pc < s.sw; ++pc) {
            int64_t first = 0, last = 0;
            inside_columns(s, pc, &first, &last);
            for (int64_t i = 0; i < hq; ++i, dst += wq) {
              const int64_t row = i * s.sh + pr - s.ph;
              if (row >= 0 && row < s.h) widen_row(x_plane + row * s.w, s.sw, pc - s.pw, first, last, zx, dst);
            }
          }
        }
      }
    }

    int8_t* y = image.out + o * oh * ow;
    const __m512 m = _mm512_set1_ps(image.multipliers[o]);
    const __m512i bias = _mm512_set1_epi32(image.bias != nullptr ? image.bias[o] : 0);
    for (int64_t t = 0; t < taps; ++t) tap_pairs[t] = image.weights[t * image.out_channels + o] & 0xFFFF;
    if (ow == 16 && wq != ow) {
      // Output rows of one vector: four rows at a time, the grid's extra columns skipped.
      for (int64_t oy = 0; oy < oh; oy += 4) {
        const int64_t left = oh - oy;
        __m512i acc[4] = {};
        const int32_t* base = plane + oy * wq;
        if (left >= 4) {
          accumulate_taps<4>(base, wq, offsets, tap_pairs, taps, bias, acc);
        } else if (left >= 2) {
          accumulate_taps<2>(base, wq, offsets, tap_pairs, taps, bias, acc);
        } else {
          accumulate_taps<1>(base, wq, offsets, tap_pairs, taps, bias, acc);
        }
        for (int v = 0; v < 4 && v < left; ++v) {
          _mm_storeu_si128(reinterpret_cast<__m128i*>(y + (oy + v) * 16), avx512::requantize16(acc[v], m, requantizer));
        }
      }
      continue;
    }
    for (int64_t q0 = 0; q0 < grid; q0 += 64) {
      const int64_t left = grid - q0;
      __m512i acc[4] = {};
      const int32_t* base = plane + q0;
      if (left > 32) {
        accumulate_taps<4>(base, 16, offsets, tap_pairs, taps, bias, acc);
      } else if (left > 16) {
        accumulate_taps<2>(base, 16, offsets, tap_pairs, taps, bias, acc);
      } else {
        accumulate_taps<1>(base, 16, offsets, tap_pairs, taps, bias, acc);
      }
      for (int v = 0; v < 4 && 16 * v < left; ++v) {
        const int64_t vector = q0 / 16 + v;
        const __m128i q = avx512::requantize16(acc[v], m, requantizer);
        if (vector < kPlannedVectors) {
          avx512::store_grid(y, q, planned[vector]);
        } else {
          avx512::GridStores stores;
          avx512::plan_grid_stores(16 * vector, left - 16 * v < 16 ? left - 16 * v : 16, wq, ow, &stores);
          avx512::store_grid(y, q, stores);
        }
      }
    }
  }
}
#endif

}  // namespace sb::xnnpack_nodes::qs8
