// aten::convolution.out(Tensor input, Tensor weight, Tensor? bias, int[] stride, int[] padding,
//                       int[] dilation, bool transposed, int[] output_padding, int groups, *, Tensor(a!) out)
//
// fp32 2-D NCHW convolution as a GEMM per (image, group): out[Cout_g x OH*OW] =
// weight[Cout_g x Cin_g*KH*KW] * im2col(input)[Cin_g*KH*KW x OH*OW] + bias.
// A 1x1, stride-1, unpadded convolution multiplies the input planes in place;
// every other geometry packs its im2col panels tile by tile (zero padding
// written while packing) into the GEMM's stack scratch. Depthwise convolutions
// (one input channel per group) go to optimized/microkernels/depthwise.h; transposed,
// non-fp32 and non-default dim orders to the portable kernel. A 1-D
// convolution ([N, C, L] by [O, C/g, K]) runs as the 2-D one of [N, C, 1, L]
// by [O, C/g, 1, K]: the same data (conv_geometry gives h = kh = 1).
//
// With a pool (KernelContext::threads), several (image, group) GEMMs are the
// tiles of a parallel loop; a single one splits its own blocks (gemm.h), its
// bands (conv_banded) or its channel runs (depthwise_f32), all set by the
// shapes alone, so the outputs do not depend on the thread count.
#include "optimized/microkernels/depthwise.h"
#include "optimized/microkernels/gemm.h"
#include "sb/kernel.h"
#include "util/conv.h"
#include "util/shape.h"

#include <atomic>
#include <cstring>

namespace sb::kernels {
extern const KernelDef convolution_out;
}  // namespace sb::kernels

