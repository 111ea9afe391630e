// Row helpers shared by the optimized depthwise convolution and pooling kernels.
#pragma once

#include <cstdint>

#include "optimized/util/vec.h"
#include "optimized/util/vec_reduce.h"
#include "sb/kernel.h"
#include "util/pool.h"

namespace sb::optimized {

// Elements i in [lo, hi) of a stride phase (element i is input column first + s * i) that lie
// inside a row of in_w columns; [lo, hi) is within [0, phase_len).
struct PhaseRange {
  int64_t lo, hi;
};
PhaseRange phase_range(int64_t first, int64_t s, int64_t in_w, int64_t phase_len);

// dst[i] = src[first + s * i] for i in r. Whole vectors are used where src has the columns
// (`readable`: floats readable from src, at least the row) and dst has a vector of room after
// each element written; lanes outside r keep dst's values.
void copy_phase(float* dst, const float* src, int64_t first, int64_t s, PhaseRange r, int64_t readable);

// One input row into `s` stride phases of `phase_len` floats each: phase p,
// element i is src[base + p + s * i] where that column is inside [0, in_w),
// `pad` elsewhere. Every tap of a window sliding by s over the row is then a
// contiguous run of one phase. Phase p starts at dst + p * phase_stride (default: phase_len, the
// phases back to back). Reads src only inside [0, in_w).
void fill_phase_row(float* dst, const float* src, int64_t in_w, int64_t base, int64_t s, int64_t phase_len, float pad,
                    int64_t phase_stride = 0);

// ---- 2-D pooling over rows (avg and max pool) ----

constexpr int64_t kPoolScratchBytes = 24 * 1024;  // stack scratch of one pooling call
constexpr int64_t kPoolScratchFloats = kPoolScratchBytes / static_cast<int64_t>(sizeof(float));
constexpr int64_t kPoolMaxKernel = 16;  // window rows and columns on the fast path
constexpr int64_t kPoolMaxStride = 8;

// The fast path of a pool: fp32 planes, dilation 1, windows separable into a pass along each
// input row (its kw taps, once per row) and one down the kh row results. Output columns go in
// tiles of `tile` (whole vectors); the row being read is split into s stride phases of phase_len
// floats (every tap one contiguous run), its results kept in a ring of kh slots of `tile` values.
struct PoolRows {
  kernels::PoolGeometry g;
  int64_t tile, phase_len;
  int64_t col_off[kPoolMaxKernel];  // tap kj's start in the phases
};

// The avg and max pool kernels' shared prologue: pool_geometry's checks (an invalid window is
// its error), then `*fast`: whether the geometry suits a fast path (dilation 1, kernel and stride
// within bounds, and for the row path with `ring_arrays` arrays of kh x tile 32-bit values beside
// the phases, a tile in kPoolScratchFloats); if so, `outs` are resized.
Error plan_pool_rows(const char* op, const Tensor& in, Args args, bool has_dilation, int64_t ring_arrays,
                     int64_t max_stride, Span<Tensor* const> outs, PoolRows* plan, bool* fast);

// Input rows split into phases ahead of their use: a vector load overlapping part of a store
// not yet written to the cache (every tap but one does) waits for it.
constexpr int64_t kPhaseAhead = 4;

// Drives the row path over every plane: for each output row, each input row its windows need and
// no ring slot holds yet is handed to row(slot, ih, phases, ow0, n), `phases` the row split into
// stride phases padded with `pad`; then out(plane, oh, slots, rows, ow0, n) reads the ring, slots[i]
// holding input row ih_lo + i (rows of them, the window's rows inside the input). `phases` holds
// kPhaseAhead rows of s * phase_len floats and a vector of slack.
template <typename Row, typename Out>
void walk_pool_rows(const PoolRows& r, const float* x, float pad, float* phases, Row row, Out out) {
  const kernels::PoolGeometry& g = r.g;
  const int64_t s = g.sw;
  const int64_t total = g.planes * g.h * g.w;
  const int64_t row_floats = s * r.phase_len;
  for (int64_t ow0 = 0; ow0 < g.ow; ow0 += r.tile) {
    const int64_t n = g.ow - ow0 < r.tile ? g.ow - ow0 : r.tile;
    const int64_t base = ow0 * s - g.pw;
    PhaseRange span[kPoolMaxStride];
    for (int64_t p = 0; p < s; ++p) span[p] = phase_range(base + p, s, g.w, r.phase_len);
    // The padding positions are the same for every row of the tile: filled once.
    for (int64_t i = 0; i < kPhaseAhead * row_floats + kLanes; ++i) phases[i] = pad;
    for (int64_t p = 0; p < g.planes; ++p) {
      // Window rows are consecutive (dilation 1): input row ih lives in slot ih % kh.
      int64_t slot_row[kPoolMaxKernel];
      for (int64_t k = 0; k < g.kh; ++k) slot_row[k] = -1;
      int64_t lo_row = 0, lo_slot = 0;  // ih_lo and its slot, advanced without dividing
      int64_t split = 0;                // rows [0, split) of the plane are split into phases
      for (int64_t oh = 0; oh < g.oh; ++oh) {
        const int64_t h0 = oh * g.sh - g.ph;
        const int64_t ih_lo = h0 < 0 ? 0 : h0;
        const int64_t ih_hi = h0 + g.kh < g.h ? h0 + g.kh : g.h;  // > ih_lo: pad <= kernel / 2
        for (lo_slot += ih_lo - lo_row, lo_row = ih_lo; lo_slot >= g.kh;) lo_slot -= g.kh;
        int64_t slots[kPoolMaxKernel];
        for (int64_t ih = ih_lo, k = lo_slot; ih < ih_hi; ++ih, k = k + 1 == g.kh ? 0 : k + 1) {
          slots[ih - ih_lo] = k;
          if (slot_row[k] == ih) continue;
          if (split <= ih) split = ih;  // rows skipped by a stride above the kernel
          for (; split < g.h && split < ih + kPhaseAhead; ++split) {
            const int64_t at = (p * g.h + split) * g.w;
            float* dst = phases + (split % kPhaseAhead) * row_floats;
            for (int64_t q = 0; q < s; ++q) copy_phase(dst + q * r.phase_len, x + at, base + q, s, span[q], total - at);
          }
          row(k, ih, phases + (ih % kPhaseAhead) * row_floats, ow0, n);
          slot_row[k] = ih;
        }
        out(p, oh, slots, ih_hi - ih_lo, ow0, n);
      }
    }
  }
}

}  // namespace sb::optimized
