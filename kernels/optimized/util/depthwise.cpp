// Depthwise convolution, fp32 NCHW, vectorised over output width.
//
// Each input row a channel plane needs is copied once into a stack ring of
// kernel_h row slots, split by the width stride into `stride_w` phases
// (phase p holds input columns base + p, base + p + s, ...) and padded with
// zeros on both sides. Every tap (ki, kj) of an output row is then a
// contiguous run of one slot's phase, so the inner loop is plain vector loads
// and multiply-adds with no bounds checks: the zero padding is the border
// region, rows above or below the input read a zero slot. Rows wider than the
// ring allows are done in column tiles.
//
// Small planes (at most four vectors of outputs per row, the plane within the
// scratch) go whole instead: the padded plane split by both strides, so each
// tap is one vector run over the output plane laid on a grid a few columns
// wider than the output (see depthwise_planes); short rows then fill whole
// vectors and the per-row overhead goes. 3x3 and 5x5 have unrolled tap loops.
#include "optimized/util/depthwise.h"

#include <cstring>
#include <initializer_list>

#include "optimized/util/pool_rows.h"
#include "optimized/util/vec.h"

#if defined(__AVX512F__) || (defined(__AVX__) && defined(__FMA__))
#include <immintrin.h>
#elif defined(__aarch64__)
#include <arm_neon.h>
#endif