namespace sb::optimized {
namespace {

constexpr char kOp[] = "aten::convolution.out";

// The implicit B of one (image, group): row k = (ic, ky, kx), column j = (oy, ox).
struct Im2col {
  const float* x;  // first input plane of the group
  int64_t h, w, kh, kw, sh, sw, ph, pw, dh, dw, ow;
};

// One output-row run of a panel: panel columns [d, d + len) are output row
// oy, columns ox .. ox + len - 1.
struct Run {
  int64_t d, oy, ox, len;
};

// The panel's columns j0 .. j0 + nr - 1 as runs along output rows; their count.
int64_t panel_runs(const Im2col& s, int64_t j0, int64_t nr, Run* runs) {
  int64_t nruns = 0;
  for (int64_t d = 0, oy = j0 / s.ow, ox = j0 % s.ow; d < nr; ++oy, ox = 0) {
    const int64_t len = s.ow - ox < nr - d ? s.ow - ox : nr - d;
    runs[nruns++] = Run{d, oy, ox, len};
    d += len;
  }
  return nruns;
}

// Walks the K rows (ic, ky, kx) of the implicit B from row k0.
struct TapCursor {
  const Im2col& s;
  int64_t ic, ky, kx;
  TapCursor(const Im2col& src, int64_t k0)
      : s(src), ic(k0 / (src.kh * src.kw)), ky((k0 % (src.kh * src.kw)) / src.kw), kx(k0 % src.kw) {}
  const float* plane() const { return s.x + ic * s.h * s.w; }
  int64_t iy_k() const { return ky * s.dh - s.ph; }  // input row of output row 0
  int64_t ix_k() const { return kx * s.dw - s.pw; }  // input column of output column 0
  void next() {
    if (++kx == s.kw) {
      kx = 0;
      if (++ky == s.kh) {
        ky = 0;
        ++ic;
      }
    }
  }
};

void pack_im2col(const void* ctx, int64_t k0, int64_t kc, int64_t j0, int64_t nr, int64_t width, float* dst) {
  const Im2col& s = *static_cast<const Im2col*>(ctx);
  Run runs[kGemmNR];
  const int64_t nruns = panel_runs(s, j0, nr, runs);
  for (TapCursor t(s, k0); kc > 0; --kc, t.next(), dst += width) {
    const float* plane = t.plane();
    const int64_t iy_k = t.iy_k();
    const int64_t ix_k = t.ix_k();
    for (int64_t r = 0; r < nruns; ++r) {
      const Run& run = runs[r];
      float* d = dst + run.d;
      const int64_t iy = run.oy * s.sh + iy_k;
      if (iy < 0 || iy >= s.h) {
        zero_floats(d, run.len);
        continue;
      }
      const float* row = plane + iy * s.w;
      const int64_t ix0 = run.ox * s.sw + ix_k;  // input column of d[0]
      if (s.sw == 1) {
        // d[t] reads row[ix0 + t]: zeros where ix0 + t is outside [0, w).
        int64_t lo = -ix0;
        lo = lo < 0 ? 0 : lo > run.len ? run.len : lo;
        int64_t hi = s.w - ix0;
        hi = hi < lo ? lo : hi > run.len ? run.len : hi;
        if (lo > 0) zero_floats(d, lo);
        copy_floats(d + lo, row + ix0 + lo, hi - lo);
        if (run.len > hi) zero_floats(d + hi, run.len - hi);
      } else {
        for (int64_t t = 0; t < run.len; ++t) {
          const int64_t ix = ix0 + t * s.sw;
          d[t] = ix >= 0 && ix < s.w ? row[ix] : 0.0f;
        }
      }
    }
    if (width > nr) zero_floats(dst + nr, width - nr);
  }
}

// Output rows shorter than a vector: a panel's columns span several output rows, and the per-row
// runs above (or the masks below) cost more bookkeeping per K row than the data they move. Instead
// each column's input offset at each tap (ky, kx) is tabled once per panel (-1 where the tap reads
// padding, or past the panel's columns), and each K row is one gather per vector from its input
// plane, whatever the stride and dilation.
constexpr int64_t kGatherMaxTaps = 25;

bool gathers_panels(const kernels::ConvGeometry& g) {
  return kVectorGathers && g.ow < kLanes && g.kh * g.kw <= kGatherMaxTaps && g.h * g.w <= INT32_MAX;
}

void pack_im2col_gather(const void* ctx, int64_t k0, int64_t kc, int64_t j0, int64_t nr, int64_t width, float* dst) {
  const Im2col& s = *static_cast<const Im2col*>(ctx);
  alignas(64) int32_t at[kGatherMaxTaps][kGemmNR];
  for (int64_t ky = 0, tap = 0; ky < s.kh; ++ky) {
    for (int64_t kx = 0; kx < s.kw; ++kx, ++tap) {
      int64_t oy = j0 / s.ow, ox = j0 % s.ow;
      for (int64_t d = 0; d < width; ++d) {
        int32_t off = -1;
        if (d < nr) {
          const int64_t iy = oy * s.sh + ky * s.dh - s.ph;
          const int64_t ix = ox * s.sw + kx * s.dw - s.pw;
          if (iy >= 0 && iy < s.h && ix >= 0 && ix < s.w) off = static_cast<int32_t>(iy * s.w + ix);
          if (++ox == s.ow) ox = 0, ++oy;
        }
        at[tap][d] = off;
      }
    }
  }
  for (TapCursor t(s, k0); kc > 0; --kc, t.next(), dst += width) {
    const float* plane = t.plane();
    const int32_t* row = at[t.ky * s.kw + t.kx];
    for (int64_t v = 0; v < width; v += kLanes) {
      VecI idx;
      std::memcpy(&idx, row + v, sizeof idx);
      store(dst + v, gather_lanes(plane, idx));
    }
  }
}

#if defined(__AVX512F__)
// Stride-1 and stride-2 panels with AVX-512 lane masks: per (run, kx) the
// lanes whose input column lies inside the row are known before the K loop,
// so each panel row costs one masked load (stride 2: two, and a permute
// that keeps the even columns) and one store per 16 columns. Masked-off
// lanes are neither read nor faulted.
constexpr int64_t kMaskedMaxKw = 8;
constexpr int64_t kChunks = kGemmNR / 16;

// Bits [lo, hi) of a mask of `lanes` (<= 32) bits, the bounds clamped to it.
inline uint64_t lane_range(int64_t lo, int64_t hi, int64_t lanes) {
  lo = lo < 0 ? 0 : lo > lanes ? lanes : lo;
  hi = hi < lo ? lo : hi > lanes ? lanes : hi;
  return ((uint64_t{1} << hi) - 1) & ~((uint64_t{1} << lo) - 1);
}

template <int S>
void pack_im2col_masked(const void* ctx, int64_t k0, int64_t kc, int64_t j0, int64_t nr, int64_t width, float* dst) {
  const Im2col& s = *static_cast<const Im2col*>(ctx);
  Run runs[kGemmNR];
  const int64_t nruns = panel_runs(s, j0, nr, runs);
  // load[r][kx][chunk][h]: lanes of input vector h (of S) the chunk reads.
  __mmask16 load[kGemmNR][kMaskedMaxKw][kChunks][S];
  __mmask16 keep[kGemmNR][kChunks];  // lanes of the chunk inside the run
  for (int64_t r = 0; r < nruns; ++r) {
    for (int64_t c = 0; c < kChunks; ++c) {
      const int64_t n = runs[r].len - c * 16;
      keep[r][c] = n <= 0 ? 0 : n >= 16 ? 0xFFFF : static_cast<__mmask16>((1u << n) - 1u);
    }
    for (int64_t kx = 0; kx < s.kw; ++kx) {
      const int64_t ix0 = runs[r].ox * S + kx * s.dw - s.pw;
      for (int64_t c = 0; c < kChunks; ++c) {
        // Input lanes l of the chunk's 16 * S span: column ix0 + 16 * S * c + l, inside [0, w),
        // on a multiple of S, below S * (the chunk's run lanes).
        const int64_t base = ix0 + 16 * S * c;
        const uint64_t in_row = lane_range(-base, s.w - base, 16 * S);
        const uint64_t taken = lane_range(0, S * (runs[r].len - 16 * c), 16 * S) & (S == 2 ? 0x55555555u : 0xFFFFu);
        const uint64_t m = in_row & taken;
        for (int h = 0; h < S; ++h) load[r][kx][c][h] = static_cast<__mmask16>(m >> (16 * h));
      }
    }
  }
  // Short runs (rows of up to 8 outputs: each run read by one input vector)
  // go two to a vector: lanes [0, a) from run r's vector, the rest from run
  // r + 1's, one two-source permute (index pidx[r / 2]) and one store.
  bool pairs = nruns > 1;
  for (int64_t r = 0; r < nruns; ++r) pairs = pairs && runs[r].len <= 8;
  uint8_t pidx[kGemmNR / 2][16];
  __mmask16 pkeep[kGemmNR / 2];
  if (pairs) {
    for (int64_t r = 0; r < nruns; r += 2) {
      const int64_t a = runs[r].len, b = r + 1 < nruns ? runs[r + 1].len : 0;
      for (int64_t l = 0; l < 16; ++l) pidx[r / 2][l] = static_cast<uint8_t>(l < a ? S * l : 16 + S * (l - a));
      pkeep[r / 2] = static_cast<__mmask16>((1u << (a + b)) - 1u);
    }
  }
  const __m512i evens = _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0);
  for (TapCursor t(s, k0); kc > 0; --kc, t.next(), dst += width) {
    const float* plane = t.plane();
    const int64_t iy_k = t.iy_k();
    const int64_t ix_k = t.ix_k();
    // Run r's first input vector at this tap (address arithmetic in
    // integers: the first lanes may lie left of the row, masked off).
    const auto first_vector = [&](int64_t r) {
      const Run& run = runs[r];
      const int64_t iy = run.oy * s.sh + iy_k;
      const __mmask16 m = iy >= 0 && iy < s.h ? load[r][t.kx][0][0] : 0;
      const uintptr_t at = reinterpret_cast<uintptr_t>(plane) +
                           static_cast<uintptr_t>((iy * s.w + run.ox * S + ix_k) * static_cast<int64_t>(sizeof(float)));
      return _mm512_maskz_loadu_ps(m, reinterpret_cast<const void*>(at));
    };
    for (int64_t r = 0; pairs && r < nruns; r += 2) {
      const __m512 va = first_vector(r);
      const __m512 vb = r + 1 < nruns ? first_vector(r + 1) : _mm512_setzero_ps();
      const __m128i idx8 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(pidx[r / 2]));
      const __m512i idx = _mm512_maskz_cvtepu8_epi32(0xFFFF, idx8);
      _mm512_mask_storeu_ps(dst + runs[r].d, pkeep[r / 2], _mm512_permutex2var_ps(va, idx, vb));
    }
    for (int64_t r = 0; !pairs && r < nruns; ++r) {
      const Run& run = runs[r];
      float* d = dst + run.d;
      const int64_t iy = run.oy * s.sh + iy_k;
      const bool row_in = iy >= 0 && iy < s.h;
      // Address arithmetic in integers: the first lanes may lie left of the row (masked off).
      const uintptr_t src = reinterpret_cast<uintptr_t>(plane) +
                            static_cast<uintptr_t>((iy * s.w + run.ox * S + ix_k) * static_cast<int64_t>(sizeof(float)));
      for (int64_t c = 0; c < kChunks && c * 16 < run.len; ++c) {
        const uintptr_t at = src + static_cast<uintptr_t>(c * 64 * S);
        __m512 v = _mm512_maskz_loadu_ps(row_in ? load[r][t.kx][c][0] : 0, reinterpret_cast<const void*>(at));
        if constexpr (S == 2) {
          const __m512 hi = _mm512_maskz_loadu_ps(row_in ? load[r][t.kx][c][1] : 0, reinterpret_cast<const void*>(at + 64));
          v = _mm512_permutex2var_ps(v, evens, hi);
        }
        if (keep[r][c] == 0xFFFF) {
          _mm512_storeu_ps(d + c * 16, v);
        } else {
          _mm512_mask_storeu_ps(d + c * 16, keep[r][c], v);
        }
      }
    }
    if (width > nr) zero_floats(dst + nr, width - nr);
  }
}
#endif

