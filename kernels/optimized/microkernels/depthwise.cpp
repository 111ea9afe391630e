// Depthwise convolution, fp32 NCHW.
//
// With AVX-512 (x86-64-v4) one path, depthwise_masked below: the input read
// in place with lane masks standing for the padding, outputs in 16-lane items
// of the input's own grid, tables of (item, tap) masks built once per call.
//
// Without it, vectorised over output width: each input row a channel plane
// needs is copied once into a stack ring of kernel_h row slots, split by the
// width stride into `stride_w` phases (phase p holds input columns base + p,
// base + p + s, ...) and padded with zeros on both sides. Every tap (ki, kj)
// of an output row is then a contiguous run of one slot's phase, so the inner
// loop is plain vector loads and multiply-adds with no bounds checks: the zero
// padding is the border region, rows above or below the input read a zero
// slot. Rows wider than the ring allows are done in column tiles.
//
// Small planes (at most four vectors of outputs per row, the plane within the
// scratch) go whole instead: the padded plane split by both strides, so each
// tap is one vector run over the output plane laid on a grid a few columns
// wider than the output (see depthwise_planes); short rows then fill whole
// vectors and the per-row overhead goes. 3x3 and 5x5 have unrolled tap loops.
// Tiny planes with many channels are vectorised over channels (depthwise_tiny).
#include "optimized/microkernels/depthwise.h"

#include <cstring>
#include <initializer_list>

#include "optimized/microkernels/pool_rows.h"
#include "optimized/simd/vec.h"

#if defined(__AVX512F__) || (defined(__AVX__) && defined(__FMA__))
#include <immintrin.h>
#elif defined(__aarch64__)
#include <arm_neon.h>
#endif