namespace sb::optimized {
namespace {

// Stack scratch per call, all told under 32 KiB: the row ring, the weight splats, the tap pointers.
constexpr int64_t kRingBytes = 24 * 1024;
constexpr int64_t kRingFloats = kRingBytes / static_cast<int64_t>(sizeof(float));
constexpr int64_t kMaxTaps = 49;      // kernel_h * kernel_w (7x7); 49 splats are at most 3 KiB
constexpr int64_t kMaxStep = 1 << 12;  // stride, dilation
constexpr int64_t kMaxPad = int64_t{1} << 40;
// Rows at most this wide (outputs) go through the whole-plane path when the plane fits the scratch.
constexpr int64_t kPlaneMaxOutW = 4 * kLanes;
constexpr int64_t kMaxStepPlane = 8;  // column stride on the whole-plane path
static_assert(kRingBytes + kMaxTaps * (kVectorBytes + sizeof(void*)) + 2 * kMaxTaps * sizeof(int64_t) <= 32 * 1024,
              "depthwise scratch exceeds 32 KiB");

// a * b + c, fused where the target has it (the build's -std=c++17 does not contract).
inline VecF fmadd(VecF a, VecF b, VecF c) {
#if defined(__AVX512F__)
  return (VecF)_mm512_fmadd_ps((__m512)a, (__m512)b, (__m512)c);
#elif defined(__AVX__) && defined(__FMA__)
  return (VecF)_mm256_fmadd_ps((__m256)a, (__m256)b, (__m256)c);
#elif defined(__aarch64__)
  return (VecF)vfmaq_f32((float32x4_t)c, (float32x4_t)a, (float32x4_t)b);
#else
  return a * b + c;
#endif
}

int64_t round_up(int64_t a, int64_t b) { return (a + b - 1) / b * b; }

#if !defined(__AVX512F__)
// out[j] = bias + sum_t w[t] * tap[t][j] for j < n. Every tap run is readable up
// to round_up(n, kLanes) (the slots' padding), so the tail loads whole vectors.
template <int64_t KT>
void dw_row(float* out, int64_t n, const float* const* tap, const VecF* wv, int64_t taps_rt, VecF bv) {
  const int64_t taps = KT > 0 ? KT : taps_rt;
  int64_t j = 0;
  for (; j + 4 * kLanes <= n; j += 4 * kLanes) {
    VecF a0 = bv, a1 = bv, a2 = bv, a3 = bv;
#pragma GCC unroll 64
    for (int64_t t = 0; t < taps; ++t) {
      const float* p = tap[t] + j;
      const VecF w = wv[t];
      a0 = fmadd(w, load(p), a0);
      a1 = fmadd(w, load(p + kLanes), a1);
      a2 = fmadd(w, load(p + 2 * kLanes), a2);
      a3 = fmadd(w, load(p + 3 * kLanes), a3);
    }
    store(out + j, a0);
    store(out + j + kLanes, a1);
    store(out + j + 2 * kLanes, a2);
    store(out + j + 3 * kLanes, a3);
  }
  for (; j < n; j += kLanes) {
    VecF a0 = bv, a1 = {};
    int64_t t = 0;
#pragma GCC unroll 64
    for (; t + 2 <= taps; t += 2) {
      a0 = fmadd(wv[t], load(tap[t] + j), a0);
      a1 = fmadd(wv[t + 1], load(tap[t + 1] + j), a1);
    }
    if (t < taps) a0 = fmadd(wv[t], load(tap[t] + j), a0);
    a0 += a1;
    if (j + kLanes <= n) {
      store(out + j, a0);
    } else {
      store_partial(out + j, a0, n - j);
    }
  }
}

using RowFn = void (*)(float*, int64_t, const float* const*, const VecF*, int64_t, VecF);

RowFn row_fn(int64_t taps) {
  switch (taps) {
    case 9:
      return dw_row<9>;
    case 25:
      return dw_row<25>;
    default:
      return dw_row<0>;
  }
}

// Small planes: the whole zero-padded input plane in scratch, split by the
// strides into row and column phases (phase (R % sh, C % sw) holds padded rows
// R / sh and columns C / sw, Wq wide). Output (oh, ow) then reads, for tap
// (ki, kj), element (oh + ki*dh / sh) * Wq + ow + kj*dw / sw of one phase:
// contiguous in oh * Wq + ow, so the whole output plane (on a Wq-wide grid
// whose extra columns are dropped) is one vector run per tap.
struct PlaneLayout {
  int64_t hq, wq, phase;  // rows and columns per phase, floats per phase (hq * wq)
  int64_t in_floats, grid;  // scratch for the phases (with read slack); output grid out_h * wq
};

bool plane_layout(int64_t out_h, int64_t out_w, int64_t kh, int64_t kw, int64_t sh, int64_t sw, int64_t dh,
                  int64_t dw, PlaneLayout* l) {
  l->hq = ((out_h - 1) * sh + (kh - 1) * dh) / sh + 1;
  l->wq = ((out_w - 1) * sw + (kw - 1) * dw) / sw + 1;
  if (sw > kMaxStepPlane || l->hq > kRingFloats || l->wq > kRingFloats) return false;
  l->phase = l->hq * l->wq;
  if (l->phase > kRingFloats) return false;
  l->grid = round_up(out_h * l->wq, kLanes);
  // Taps read up to a phase's start + (hq - 1) * wq + wq - 1 + grid-rounding: slack of one row and a vector.
  l->in_floats = round_up(sh * sw * l->phase + l->wq + kLanes, kLanes);
  return l->in_floats + l->grid <= kRingFloats;
}

__attribute__((noinline)) void depthwise_planes(const float* input, const float* weight, const float* bias, float* output, int64_t planes,
                      int64_t channels, int64_t in_h, int64_t in_w, int64_t out_h, int64_t out_w, int64_t kh,
                      int64_t kw, int64_t sh, int64_t sw, int64_t ph, int64_t pw, int64_t dh, int64_t dw,
                      const PlaneLayout& l) {
  float scratch[kRingFloats];
  float* xin = scratch;
  float* grid = scratch + l.in_floats;
  std::memset(xin, 0, static_cast<size_t>(l.in_floats) * sizeof(float));  // the slack stays zero
  const int64_t taps = kh * kw;
  const float* tap[kMaxTaps];
  for (int64_t ki = 0; ki < kh; ++ki) {
    for (int64_t kj = 0; kj < kw; ++kj) {
      const int64_t r = ki * dh, c = kj * dw;
      tap[ki * kw + kj] = xin + ((r % sh) * sw + c % sw) * l.phase + (r / sh) * l.wq + c / sw;
    }
  }
  // Phase cp element i is input column i * sw + cp - pw: inside the row for i in [col_lo, col_hi).
  int64_t col_lo[kMaxStepPlane], col_hi[kMaxStepPlane];
  for (int64_t cp = 0; cp < sw; ++cp) {
    int64_t lo = 0;
    while (lo < l.wq && lo * sw + cp - pw < 0) ++lo;
    int64_t hi = lo;
    while (hi < l.wq && hi * sw + cp - pw < in_w) ++hi;
    col_lo[cp] = lo;
    col_hi[cp] = hi;
  }
  const RowFn row = row_fn(taps);
  VecF wv[kMaxTaps];
  for (int64_t nc = 0; nc < planes; ++nc) {
    const int64_t ch = nc % channels;
    const float* in_plane = input + nc * in_h * in_w;
    for (int64_t t = 0; t < taps; ++t) wv[t] = splat(weight[ch * taps + t]);
    // Only the input's own elements are written: the padding positions are the same for every
    // plane and stay zero from the memset above.
    for (int64_t rp = 0; rp < sh; ++rp) {
      for (int64_t a = 0; a < l.hq; ++a) {
        const int64_t ih = a * sh + rp - ph;
        if (ih < 0 || ih >= in_h) continue;
        const float* src = in_plane + ih * in_w;
        float* dst = xin + rp * sw * l.phase + a * l.wq;
        if (sw == 1) {  // one contiguous run: vector copies
          const int64_t lo = col_lo[0], n = col_hi[0] - lo;
          float* d = dst + lo;
          const float* q = src + lo - pw;
          int64_t i = 0;
          for (; i + kLanes <= n; i += kLanes) store(d + i, load(q + i));
          for (; i < n; ++i) d[i] = q[i];
          continue;
        }
        for (int64_t cp = 0; cp < sw; ++cp) {
          float* d = dst + cp * l.phase;
          const float* q = src + (cp - pw) + sw * col_lo[cp];
          for (int64_t i = col_lo[cp]; i < col_hi[cp]; ++i, q += sw) d[i] = *q;
        }
      }
    }
    row(grid, out_h * l.wq, tap, wv, taps, splat(bias != nullptr ? bias[ch] : 0.0f));
    float* out_plane = output + nc * out_h * out_w;
    for (int64_t oh = 0; oh < out_h; ++oh) {
      float* d = out_plane + oh * out_w;
      const float* q = grid + oh * l.wq;
      int64_t j = 0;
      for (; j + kLanes <= out_w; j += kLanes) store(d + j, load(q + j));
      for (; j < out_w; ++j) d[j] = q[j];
    }
  }
}

#endif  // !__AVX512F__

// Tiny planes (a handful of pixels, many channels: the last stages of the
// mobilenets): vectorised over channels instead. A block of channels is
// transposed to [pixel][channel] (input) and [tap][channel] (weights), and
// each output pixel sums its in-bound taps over whole channel vectors.
constexpr int64_t kTinyPixels = 16;   // in_h * in_w and out_h * out_w at most
constexpr int64_t kTinyTaps = 25;
constexpr int64_t kTinyBlock = 128;   // channels per block (a multiple of every kLanes)

__attribute__((noinline)) void depthwise_tiny(const float* input, const float* weight, const float* bias,
                                              float* output, int64_t batch, int64_t channels, int64_t in_h,
                                              int64_t in_w, int64_t out_h, int64_t out_w, int64_t kh, int64_t kw,
                                              int64_t sh, int64_t sw, int64_t ph, int64_t pw, int64_t dh,
                                              int64_t dw) {
  float xt[kTinyPixels * kTinyBlock];  // [pixel][channel]
  float wt[kTinyTaps * kTinyBlock];    // [tap][channel]
  float acc[kTinyBlock];
  const int64_t taps = kh * kw, in_px = in_h * in_w, out_px = out_h * out_w;
  for (int64_t c0 = 0; c0 < channels; c0 += kTinyBlock) {
    const int64_t cb = channels - c0 < kTinyBlock ? channels - c0 : kTinyBlock;
    const int64_t cv = round_up(cb, kLanes);
    for (int64_t t = 0; t < taps; ++t) {
      for (int64_t c = 0; c < cv; ++c) wt[t * kTinyBlock + c] = c < cb ? weight[(c0 + c) * taps + t] : 0.0f;
    }
    for (int64_t n = 0; n < batch; ++n) {
      const float* in = input + (n * channels + c0) * in_px;
      float* out = output + (n * channels + c0) * out_px;
      for (int64_t q = 0; q < in_px; ++q) {
        for (int64_t c = 0; c < cv; ++c) xt[q * kTinyBlock + c] = c < cb ? in[c * in_px + q] : 0.0f;
      }
      for (int64_t oh = 0; oh < out_h; ++oh) {
        for (int64_t ow = 0; ow < out_w; ++ow) {
          for (int64_t c = 0; c < cv; c += kLanes) {
            store(acc + c, bias != nullptr && c + kLanes <= cb ? load(bias + c0 + c) : VecF{});
          }
          if (bias != nullptr && cb % kLanes != 0) {
            for (int64_t c = cb / kLanes * kLanes; c < cb; ++c) acc[c] = bias[c0 + c];
          }
          for (int64_t ki = 0; ki < kh; ++ki) {
            const int64_t ih = oh * sh - ph + ki * dh;
            if (ih < 0 || ih >= in_h) continue;
            for (int64_t kj = 0; kj < kw; ++kj) {
              const int64_t iw = ow * sw - pw + kj * dw;
              if (iw < 0 || iw >= in_w) continue;
              const float* x = xt + (ih * in_w + iw) * kTinyBlock;
              const float* w = wt + (ki * kw + kj) * kTinyBlock;
              for (int64_t c = 0; c < cv; c += kLanes) store(acc + c, fmadd(load(w + c), load(x + c), load(acc + c)));
            }
          }
          const int64_t px = oh * out_w + ow;
          for (int64_t c = 0; c < cb; ++c) out[c * out_px + px] = acc[c];
        }
      }
    }
  }
}

#if !defined(__AVX512F__)
// Wider rows: a ring of kernel_h input rows (column phases only), column tiles when a row does not fit.
__attribute__((noinline)) bool depthwise_rows(const float* input, const float* weight, const float* bias,
                                              float* output, int64_t batch, int64_t channels, int64_t in_h,
                                              int64_t in_w, int64_t out_h, int64_t out_w, int64_t kernel_h,
                                              int64_t kernel_w, int64_t stride_h, int64_t stride_w, int64_t pad_h,
                                              int64_t pad_w, int64_t dilation_h, int64_t dilation_w) {
  const int64_t taps = kernel_h * kernel_w;
  const int64_t s = stride_w;
  const int64_t span_w = (kernel_w - 1) * dilation_w;  // <= 48 * 4096
  const int64_t m_max = span_w / s;
  const int64_t slots = kernel_h + 1;  // the last slot is all zeros
  const int64_t phase_len_max = kRingFloats / slots / s / kLanes * kLanes;
  const int64_t tile_max = (phase_len_max - m_max) / kLanes * kLanes;
  if (tile_max < kLanes) return false;
  const int64_t tile = out_w < tile_max ? out_w : tile_max;
  const int64_t phase_len = round_up(round_up(tile, kLanes) + m_max, kLanes);
  const int64_t slot_len = s * phase_len;

  float ring[kRingFloats];
  float* zero_slot = ring + kernel_h * slot_len;
  std::memset(zero_slot, 0, static_cast<size_t>(slot_len) * sizeof(float));

  int64_t col_off[kMaxTaps];  // offset of tap column kj inside a slot
  for (int64_t kj = 0; kj < kernel_w; ++kj) {
    const int64_t off = kj * dilation_w;
    col_off[kj] = (off % s) * phase_len + off / s;
  }
  const RowFn row = row_fn(taps);
  VecF wv[kMaxTaps];
  const float* tap[kMaxTaps];
  int64_t slot_row[kMaxTaps];  // input row each slot holds
  const float* row_slot[kMaxTaps];
  const int64_t plane_in = in_h * in_w;
  const int64_t plane_out = out_h * out_w;

  for (int64_t nc = 0; nc < batch * channels; ++nc) {
    const int64_t c = nc % channels;
    const float* in_plane = input + nc * plane_in;
    float* out_plane = output + nc * plane_out;
    for (int64_t t = 0; t < taps; ++t) wv[t] = splat(weight[c * taps + t]);
    const VecF bv = splat(bias != nullptr ? bias[c] : 0.0f);

    for (int64_t ow0 = 0; ow0 < out_w; ow0 += tile) {
      const int64_t n = out_w - ow0 < tile ? out_w - ow0 : tile;
      const int64_t base = ow0 * s - pad_w;  // input column of tap kj = 0 at ow0
      for (int64_t k = 0; k < kernel_h; ++k) slot_row[k] = -1;
      for (int64_t oh = 0; oh < out_h; ++oh) {
        const int64_t ih0 = oh * stride_h - pad_h;
        // Keep the slots already holding a needed row; refill the others.
        bool kept[kMaxTaps] = {};
        bool placed[kMaxTaps] = {};
        for (int64_t ki = 0; ki < kernel_h; ++ki) {
          const int64_t ih = ih0 + ki * dilation_h;
          row_slot[ki] = nullptr;
          if (ih < 0 || ih >= in_h) {
            row_slot[ki] = zero_slot;
            placed[ki] = true;
            continue;
          }
          for (int64_t k = 0; k < kernel_h; ++k) {
            if (slot_row[k] == ih) {
              row_slot[ki] = ring + k * slot_len;
              kept[k] = true;
              placed[ki] = true;
              break;
            }
          }
        }
        int64_t free_slot = 0;
        for (int64_t ki = 0; ki < kernel_h; ++ki) {
          if (placed[ki]) continue;
          while (kept[free_slot]) ++free_slot;  // kernel_h slots, at most kernel_h rows needed
          const int64_t ih = ih0 + ki * dilation_h;
          float* slot = ring + free_slot * slot_len;
          fill_phase_row(slot, in_plane + ih * in_w, in_w, base, s, phase_len, 0.0f);
          slot_row[free_slot] = ih;
          kept[free_slot] = true;
          row_slot[ki] = slot;
        }
        for (int64_t ki = 0; ki < kernel_h; ++ki) {
          for (int64_t kj = 0; kj < kernel_w; ++kj) tap[ki * kernel_w + kj] = row_slot[ki] + col_off[kj];
        }
        row(out_plane + oh * out_w + ow0, n, tap, wv, taps, bv);
      }
    }
  }
  return true;
}

#endif  // !__AVX512F__

#if defined(__AVX512F__)
// AVX-512: lane masks instead of padding. The input plane is read in place
// (stride 1) or from a copy split into its sh x sw stride phases (phase
// (rp, cp) row i, column j = input row i*sh + rp, column j*sw + cp; rows of
// `pitch` floats), so tap (ki, kj) of output (oh, ow) reads phase row oh + fr,
// column ow + fc for constants fr, fc of the tap. The outputs go in "items"
// of 16 lanes: runs of the flat output plane when its rows are `pitch` wide
// (then every tap is one shift of the item), else 16-column pieces of a row.
// Per item and tap the lanes whose source lies inside the phase form a mask,
// computed once per band of output rows; per plane each item is then one
// masked load and one FMA per tap with a lane in bounds, and a masked store.
// Lanes masked off are neither read nor faulted: no padding is ever written.
constexpr int64_t kMaskFloats = 3072;       // phase copies of a band's input rows
constexpr int64_t kMaskItems = 256;         // 16-lane output pieces per band
constexpr int64_t kMaskEntries = 3072;      // (item, tap) pairs with a lane in bounds, per band
constexpr int64_t kMaskMaxCoord = 1 << 14;  // every extent and offset, so indices fit int32
static_assert(kMaskFloats * 4 + kMaskEntries * 4 + kMaskItems * 12 + kMaxTaps * 52 <= 32 * 1024,
              "depthwise scratch exceeds 32 KiB");

int64_t floor_div(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }
__mmask16 first_lanes(int64_t n) { return static_cast<__mmask16>(n <= 0 ? 0u : n >= 16 ? 0xFFFFu : (1u << n) - 1u); }

// Columns of one input row into its sw phases (phase p at dst + p * phase_stride).
void split_row(float* dst, const float* row, int64_t in_w, int64_t sw, int64_t phase_stride) {
  if (sw == 1) {
    std::memcpy(dst, row, static_cast<size_t>(in_w) * sizeof(float));
    return;
  }
  if (sw == 2) {
    // 32 columns -> 16 of each phase per step, the last step's lanes masked.
    const __m512i evens = _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0);
    const __m512i odds = _mm512_add_epi32(evens, _mm512_set1_epi32(1));
    for (int64_t j = 0; j < in_w; j += 32, dst += 16) {
      const int64_t n = in_w - j;
      const __m512 a = _mm512_maskz_loadu_ps(first_lanes(n), row + j);
      const __m512 b = _mm512_maskz_loadu_ps(first_lanes(n - 16), row + j + 16);
      _mm512_mask_storeu_ps(dst, first_lanes((n + 1) / 2), _mm512_permutex2var_ps(a, evens, b));
      _mm512_mask_storeu_ps(dst + phase_stride, first_lanes(n / 2), _mm512_permutex2var_ps(a, odds, b));
    }
    return;
  }
  for (int64_t cp = 0; cp < sw; ++cp, dst += phase_stride) {
    for (int64_t j = cp, i = 0; j < in_w; j += sw, ++i) dst[i] = row[j];
  }
}

__attribute__((noinline)) bool depthwise_masked(const float* input, const float* weight, const float* bias,
                                                float* output, int64_t batch, int64_t channels, int64_t in_h,
                                                int64_t in_w, int64_t out_h, int64_t out_w, int64_t kh, int64_t kw,
                                                int64_t sh, int64_t sw, int64_t ph, int64_t pw, int64_t dh,
                                                int64_t dw) {
  for (int64_t v : {in_h, in_w, out_h, out_w, ph, pw, (kh - 1) * dh, (kw - 1) * dw}) {
    if (v > kMaskMaxCoord) return false;
  }
  if (sh > 8 || sw > 8) return false;
  const bool copy = sh > 1 || sw > 1;
  const int64_t hq = (in_h + sh - 1) / sh, pitch = (in_w + sw - 1) / sw;  // phase rows (at most), row pitch
  const bool flat = pitch == out_w;
  const int64_t taps = kh * kw;
  // Tap (ki, kj) reads phase (rp, cp) at row oh + fr, column ow + fc: in bounds below rows, cols.
  int32_t row_shift[kMaxTaps], row_end[kMaxTaps], col_shift[kMaxTaps], col_end[kMaxTaps];
  int64_t fr_of[kMaxTaps], rp_of[kMaxTaps], cp_of[kMaxTaps], fc_of[kMaxTaps];
  int64_t fr_min = 0, fr_max = 0;
  for (int64_t ki = 0; ki < kh; ++ki) {
    const int64_t r = ki * dh - ph, fr = floor_div(r, sh), rp = r - fr * sh;
    row_shift[ki] = static_cast<int32_t>(fr);
    row_end[ki] = static_cast<int32_t>((in_h - rp + sh - 1) / sh);
    fr_of[ki] = fr;
    rp_of[ki] = rp;
    fr_min = ki == 0 || fr < fr_min ? fr : fr_min;
    fr_max = ki == 0 || fr > fr_max ? fr : fr_max;
  }
  for (int64_t kj = 0; kj < kw; ++kj) {
    const int64_t c = kj * dw - pw, fc = floor_div(c, sw), cp = c - fc * sw;
    col_shift[kj] = static_cast<int32_t>(fc);
    col_end[kj] = static_cast<int32_t>((in_w - cp + sw - 1) / sw);
    fc_of[kj] = fc;
    cp_of[kj] = cp;
  }
  // Output rows per band: its items, their entries (at most one per tap) and its phase rows fit.
  int64_t band = out_h;
  const int64_t max_items = kMaskItems < kMaskEntries / taps ? kMaskItems : kMaskEntries / taps;
  const int64_t row_items = (out_w + 15) / 16;
  if (flat) {
    band = max_items * 16 / out_w < band ? max_items * 16 / out_w : band;
  } else {
    band = max_items / row_items < band ? max_items / row_items : band;
  }
  if (copy) {
    const int64_t rows_fit = kMaskFloats / (sh * sw * pitch) - (fr_max - fr_min);
    band = rows_fit < band ? rows_fit : band;
  }
  if (band < 1) return false;

  int32_t off[kMaxTaps];  // tap's source offset from the item's
  int32_t item_src[kMaskItems], item_dst[kMaskItems];
  uint16_t item_end[kMaskItems];  // one past the item's last entry
  __mmask16 item_keep[kMaskItems];
  uint32_t entry[kMaskEntries];  // lane mask | tap << 16
  alignas(64) float phases[kMaskFloats];
  const __m512i iota = _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
  const int64_t plane_in = in_h * in_w, plane_out = out_h * out_w;
  for (int64_t oh0 = 0; oh0 < out_h; oh0 += band) {
    const int64_t oh1 = oh0 + band < out_h ? oh0 + band : out_h;
    // Phase rows [lo, hi) the band reads (copied to phase-local rows from 0), the band's items.
    const int64_t lo = oh0 + fr_min < 0 ? 0 : oh0 + fr_min;
    const int64_t hi = oh1 - 1 + fr_max + 1 > hq ? hq : oh1 + fr_max;
    const int64_t span = hi > lo ? hi - lo : 0;
    const int64_t phase_stride = copy ? span * pitch : 0;
    for (int64_t ki = 0; ki < kh; ++ki) {
      for (int64_t kj = 0; kj < kw; ++kj) {
        off[ki * kw + kj] =
            static_cast<int32_t>((rp_of[ki] * sw + cp_of[kj]) * phase_stride + fr_of[ki] * pitch + fc_of[kj]);
      }
    }
    const int64_t src_shift = copy ? lo * pitch : 0;  // item sources are relative to phase row lo
    const int64_t n_items = flat ? ((oh1 - oh0) * out_w + 15) / 16 : (oh1 - oh0) * row_items;
    int64_t n_entries = 0;
    for (int64_t it = 0; it < n_items; ++it) {
      __m512i oh, ow;
      __mmask16 keep;
      if (flat) {
        const int64_t o0 = oh0 * out_w + 16 * it;
        const VecI o = static_cast<int32_t>(o0) + (VecI)iota;
        // o / out_w in float: exact below 2^22 (o + 0.5 is never within rounding of a multiple).
        const VecI q = __builtin_convertvector(
            (__builtin_convertvector(o, VecF) + 0.5f) * (1.0f / static_cast<float>(out_w)), VecI);
        oh = (__m512i)q;
        ow = (__m512i)(o - q * static_cast<int32_t>(out_w));
        keep = first_lanes(oh1 * out_w - o0);
        item_src[it] = static_cast<int32_t>(o0 - src_shift);
        item_dst[it] = static_cast<int32_t>(o0);
      } else {
        const int64_t r = oh0 + it / row_items, c0 = (it % row_items) * 16;
        oh = _mm512_set1_epi32(static_cast<int>(r));
        ow = _mm512_add_epi32(_mm512_set1_epi32(static_cast<int>(c0)), iota);
        keep = first_lanes(out_w - c0);
        item_src[it] = static_cast<int32_t>(r * pitch + c0 - src_shift);
        item_dst[it] = static_cast<int32_t>(r * out_w + c0);
      }
      item_keep[it] = keep;
      for (int64_t ki = 0; ki < kh; ++ki) {
        const __mmask16 row_ok = _mm512_mask_cmplt_epu32_mask(keep, _mm512_add_epi32(oh, _mm512_set1_epi32(row_shift[ki])),
                                                             _mm512_set1_epi32(row_end[ki]));
        if (row_ok == 0) continue;
        for (int64_t kj = 0; kj < kw; ++kj) {
          const __mmask16 m = _mm512_mask_cmplt_epu32_mask(row_ok, _mm512_add_epi32(ow, _mm512_set1_epi32(col_shift[kj])),
                                                              _mm512_set1_epi32(col_end[kj]));
          if (m != 0) entry[n_entries++] = m | static_cast<uint32_t>(ki * kw + kj) << 16;
        }
      }
      item_end[it] = static_cast<uint16_t>(n_entries);
    }

    for (int64_t nc = 0; nc < batch * channels; ++nc) {
      const int64_t c = nc % channels;
      const float* src = input + nc * plane_in;
      if (copy) {
        // Phase row i of row phase rp is input row i * sh + rp.
        for (int64_t rp = 0; rp < sh; ++rp) {
          for (int64_t i = lo; i < hi && i * sh + rp < in_h; ++i) {
            split_row(phases + rp * sw * phase_stride + (i - lo) * pitch, src + (i * sh + rp) * in_w, in_w, sw,
                      phase_stride);
          }
        }
        src = phases;
      }
      const float* wc = weight + c * taps;
      const __m512 bv = _mm512_set1_ps(bias != nullptr ? bias[c] : 0.0f);
      float* out = output + nc * plane_out;
      const uintptr_t base = reinterpret_cast<uintptr_t>(src);
      // Address arithmetic in integers: a masked-off lane's address may lie outside the plane.
      const auto tap_load = [&](uintptr_t at, uint32_t e) {
        return _mm512_maskz_loadu_ps(static_cast<__mmask16>(e),
                                     reinterpret_cast<const void*>(at + static_cast<uintptr_t>(
                                                                            static_cast<int64_t>(off[e >> 16]) * 4)));
      };
      int64_t e = 0;
      for (int64_t it = 0; it < n_items; ++it) {
        const uintptr_t at = base + static_cast<uintptr_t>(static_cast<int64_t>(item_src[it]) * 4);
        __m512 a0 = bv, a1 = _mm512_setzero_ps();
        const int64_t end = item_end[it];
        for (; e + 2 <= end; e += 2) {
          a0 = _mm512_fmadd_ps(_mm512_set1_ps(wc[entry[e] >> 16]), tap_load(at, entry[e]), a0);
          a1 = _mm512_fmadd_ps(_mm512_set1_ps(wc[entry[e + 1] >> 16]), tap_load(at, entry[e + 1]), a1);
        }
        if (e < end) {
          a0 = _mm512_fmadd_ps(_mm512_set1_ps(wc[entry[e] >> 16]), tap_load(at, entry[e]), a0);
          ++e;
        }
        _mm512_mask_storeu_ps(out + item_dst[it], item_keep[it], _mm512_add_ps(a0, a1));
      }
    }
  }
  return true;
}
#endif

}  // namespace