// Convolutions with one stride s in both dims, without im2col: a band of
// output rows reads a zero-padded copy of the input rows it needs (every
// channel of the group; padded rows of wp = w + 2 * pw), split into s x s
// phases (padded row % s, padded column % s; only the phases some tap
// reads) of wq = ceil(wp / s) columns. In that copy the B row of tap
// (ic, ky, kx) is one phase shifted by (ky * dh) / s rows and (kx * dw) / s
// columns, so the GEMM runs over output positions in phase-width
// coordinates (oy * wq + ox; the ox >= ow columns are computed and dropped),
// reading B in place through a table of row offsets and storing straight
// into the output rows (the GEMM's column map drops the padding columns).
// The band and the table take kBandBytes + 4 * kMaxBandK bytes of stack
// (27 KiB: with the GEMM's frames, under 32 KiB).
constexpr int64_t kBandBytes = 23 * 1024;
constexpr int64_t kMaxBandK = 1024;
constexpr int64_t kMaxBandStride = 4;

// dst[t] = src[2 * t] for t < n (reads src[0 .. 2n - 2] only): two loads
// and one even-lane shuffle per vector.
void gather_even(float* dst, const float* src, int64_t n) {
  VecI evens;
  for (int64_t l = 0; l < kLanes; ++l) evens[l] = static_cast<int32_t>(2 * l);
  for (int64_t t = 0; t < n; t += kLanes, src += 2 * kLanes) {
    const int64_t cnt = n - t < kLanes ? n - t : kLanes;
    const int64_t need = 2 * cnt - 1;  // floats read
    const VecF lo = need >= kLanes ? load(src) : load_tail(src, need);
    const VecF hi = need > kLanes ? load_tail(src + kLanes, need - kLanes) : VecF{};
    store_tail(dst + t, __builtin_shuffle(lo, hi, evens), cnt);
  }
}