namespace sb::optimized {
namespace {

constexpr int64_t kMaxTaps = 49;       // kernel_h * kernel_w (7x7)
constexpr int64_t kMaxStep = 1 << 12;  // stride, dilation
constexpr int64_t kMaxPad = int64_t{1} << 40;

#if !defined(__AVX512F__)
// Stack scratch per call, all told under 32 KiB: the row ring, the weight splats, the tap pointers.
constexpr int64_t kRingBytes = 24 * 1024;
constexpr int64_t kRingFloats = kRingBytes / static_cast<int64_t>(sizeof(float));
// Rows at most this wide (outputs) go through the whole-plane path when the plane fits the scratch.
constexpr int64_t kPlaneMaxOutW = 4 * kLanes;
constexpr int64_t kMaxStepPlane = 8;  // column stride on the whole-plane path
static_assert(kRingBytes + kMaxTaps * (kVectorBytes + sizeof(void*)) + 2 * kMaxTaps * sizeof(int64_t) <= 32 * 1024,
              "depthwise scratch exceeds 32 KiB");

// a * b + c, fused where the target has it (the build's -std=c++17 does not contract).
inline VecF fmadd(VecF a, VecF b, VecF c) {
#if defined(__AVX__) && defined(__FMA__)
  return (VecF)_mm256_fmadd_ps((__m256)a, (__m256)b, (__m256)c);
#elif defined(__aarch64__)
  return (VecF)vfmaq_f32((float32x4_t)c, (float32x4_t)a, (float32x4_t)b);
#else
  return a * b + c;
#endif
}

int64_t round_up(int64_t a, int64_t b) { return (a + b - 1) / b * b; }

// out[j] = bias + sum_t w[t] * tap[t][j] for j < n. Every tap run is readable up
// to round_up(n, kLanes) (the slots' padding), so the tail loads whole vectors.
// KT > 0: the tap loops unrolled for that many taps; KT == 0 (any count) keeps them rolled (code size).
template <int64_t KT>
void dw_row(float* out, int64_t n, const float* const* tap, const VecF* wv, int64_t taps_rt, VecF bv) {
  const int64_t taps = KT > 0 ? KT : taps_rt;
  int64_t j = 0;
  for (; j + 4 * kLanes <= n; j += 4 * kLanes) {
    VecF a0 = bv, a1 = bv, a2 = bv, a3 = bv;
    const auto step = [&](int64_t t) {
      const float* p = tap[t] + j;
      const VecF w = wv[t];
      a0 = fmadd(w, load(p), a0);
      a1 = fmadd(w, load(p + kLanes), a1);
      a2 = fmadd(w, load(p + 2 * kLanes), a2);
      a3 = fmadd(w, load(p + 3 * kLanes), a3);
    };
    if constexpr (KT > 0) {
#pragma GCC unroll 64
      for (int64_t t = 0; t < taps; ++t) step(t);
    } else {
#pragma GCC unroll 1
      for (int64_t t = 0; t < taps; ++t) step(t);
    }
    store(out + j, a0);
    store(out + j + kLanes, a1);
    store(out + j + 2 * kLanes, a2);
    store(out + j + 3 * kLanes, a3);
  }
  for (; j < n; j += kLanes) {
    VecF a0 = bv, a1 = {};
    int64_t t = 0;
    const auto step = [&](int64_t u) {
      a0 = fmadd(wv[u], load(tap[u] + j), a0);
      a1 = fmadd(wv[u + 1], load(tap[u + 1] + j), a1);
    };
    if constexpr (KT > 0) {
#pragma GCC unroll 64
      for (; t + 2 <= taps; t += 2) step(t);
    } else {
#pragma GCC unroll 1
      for (; t + 2 <= taps; t += 2) step(t);
    }
    if (t < taps) a0 = fmadd(wv[t], load(tap[t] + j), a0);
    a0 += a1;
    if (j + kLanes <= n) {
      store(out + j, a0);
    } else {
      store_tail(out + j, a0, n - j);
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
// AVX-512: lane masks instead of padding, the input read in place. Output
// (oh, ow) sits at position (y, x) = (oh * sh, ow * sw) of the input's own
// grid (row pitch in_w), and tap (ki, kj) of it reads input position
// (y + ki*dh - ph, x + kj*dw - pw): one fixed flat shift per tap. The
// outputs go in "items" of 16 consecutive grid positions (spanning rows when
// the output's grid rows fit the input's, else within a row); an item's
// lanes at output positions are "kept" and, the positions being in output
// order, are one run of consecutive outputs. Per item and tap the kept
// lanes whose source lies inside the input form a mask, computed once per
// group of items; per plane each item is then one masked load and one FMA
// per tap with a lane in bounds, and the kept lanes, compressed, one masked
// store. A strided convolution computes its skipped columns within an item
// (sw lanes per output) but no skipped rows. Lanes masked off are neither
// read nor faulted: nothing is copied and no padding is written.
constexpr int64_t kMaskItems = 512;         // items per group
constexpr int64_t kMaskEntries = 5120;      // (item, tap) pairs with a lane in bounds, per group
constexpr int64_t kMaskMaxCoord = 1 << 14;  // every extent, offset and step, so indices fit int32
constexpr int64_t kGroup = 4;               // planes computed together
// The stack tables: entries, items (source, destination, end, keep mask, twin flag), tap offsets.
static_assert(kMaskEntries * 4 + kMaskItems * 13 + kMaxTaps * 4 <= 32 * 1024, "depthwise scratch exceeds 32 KiB");

__mmask16 first_lanes(int64_t n) { return static_cast<__mmask16>(n <= 0 ? 0u : n >= 16 ? 0xFFFFu : (1u << n) - 1u); }

// v / d for small non-negative lanes (below 2^21): v + 0.5 is never within float rounding of a multiple of d.
VecI div_small(VecI v, int64_t d) {
  return __builtin_convertvector((__builtin_convertvector(v, VecF) + 0.5f) * (1.0f / static_cast<float>(d)), VecI);
}

// Stride 1, dilation 1, a square kernel of K, rows of more than half a vector: each input row is
// loaded once per column shift (K masked loads per 16 columns) and feeds the K output rows that read
// it, held as a rolling window of accumulators (output row iy + ph - (K-1) + j in acc[j], finished when
// j = 0), where depthwise_masked loads every tap of every output (K*K loads). P planes go together so
// that the FMA chains (one per accumulator) are enough to cover the FMA latency. Each output sums its
// taps in the same (ky, kx) order from the bias.
template <int K, int P>
void depthwise_rows_s1(const float* const* in, const float* const* w, const float* bias, float* const* out,
                       int64_t in_h, int64_t in_w, int64_t out_h, int64_t out_w, int64_t ph, int64_t pw) {
  for (int64_t x0 = 0; x0 < out_w; x0 += 16) {
    const __mmask16 keep = first_lanes(out_w - x0);
    __mmask16 load_mask[K];
    for (int kx = 0; kx < K; ++kx) {  // lanes whose input column x0 + l - pw + kx lies in the row
      const int64_t shift = x0 - pw + kx;
      load_mask[kx] = static_cast<__mmask16>(keep & first_lanes(in_w - shift) & ~first_lanes(-shift));
    }
    __m512 acc[P][K];
#pragma GCC unroll 4
    for (int p = 0; p < P; ++p) {
#pragma GCC unroll 8
      for (int j = 0; j < K; ++j) acc[p][j] = _mm512_set1_ps(bias[p]);
    }
    for (int64_t iy = -ph; iy < out_h - ph + K - 1; ++iy) {
      if (iy >= 0 && iy < in_h) {
#pragma GCC unroll 8
        for (int kx = 0; kx < K; ++kx) {
          // Address arithmetic in integers: masked-off lanes may lie outside the plane.
          const int64_t at = (iy * in_w + x0 - pw + kx) * static_cast<int64_t>(sizeof(float));
#pragma GCC unroll 4
          for (int p = 0; p < P; ++p) {
            const __m512 v = _mm512_maskz_loadu_ps(
                load_mask[kx], reinterpret_cast<const void*>(reinterpret_cast<uintptr_t>(in[p]) + static_cast<uintptr_t>(at)));
#pragma GCC unroll 8
            for (int j = 0; j < K; ++j) acc[p][j] = _mm512_fmadd_ps(_mm512_set1_ps(w[p][(K - 1 - j) * K + kx]), v, acc[p][j]);
          }
        }
      }
      const int64_t oy = iy + ph - (K - 1);  // acc[.][0]'s row, now complete
#pragma GCC unroll 4
      for (int p = 0; p < P; ++p) {
        if (oy >= 0) _mm512_mask_storeu_ps(out[p] + oy * out_w + x0, keep, acc[p][0]);
#pragma GCC unroll 8
        for (int j = 0; j + 1 < K; ++j) acc[p][j] = acc[p][j + 1];
        acc[p][K - 1] = _mm512_set1_ps(bias[p]);
      }
    }
  }
}

// The planes of depthwise_rows_s1, two at a time (a last odd one alone).
template <int K>
void depthwise_rows_s1_planes(const float* input, const float* weight, const float* bias, float* output,
                              int64_t planes, int64_t channels, int64_t multiplier, int64_t in_h, int64_t in_w,
                              int64_t out_h, int64_t out_w, int64_t ph, int64_t pw) {
  const int64_t plane_in = in_h * in_w, plane_out = out_h * out_w;
  const auto plane = [&](int64_t q, const float** in, const float** w, float* b, float** out) {
    const int64_t c = q % channels;
    *in = input + q / multiplier * plane_in;
    *w = weight + c * K * K;
    *b = bias != nullptr ? bias[c] : 0.0f;
    *out = output + q * plane_out;
  };
  int64_t q = 0;
  for (; q + 2 <= planes; q += 2) {
    const float* in[2];
    const float* w[2];
    float b[2];
    float* out[2];
    plane(q, &in[0], &w[0], &b[0], &out[0]);
    plane(q + 1, &in[1], &w[1], &b[1], &out[1]);
    depthwise_rows_s1<K, 2>(in, w, b, out, in_h, in_w, out_h, out_w, ph, pw);
  }
  if (q < planes) {
    const float* in[1];
    const float* w[1];
    float b[1];
    float* out[1];
    plane(q, &in[0], &w[0], &b[0], &out[0]);
    depthwise_rows_s1<K, 1>(in, w, b, out, in_h, in_w, out_h, out_w, ph, pw);
  }
}

__attribute__((noinline)) bool depthwise_masked(const float* input, const float* weight, const float* bias,
                                                float* output, int64_t batch, int64_t channels, int64_t in_h,
                                                int64_t in_w, int64_t out_h, int64_t out_w, int64_t kh, int64_t kw,
                                                int64_t sh, int64_t sw, int64_t ph, int64_t pw, int64_t dh,
                                                int64_t dw, int64_t multiplier) {
  for (int64_t v : {in_h, in_w, out_h * sh, out_w * sw, ph, pw, (kh - 1) * dh, (kw - 1) * dw}) {
    if (v > kMaskMaxCoord) return false;
  }
  const int64_t taps = kh * kw;
  if (taps > kMaskEntries / 16) return false;
  if (in_h * in_w == 1 && out_h * out_w == 1 && multiplier == 1) {
    // 1x1 planes: at most one tap meets the input; vectorised over channels instead.
    int64_t t = -1;
    if (ph % dh == 0 && ph / dh < kh && pw % dw == 0 && pw / dw < kw) t = ph / dh * kw + pw / dw;
    const __m512i widx = _mm512_mullo_epi32(_mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0),
                                            _mm512_set1_epi32(static_cast<int>(taps)));
    for (int64_t n = 0; n < batch; ++n) {
      for (int64_t c0 = 0; c0 < channels; c0 += 16) {
        const __mmask16 m = first_lanes(channels - c0);
        __m512 acc = bias != nullptr ? _mm512_maskz_loadu_ps(m, bias + c0) : _mm512_setzero_ps();
        if (t >= 0) {
          const __m512 wv = _mm512_mask_i32gather_ps(_mm512_setzero_ps(), m, widx, weight + c0 * taps + t, 4);
          acc = _mm512_fmadd_ps(wv, _mm512_maskz_loadu_ps(m, input + n * channels + c0), acc);
        }
        _mm512_mask_storeu_ps(output + n * channels + c0, m, acc);
      }
    }
    return true;
  }
  const int64_t last_x = (out_w - 1) * sw;  // grid column of the last output column
  const bool wrap = last_x < in_w;          // items may run on into the next grid row
  int32_t off[kMaxTaps];                    // tap's input offset from the output's grid position
  for (int64_t ki = 0; ki < kh; ++ki) {
    for (int64_t kj = 0; kj < kw; ++kj) off[ki * kw + kj] = static_cast<int32_t>((ki * dh - ph) * in_w + kj * dw - pw);
  }
  int32_t item_src[kMaskItems], item_dst[kMaskItems];
  uint16_t item_end[kMaskItems];  // one past the item's last entry
  __mmask16 item_keep[kMaskItems];
  bool item_twin[kMaskItems];
  uint32_t entry[kMaskEntries];  // lane mask | tap << 16
  const VecI iota = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
  const int64_t plane_in = in_h * in_w, plane_out = out_h * out_w;
  for (int64_t oh = 0, ow = 0; oh < out_h;) {
    // A group of items from output (oh, ow) on, as many as the tables hold.
    int64_t n_items = 0, n_entries = 0, prev_start = 0, cur_start = 0;
    for (; oh < out_h && n_items < kMaskItems && n_entries + taps <= kMaskEntries; ++n_items) {
      const int64_t y0 = oh * sh, x0 = ow * sw;
      VecI x = static_cast<int32_t>(x0) + iota, y = VecI{} + static_cast<int32_t>(y0);
      if (wrap) {
        const VecI dy = div_small(x, in_w);
        x -= dy * static_cast<int32_t>(in_w);
        y += dy;
      }
      // Kept: an output's position (y on a multiple of sh below out_h * sh, x on one of sw up to last_x).
      VecI ok = (x <= static_cast<int32_t>(last_x)) & (y < static_cast<int32_t>(out_h * sh));
      if (sh > 1) ok &= y == div_small(y, sh) * static_cast<int32_t>(sh);
      if (sw > 1) ok &= x == div_small(x, sw) * static_cast<int32_t>(sw);
      const __mmask16 keep = _mm512_test_epi32_mask((__m512i)ok, (__m512i)ok);
      item_keep[n_items] = keep;
      item_src[n_items] = static_cast<int32_t>(y0 * in_w + x0);
      item_dst[n_items] = static_cast<int32_t>(oh * out_w + ow);
      ow += __builtin_popcount(keep);
      oh += ow / out_w;
      ow %= out_w;
      for (int64_t ki = 0; ki < kh; ++ki) {
        const __mmask16 row_ok = _mm512_mask_cmplt_epu32_mask(
            keep, (__m512i)(y + static_cast<int32_t>(ki * dh - ph)), _mm512_set1_epi32(static_cast<int>(in_h)));
        if (row_ok == 0) continue;
        for (int64_t kj = 0; kj < kw; ++kj) {
          const __mmask16 m = _mm512_mask_cmplt_epu32_mask(
              row_ok, (__m512i)(x + static_cast<int32_t>(kj * dw - pw)), _mm512_set1_epi32(static_cast<int>(in_w)));
          if (m != 0) entry[n_entries++] = m | static_cast<uint32_t>(ki * kw + kj) << 16;
        }
      }
      // An item whose entries repeat the previous item's (not itself a twin) is its twin: it keeps no entries
      // of its own, and the two go together through the entries, sharing each weight broadcast.
      const int64_t len = n_entries - cur_start;
      item_twin[n_items] = n_items > 0 && !item_twin[n_items - 1] && len == cur_start - prev_start &&
                           std::memcmp(entry + prev_start, entry + cur_start, static_cast<size_t>(len) * 4) == 0;
      if (item_twin[n_items]) {
        n_entries = cur_start;
      } else {
        prev_start = cur_start;
        cur_start = n_entries;
      }
      item_end[n_items] = static_cast<uint16_t>(n_entries);
    }

    // Four planes at a time: each entry's mask and offset serve all four. A last group of fewer repeats its
    // first plane (the same values stored again).
    // Output plane p = n * channels + c reads input plane p / multiplier (channels % multiplier == 0), its
    // channel c and the multiplier phase kept as running counters (no divisions per plane).
    const int64_t planes = batch * channels;
    for (int64_t nc = 0, c = 0, phase = 0, in_plane = 0; nc < planes; nc += kGroup) {
      const float* w[kGroup];
      __m512 b[kGroup];
      float* out[kGroup];
      uintptr_t base[kGroup];  // address arithmetic in integers: a masked-off lane's may lie outside the plane
      for (int64_t g = 0; g < kGroup; ++g) {
        if (nc + g < planes) {
          w[g] = weight + c * taps;
          b[g] = _mm512_set1_ps(bias != nullptr ? bias[c] : 0.0f);
          out[g] = output + (nc + g) * plane_out;
          base[g] = reinterpret_cast<uintptr_t>(input + in_plane * plane_in);
          if (++c == channels) c = 0;
          if (++phase == multiplier) phase = 0, ++in_plane;
        } else {
          w[g] = w[0], b[g] = b[0], out[g] = out[0], base[g] = base[0];
        }
      }
      int64_t e = 0;
      for (int64_t it = 0; it < n_items;) {
        const int64_t pair = it + 1 < n_items && item_twin[it + 1] ? 2 : 1;
        const int64_t src0 = static_cast<int64_t>(item_src[it]) * 4;
        const int64_t src1 = static_cast<int64_t>(item_src[it + pair - 1]) * 4;
        __m512 a[kGroup], a1[kGroup];
#pragma GCC unroll 4
        for (int64_t g = 0; g < kGroup; ++g) a[g] = a1[g] = b[g];
        const int64_t end = item_end[it];
        if (pair == 2) {
          for (; e < end; ++e) {
            const uint32_t en = entry[e];
            const __mmask16 m = static_cast<__mmask16>(en);
            const int64_t t = en >> 16, o = static_cast<int64_t>(off[t]) * 4;
            const uintptr_t at0 = static_cast<uintptr_t>(src0 + o), at1 = static_cast<uintptr_t>(src1 + o);
#pragma GCC unroll 4
            for (int64_t g = 0; g < kGroup; ++g) {
              const __m512 wv = _mm512_set1_ps(w[g][t]);
              a[g] = _mm512_fmadd_ps(wv, _mm512_maskz_loadu_ps(m, reinterpret_cast<const void*>(base[g] + at0)), a[g]);
              a1[g] = _mm512_fmadd_ps(wv, _mm512_maskz_loadu_ps(m, reinterpret_cast<const void*>(base[g] + at1)), a1[g]);
            }
          }
        } else {
          for (; e < end; ++e) {
            const uint32_t en = entry[e];
            const __mmask16 m = static_cast<__mmask16>(en);
            const int64_t t = en >> 16;
            const uintptr_t at = static_cast<uintptr_t>(src0 + static_cast<int64_t>(off[t]) * 4);
#pragma GCC unroll 4
            for (int64_t g = 0; g < kGroup; ++g) {
              a[g] = _mm512_fmadd_ps(_mm512_set1_ps(w[g][t]),
                                     _mm512_maskz_loadu_ps(m, reinterpret_cast<const void*>(base[g] + at)), a[g]);
            }
          }
        }
        // Each item's accumulators by name (an index chosen at run time would keep them in memory).
        const auto put = [&](int64_t item, const __m512* acc) __attribute__((always_inline)) {
          const __mmask16 keep = item_keep[item];
          const __mmask16 run = first_lanes(__builtin_popcount(keep));
#pragma GCC unroll 4
          for (int64_t g = 0; g < kGroup; ++g) {
            _mm512_mask_storeu_ps(out[g] + item_dst[item], run,
                                  keep != run ? _mm512_maskz_compress_ps(keep, acc[g]) : acc[g]);
          }
        };
        put(it, a);
        if (pair == 2) put(it + 1, a1);
        it += pair;
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
                          int64_t pad_w, int64_t dilation_h, int64_t dilation_w, int64_t multiplier) {
  if (multiplier < 1 || channels % multiplier != 0) return false;
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

#if defined(__AVX512F__)
  // Rows of more than half a vector (narrower ones share vectors between rows in depthwise_masked), in
  // coordinates within int32 like depthwise_masked's.
  if (stride_h == 1 && stride_w == 1 && dilation_h == 1 && dilation_w == 1 && kernel_h == kernel_w &&
      (kernel_h == 3 || kernel_h == 5) && out_w > 8 && in_h <= kMaskMaxCoord && in_w <= kMaskMaxCoord &&
      out_h <= kMaskMaxCoord && out_w <= kMaskMaxCoord && pad_h <= kMaskMaxCoord && pad_w <= kMaskMaxCoord) {
    (kernel_h == 3 ? &depthwise_rows_s1_planes<3> : &depthwise_rows_s1_planes<5>)(
        input, weight, bias, output, batch * channels, channels, multiplier, in_h, in_w, out_h, out_w, pad_h, pad_w);
    return true;
  }
  // A geometry the masked path does not take goes to the caller's fallback.
  return depthwise_masked(input, weight, bias, output, batch, channels, in_h, in_w, out_h, out_w, kernel_h, kernel_w,
                          stride_h, stride_w, pad_h, pad_w, dilation_h, dilation_w, multiplier);
#else
  if (multiplier > 1) {  // plane by plane
    for (int64_t p = 0; p < batch * channels; ++p) {
      const int64_t c = p % channels;
      if (!depthwise_conv2d_f32(input + p / multiplier * in_h * in_w, weight + c * kernel_h * kernel_w,
                                bias != nullptr ? bias + c : nullptr, output + p * out_h * out_w, 1, 1, in_h, in_w,
                                out_h, out_w, kernel_h, kernel_w, stride_h, stride_w, pad_h, pad_w, dilation_h,
                                dilation_w, 1)) {
        return false;
      }
    }
    return true;
  }
  if (channels >= kLanes && in_h * in_w <= kTinyPixels && out_h * out_w <= kTinyPixels &&
      kernel_h * kernel_w <= kTinyTaps) {
    depthwise_tiny(input, weight, bias, output, batch, channels, in_h, in_w, out_h, out_w, kernel_h, kernel_w,
                   stride_h, stride_w, pad_h, pad_w, dilation_h, dilation_w);
    return true;
  }
  PlaneLayout layout;
  if (out_w <= kPlaneMaxOutW &&
      plane_layout(out_h, out_w, kernel_h, kernel_w, stride_h, stride_w, dilation_h, dilation_w, &layout)) {
    depthwise_planes(input, weight, bias, output, batch * channels, channels, in_h, in_w, out_h, out_w, kernel_h,
                     kernel_w, stride_h, stride_w, pad_h, pad_w, dilation_h, dilation_w, layout);
    return true;
  }
  return depthwise_rows(input, weight, bias, output, batch, channels, in_h, in_w, out_h, out_w, kernel_h, kernel_w,
                        stride_h, stride_w, pad_h, pad_w, dilation_h, dilation_w);
#endif
}

}  // namespace sb::optimized