bool depthwise_conv2d_f32(const float* input, const float* weight, const float* bias, float* output, int64_t batch,
                          int64_t channels, int64_t in_h, int64_t in_w, int64_t out_h, int64_t out_w,
                          int64_t kernel_h, int64_t kernel_w, int64_t stride_h, int64_t stride_w, int64_t pad_h,
                          int64_t pad_w, int64_t dilation_h, int64_t dilation_w) {
  if (batch < 0 || channels < 0 || in_h < 0 || in_w < 0 || out_h < 0 || out_w < 0) return false;
  if (kernel_h < 1 || kernel_w < 1 || kernel_h > kMaxTaps || kernel_w > kMaxTaps ||
      kernel_h * kernel_w > kMaxTaps) {
    return false;
  }
  for (int64_t step : {stride_h, stride_w, dilation_h, dilation_w}) {
    if (step < 1 || step > kMaxStep) return false;
  }
  if (pad_h < 0 || pad_w < 0 || pad_h > kMaxPad || pad_w > kMaxPad) return false;
  if (batch == 0 || channels == 0 || out_h == 0 || out_w == 0) return true;

  const bool tiny = channels >= kLanes && in_h * in_w <= kTinyPixels && out_h * out_w <= kTinyPixels &&
                    kernel_h * kernel_w <= kTinyTaps;
#if defined(__AVX512F__)
  // With lane masks only strided convolutions of tiny planes go by channels: there the phase copy costs more
  // than the plane's taps. A geometry the masked path does not take goes to the caller's fallback.
  if (!tiny || (stride_h == 1 && stride_w == 1)) {
    return depthwise_masked(input, weight, bias, output, batch, channels, in_h, in_w, out_h, out_w, kernel_h,
                            kernel_w, stride_h, stride_w, pad_h, pad_w, dilation_h, dilation_w);
  }
#endif
  if (tiny) {
    depthwise_tiny(input, weight, bias, output, batch, channels, in_h, in_w, out_h, out_w, kernel_h, kernel_w,
                   stride_h, stride_w, pad_h, pad_w, dilation_h, dilation_w);
    return true;
  }
#if !defined(__AVX512F__)
  PlaneLayout layout;
  if (out_w <= kPlaneMaxOutW &&
      plane_layout(out_h, out_w, kernel_h, kernel_w, stride_h, stride_w, dilation_h, dilation_w, &layout)) {
    depthwise_planes(input, weight, bias, output, batch * channels, channels, in_h, in_w, out_h, out_w, kernel_h,
                     kernel_w, stride_h, stride_w, pad_h, pad_w, dilation_h, dilation_w, layout);
    return true;
  }
  return depthwise_rows(input, weight, bias, output, batch, channels, in_h, in_w, out_h, out_w, kernel_h, kernel_w,
                        stride_h, stride_w, pad_h, pad_w, dilation_h, dilation_w);
#else
  return false;  // not reached
#endif
}

}  // namespace sb::optimized