// How a band path splits its work, from the shape alone (so outputs never depend on the thread count):
// bands of output rows as tall as the band buffer holds (`fixed` floats, plus `per_row` per output row),
// evened out; then, when a pool takes the work and the bands are fewer than the blocks the work is
// worth, blocks of output channels (whole kGemmMR tiles).
struct BandSplit {
  int64_t rows, bands;        // output rows per band, and bands
  int64_t row_step, row_blocks;  // output channels per block, and blocks
  ThreadPool* pool;           // the pool to split over, or nullptr: too little work
};

BandSplit split_bands(const kernels::ConvGeometry& g, int64_t per_row, int64_t fixed, int64_t k, int64_t cout_g,
                      ThreadPool* pool) {
  constexpr int64_t kFloats = kBandBytes / static_cast<int64_t>(sizeof(float));
  BandSplit split;
  split.rows = (kFloats - fixed) / per_row;
  split.rows = split.rows > g.oh ? g.oh : split.rows;
  split.bands = (g.oh + split.rows - 1) / split.rows;
  split.rows = (g.oh + split.bands - 1) / split.bands;
  const uint64_t fmas = static_cast<uint64_t>(cout_g) * static_cast<uint64_t>(g.oh * g.ow * k);
  split.pool = pool_for(pool, fmas, kParallelMinFmas);
  int64_t want = static_cast<int64_t>(fmas) / kGemmMinBlockFmas;
  want = want > kGemmMaxBlocks ? kGemmMaxBlocks : want;
  const int64_t row_units = (cout_g + kGemmMR - 1) / kGemmMR;
  int64_t row_blocks = split.pool == nullptr || split.bands >= want ? 1 : (want + split.bands - 1) / split.bands;
  row_blocks = row_blocks > row_units ? row_units : row_blocks;
  split.row_step = (row_units + row_blocks - 1) / row_blocks * kGemmMR;
  split.row_blocks = (cout_g + split.row_step - 1) / split.row_step;
  return split;
}

// With a pool, the bands are tiles, and so (when the bands are fewer than
// the blocks a GEMM of this size would split into) are blocks of output
// channels, each packing its band again: the split depends on the shape alone.
__attribute__((noinline)) bool conv_banded(const kernels::ConvGeometry& g, const float* xg, const float* a,
                                           int64_t cin_g, int64_t cout_g, const float* row_bias, float* c,
                                           ThreadPool* pool) {
  constexpr int64_t kFloats = kBandBytes / static_cast<int64_t>(sizeof(float));
  // Each factor below kFloats first, so the size products cannot overflow.
  if (g.w > kFloats || g.pw > kFloats || g.kh > kFloats || g.dh > kFloats || g.kw > kFloats || g.dw > kFloats ||
      cin_g > kFloats || cout_g > kFloats || g.sh != g.sw || g.sh > kMaxBandStride) {
    return false;
  }
  const int64_t st = g.sh;
  // Phases the taps read, and each one's slot in the band.
  int64_t row_slot[kMaxBandStride], col_slot[kMaxBandStride];
  int64_t row_phase[kMaxBandStride], col_phase[kMaxBandStride];
  int64_t nrp = 0, ncp = 0;
  for (int64_t i = 0; i < st; ++i) row_slot[i] = col_slot[i] = -1;
  for (int64_t ky = 0; ky < g.kh && nrp < st; ++ky) {
    const int64_t ph = (ky * g.dh) % st;
    if (row_slot[ph] < 0) row_phase[row_slot[ph] = nrp++] = ph;
  }
  for (int64_t kx = 0; kx < g.kw && ncp < st; ++kx) {
    const int64_t ph = (kx * g.dw) % st;
    if (col_slot[ph] < 0) col_phase[col_slot[ph] = ncp++] = ph;
  }
  const int64_t wp = g.w + 2 * g.pw;
  const int64_t wq = (wp + st - 1) / st;
  if (wq * 4 > g.ow * 5) return false;  // the dropped columns would cost more than a quarter more FMAs
  // Strided bands (stride 2: even lanes shuffled out of two loads; wider:
  // lane by lane) against im2col panels, measured: they lose on rows under
  // 16; with AVX-512's masked panels also on rows of whole 16-lane chunks
  // unless the kernel has 25+ taps (im2col's K per column grows with it).
  if (st > 1 && g.ow < 16) return false;
#if defined(__AVX512F__)
  if (st > 1 && g.ow % 16 == 0 && g.kh * g.kw < 25) return false;
#endif
  const int64_t ext = (g.kh - 1) * g.dh / st;
  const int64_t k = cin_g * g.kh * g.kw;
  const int64_t slack = kGemmNR + (g.kw - 1) * g.dw / st;  // the last tile's over-read
  const int64_t planes = cin_g * nrp * ncp;
  const int64_t per_row = planes * wq;
  const int64_t fixed = planes * ext * wq + slack;
  if (k > kMaxBandK || fixed + per_row > kFloats) return false;
  const BandSplit split = split_bands(g, per_row, fixed, k, cout_g, pool);
  const int64_t rows = split.rows, row_step = split.row_step;
  parallelize_2d(split.pool, static_cast<size_t>(split.bands), static_cast<size_t>(split.row_blocks),
                 [&](size_t band_index, size_t block) {
    const int64_t oy0 = static_cast<int64_t>(band_index) * rows;
    const int64_t m0 = static_cast<int64_t>(block) * row_step;
    const int64_t mc = cout_g - m0 < row_step ? cout_g - m0 : row_step;
    alignas(64) float buf[kFloats];
    int32_t offs[kMaxBandK];
    const int64_t rb = g.oh - oy0 < rows ? g.oh - oy0 : rows;
    const int64_t brq = rb + ext;  // band rows per phase
    float* band = buf;
    if (st == 1) {
      // One phase: rows of [pw zeros, the input row, pw zeros]. The band is
      // zeroed in one pass of whole vectors, then the input rows copied in
      // (cheaper than three short runs per row).
      zero_floats(band, planes * brq * wq);
      const int64_t r0 = g.ph - oy0 > 0 ? g.ph - oy0 : 0;             // first band row inside the input
      const int64_t r1 = g.h + g.ph - oy0 < brq ? g.h + g.ph - oy0 : brq;  // past the last
      for (int64_t ic = 0; ic < cin_g; ++ic) {
        const float* src = xg + (ic * g.h + oy0 - g.ph + r0) * g.w;
        float* d = band + (ic * brq + r0) * wq + g.pw;
        for (int64_t r = r0; r < r1; ++r, src += g.w, d += wq) copy_floats(d, src, g.w);
      }
    }
    for (int64_t ic = 0; ic < (st == 1 ? 0 : cin_g); ++ic) {
      const float* plane = xg + ic * g.h * g.w;
      for (int64_t rs = 0; rs < nrp; ++rs) {
        for (int64_t r = 0; r < brq; ++r) {
          const int64_t iy = (oy0 + r) * st + row_phase[rs] - g.ph;
          const bool row_in = iy >= 0 && iy < g.h;
          const float* row = row_in ? plane + iy * g.w : plane;
          for (int64_t cs = 0; cs < ncp; ++cs) {
            float* d = band + (((ic * nrp + rs) * ncp + cs) * brq + r) * wq;
            if (!row_in) {
              zero_floats(d, wq);
              continue;
            }
            // d[q] = padded column q * st + phase = input column q * st + phase - pw.
            const int64_t shift = col_phase[cs] - g.pw;
            int64_t lo = shift >= 0 ? 0 : (-shift + st - 1) / st;
            int64_t hi = g.w - shift <= 0 ? 0 : (g.w - shift + st - 1) / st;
            lo = lo > wq ? wq : lo;
            hi = hi > wq ? wq : hi < lo ? lo : hi;
            zero_floats(d, lo);
            if (st == 2) {
              gather_even(d + lo, row + 2 * lo + shift, hi - lo);
            } else {
              for (int64_t q = lo; q < hi; ++q) d[q] = row[q * st + shift];
            }
            zero_floats(d + hi, wq - hi);
          }
        }
      }
    }
    zero_floats(band + planes * brq * wq, slack);
    // Tap offsets without divisions: ky * dh and kx * dw walk as (quotient, phase) by st.
    const int64_t dh_q = g.dh / st, dh_r = g.dh % st, dw_q = g.dw / st, dw_r = g.dw % st;
    int64_t idx = 0;
    for (int64_t ic = 0; ic < cin_g; ++ic) {
      for (int64_t ky = 0, yq = 0, yr = 0; ky < g.kh; ++ky) {
        const int64_t row_base = ((ic * nrp + row_slot[yr]) * ncp) * brq + yq;
        for (int64_t kx = 0, xq = 0, xr = 0; kx < g.kw; ++kx) {
          offs[idx++] = static_cast<int32_t>((row_base + col_slot[xr] * brq) * wq + xq);
          xq += dw_q;
          if ((xr += dw_r) >= st) xr -= st, ++xq;
        }
        yq += dh_q;
        if ((yr += dh_r) >= st) yr -= st, ++yq;
      }
    }
    ColumnMap map;
    map.period = wq;
    map.valid = g.ow;
    gemm_f32_offsets(mc, rb * wq, k, a + m0 * k, k, band, offs, c + m0 * g.oh * g.ow + oy0 * g.ow, g.oh * g.ow,
                     row_bias ? row_bias + m0 : nullptr, map);
  });
  return true;
}

// Stride-1 "same" convolutions (ow == w, oh == h) on narrow rows, where conv_banded's padded rows
// would compute a large share of dropped columns (8-wide rows padded to 10: a quarter more FMAs).
// Here the band's rows keep the input's own pitch w, so output (oy, ox) is column oy * w + ox and
// every computed column is stored. Tap (ky, kx) reads column ox + s (s = kx * dw - pw): where that
// falls outside the row, the flat index runs into the neighbouring row's far end, so each column
// shift s has its own copy of the band with those |s| columns zeroed (never read legitimately in
// that copy), plus one zero guard row ahead of each copy for the first row's left reads. The
// values summed, and their order, are those of conv_banded: the outputs match it bit for bit.
constexpr int64_t kMaxShiftTaps = 7;  // kernel columns, one band copy each
constexpr int64_t kMaxShiftWidth = 12;

__attribute__((noinline)) bool conv_shifted(const kernels::ConvGeometry& g, const float* xg, const float* a,
                                            int64_t cin_g, int64_t cout_g, const float* row_bias, float* c,
                                            ThreadPool* pool) {
  constexpr int64_t kFloats = kBandBytes / static_cast<int64_t>(sizeof(float));
  if (g.sh != 1 || g.sw != 1 || g.ow != g.w || g.oh != g.h || g.pw == 0 || g.w > kMaxShiftWidth ||
      g.kw > kMaxShiftTaps || g.kh > kFloats || g.dh > kFloats || cin_g > kFloats || cout_g > kFloats) {
    return false;
  }
  const int64_t w = g.w, ns = g.kw;
  int64_t shift[kMaxShiftTaps];
  for (int64_t kx = 0; kx < ns; ++kx) {
    shift[kx] = kx * g.dw - g.pw;
    if (shift[kx] <= -w || shift[kx] >= w) return false;  // every tap reads some of its row
  }
  const int64_t ext = (g.kh - 1) * g.dh;
  const int64_t k = cin_g * g.kh * g.kw;
  const int64_t copies = cin_g * ns;
  const int64_t per_row = copies * w;
  const int64_t fixed = copies * (ext + 1) * w + w + kGemmNR;  // guard rows, the last tile's over-read
  if (k > kMaxBandK || fixed + per_row > kFloats) return false;
  const BandSplit split = split_bands(g, per_row, fixed, k, cout_g, pool);
  const int64_t rows = split.rows, row_step = split.row_step;
  parallelize_2d(split.pool, static_cast<size_t>(split.bands), static_cast<size_t>(split.row_blocks),
                 [&](size_t band_index, size_t block) {
    const int64_t oy0 = static_cast<int64_t>(band_index) * rows;
    const int64_t m0 = static_cast<int64_t>(block) * row_step;
    const int64_t mc = cout_g - m0 < row_step ? cout_g - m0 : row_step;
    alignas(64) float buf[kFloats];
    int32_t offs[kMaxBandK];
    const int64_t rb = g.oh - oy0 < rows ? g.oh - oy0 : rows;
    const int64_t brq = rb + ext;          // band rows per copy
    const int64_t pitch = (brq + 1) * w;   // a copy with its guard row
    zero_floats(buf, copies * pitch + w + kGemmNR);
    const int64_t r0 = g.ph - oy0 > 0 ? g.ph - oy0 : 0;                  // first band row inside the input
    const int64_t r1 = g.h + g.ph - oy0 < brq ? g.h + g.ph - oy0 : brq;  // past the last
    for (int64_t ic = 0; ic < cin_g; ++ic) {
      for (int64_t sx = 0; sx < ns; ++sx) {
        // Copy s keeps columns [max(0, s), min(w, w + s)): the ones its tap reads inside the row.
        const int64_t lo = shift[sx] > 0 ? shift[sx] : 0;
        const int64_t hi = shift[sx] < 0 ? w + shift[sx] : w;
        const float* src = xg + (ic * g.h + oy0 - g.ph + r0) * w + lo;
        float* d = buf + (ic * ns + sx) * pitch + (1 + r0) * w + lo;
        for (int64_t r = r0; r < r1; ++r, src += w, d += w) copy_floats(d, src, hi - lo);
      }
    }
    int64_t idx = 0;
    for (int64_t ic = 0; ic < cin_g; ++ic) {
      for (int64_t ky = 0; ky < g.kh; ++ky) {
        for (int64_t kx = 0; kx < g.kw; ++kx) {
          offs[idx++] = static_cast<int32_t>((ic * ns + kx) * pitch + (1 + ky * g.dh) * w + shift[kx]);
        }
      }
    }
    gemm_f32_offsets(mc, rb * w, k, a + m0 * k, k, buf, offs, c + m0 * g.oh * g.ow + oy0 * g.ow, g.oh * g.ow,
                     row_bias ? row_bias + m0 : nullptr, ColumnMap{});
  });
  return true;
}

// Depthwise convolution split into tiles of one image and a run of channels: whole vectors of them
// (the kernels vectorise across channels on tiny planes), the last run taking the remainder so that
// every run has at least kDepthwiseChannels, and a multiple of the multiplier (each run starts at an
// input plane). Whether the kernel takes the geometry depends on neither, so every tile agrees.
constexpr int64_t kDepthwiseChannels = 32;

bool depthwise_f32(ThreadPool* pool, const kernels::ConvGeometry& g, const float* x, const float* w,
                   const float* bias, float* y, int64_t multiplier) {
  const uint64_t fmas = static_cast<uint64_t>(g.n * g.c_out) * static_cast<uint64_t>(g.oh * g.ow * g.kh * g.kw);
  pool = pool_for(pool, fmas, kParallelMinFmas);
  const int64_t step = (kDepthwiseChannels + multiplier - 1) / multiplier * multiplier;
  const int64_t runs = g.c_out / step;
  if (pool == nullptr || g.n * runs < 2) {
    return depthwise_conv2d_f32(x, w, bias, y, g.n, g.c_out, g.h, g.w, g.oh, g.ow, g.kh, g.kw, g.sh, g.sw, g.ph, g.pw,
                                g.dh, g.dw, multiplier);
  }
  std::atomic<bool> taken{true};
  parallelize_2d(pool, static_cast<size_t>(g.n), static_cast<size_t>(runs), [&](size_t image, size_t run) {
    const int64_t c0 = static_cast<int64_t>(run) * step;
    const int64_t channels = static_cast<int64_t>(run) + 1 == runs ? g.c_out - c0 : step;
    const int64_t n = static_cast<int64_t>(image);
    const bool ok = depthwise_conv2d_f32(x + (n * g.c_in + c0 / multiplier) * g.h * g.w, w + c0 * g.kh * g.kw,
                                         bias ? bias + c0 : nullptr, y + (n * g.c_out + c0) * g.oh * g.ow, 1, channels,
                                         g.h, g.w, g.oh, g.ow, g.kh, g.kw, g.sh, g.sw, g.ph, g.pw, g.dh, g.dw,
                                         multiplier);
    if (!ok) taken.store(false, std::memory_order_relaxed);
  });
  return taken.load(std::memory_order_relaxed);
}

bool is_f32_default(const Tensor& t) { return t.dtype == ScalarType::kFloat && t.is_default_dim_order(); }

Error convolution_out_impl(KernelContext& ctx, Args args) {
  const Tensor& in = *args[0]->as_tensor;
  const Tensor& weight = *args[1]->as_tensor;
  const Value& bias_v = *args[2];
  Tensor& out = *args[9]->as_tensor;
  const bool fast_types = (in.dim == 4 || in.dim == 3) && !args[6]->as_bool && is_f32_default(in) && is_f32_default(weight) &&
                          is_f32_default(out) && (bias_v.is_none() || bias_v.as_tensor->dtype == ScalarType::kFloat);
  if (!fast_types) return sb::kernels::convolution_out.fn(ctx, args);
  kernels::ConvGeometry g{};
  Error err = kernels::conv_geometry(kOp, in, weight, args[3]->as_int_list, args[4]->as_int_list, args[5]->as_int_list,
                                     false, args[7]->as_int_list, args[8]->as_int, &g);
  if (!err.ok()) return sb::kernels::convolution_out.fn(ctx, args);
  const int64_t cin_g = g.c_in / g.groups;
  const int64_t cout_g = g.c_out / g.groups;
  int64_t out_sizes[4];
  err = kernels::resize_output(kOp, out, out_sizes, kernels::conv_out_sizes(in, g, out_sizes));
  if (!err.ok()) return err;
  if (!bias_v.is_none() && bias_v.as_tensor->numel() != g.c_out) return sb::kernels::convolution_out.fn(ctx, args);

  const float* x = in.data_as<float>();
  const float* w = weight.data_as<float>();
  const float* bias = bias_v.is_none() ? nullptr : bias_v.as_tensor->data_as<float>();
  float* y = out.data_as<float>();
  if (cin_g == 1 && g.groups > 1) {
    // Depthwise (optimized/microkernels/depthwise.h): each output channel from one input plane, cout_g per plane.
    if (depthwise_f32(ctx.threads(), g, x, w, bias, y, cout_g)) return Error();
    return sb::kernels::convolution_out.fn(ctx, args);
  }
  const int64_t k = cin_g * g.kh * g.kw;
  const int64_t n_cols = g.oh * g.ow;
  const int64_t in_plane = g.h * g.w;
  const bool pointwise = g.kh == 1 && g.kw == 1 && g.sh == 1 && g.sw == 1 && g.ph == 0 && g.pw == 0;
  // One GEMM per (image, group). Several of them (grouped convolutions, batches) are the tiles, each
  // on one thread; fewer than kMinOuterTiles split their own blocks instead.
  constexpr int64_t kMinOuterTiles = 4;
  const int64_t gemms = g.n * g.groups;
  ThreadPool* pool = pool_for(ctx.threads(), static_cast<uint64_t>(g.n * g.c_out) * static_cast<uint64_t>(n_cols * k),
                              kParallelMinFmas);
  ThreadPool* outer = gemms >= kMinOuterTiles ? pool : nullptr;
  ThreadPool* inner = gemms >= kMinOuterTiles ? nullptr : pool;
  parallelize_1d(outer, static_cast<size_t>(gemms), [&](size_t t) {
    const int64_t n = static_cast<int64_t>(t) / g.groups, grp = static_cast<int64_t>(t) % g.groups;
    const float* xg = x + (n * g.c_in + grp * cin_g) * in_plane;
    const float* a = w + grp * cout_g * k;
    float* c = y + (n * g.c_out + grp * cout_g) * n_cols;
    GemmBias gb;
    gb.row = bias ? bias + grp * cout_g : nullptr;
    if (pointwise) {
      gemm_f32(cout_g, n_cols, k, a, k, xg, in_plane, c, n_cols, gb, inner);
    } else if (conv_shifted(g, xg, a, cin_g, cout_g, gb.row, c, inner)) {
    } else if (conv_banded(g, xg, a, cin_g, cout_g, gb.row, c, inner)) {
    } else {
      const Im2col src{xg, g.h, g.w, g.kh, g.kw, g.sh, g.sw, g.ph, g.pw, g.dh, g.dw, g.ow};
      PanelPacker packer{&pack_im2col, &src};
#if defined(__AVX512F__)
      if (g.kw <= kMaskedMaxKw && kGemmNR % 16 == 0) {
        if (g.sw == 1) packer.pack = &pack_im2col_masked<1>;
        if (g.sw == 2) packer.pack = &pack_im2col_masked<2>;
      }
#endif
      // Masked panels where AVX-512 has them: its gathers measured slower than them (AVX2's faster
      // than the runs).
      if (packer.pack == &pack_im2col && gathers_panels(g)) packer.pack = &pack_im2col_gather;
      gemm_f32_packed(cout_g, n_cols, k, a, k, packer, c, n_cols, gb, inner);
    }
  });
  return Error();
}

}  // namespace

extern const KernelDef opt_convolution_out{kOp, "TTtIIIbIi|T", &convolution_out_impl, {}, LayoutPolicy::kAny};

}  // namespace sb::optimized
