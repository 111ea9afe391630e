// Row helpers shared by the optimized depthwise convolution and pooling kernels.
#pragma once

#include <cstdint>

#include "optimized/simd/vec.h"
#include "optimized/simd/vec_reduce.h"
#include "sb/thread_pool.h"
#include "util/pool.h"

namespace sb::optimized {

// One input row into `s` stride phases of `phase_len` floats each: phase p,
// element i is src[base + p + s * i] where that column is inside [0, in_w),
// `pad` elsewhere. Every tap of a window sliding by s over the row is then a
// contiguous run of one phase. Phase p starts at dst + p * phase_stride (default: phase_len, the
// phases back to back). Reads src only inside [0, in_w).
void fill_phase_row(float* dst, const float* src, int64_t in_w, int64_t base, int64_t s, int64_t phase_len, float pad,
                    int64_t phase_stride = 0);

// ---- 2-D pooling by bands of output rows (avg and max pool) ----

constexpr int64_t kPoolScratchBytes = 24 * 1024;  // stack scratch of one pooling call
constexpr int64_t kPoolScratchFloats = kPoolScratchBytes / static_cast<int64_t>(sizeof(float));
constexpr int64_t kPoolMaxKernel = 16;  // window rows and columns on the fast path

// The fast path of a pool over fp32 planes (dilation 1, stride 1 or 2 along rows): per band of
// output rows, first down each output row's window rows (whole vectors of input columns), the
// results split into stride phases (band rows of `row_len` floats: s phases of `len`; column c
// at phase (c + pw) % s, element (c + pw) / s; the other positions padding), then along each
// output row: tap kj is the contiguous run at tap_off[kj]. A row's phases are read a band after
// they are written (a vector load overlapping part of a store not yet in the cache waits).
struct PoolBands {
  kernels::PoolGeometry g;
  int64_t shift;  // s - 1: divisions by s are shifts
  int64_t len, row_len, band;
  int64_t tap_off[kPoolMaxKernel];
};

// A pool's planes as the tiles of a parallel loop: runs of whole planes of at least
// kPoolTileElements input elements each (fewer planes than that: one tile).
constexpr int64_t kPoolTileElements = 16 * 1024;

struct PoolTiles {
  int64_t planes;   // per tile
  size_t count;     // tiles
  uint64_t elements;  // input elements of the whole pool
};

inline PoolTiles pool_tiles(const kernels::PoolGeometry& g) {
  const int64_t plane = g.h * g.w > 0 ? g.h * g.w : 1;
  int64_t per = (kPoolTileElements + plane - 1) / plane;
  per = per < 1 ? 1 : per;
  return PoolTiles{per, tiles_of(g.planes, per), static_cast<uint64_t>(g.planes) * static_cast<uint64_t>(plane)};
}

// The kLanes floats from p where only `left` (< kLanes, maybe <= 0) may be read: the rest zero.
// Out of line: the end of a tensor is rare.
VecF load_upto(const float* p, int64_t left);

// Sets a band row's phase positions to `pad` (every one: the columns' are written over).
inline void pad_band_rows(float* rows, const PoolBands& b, VecF pad) {
  for (int64_t i = 0; i < b.band * b.row_len; i += kLanes) store(rows + i, pad);
}

// Columns [c, c + s * kLanes) of one band row into its phases (w, pw, shift, len as in PoolBands,
// passed as values the compiler keeps in registers): b0 holds the kLanes from c, b1 the next
// (stride 2); likewise a0, a1 into row2's when that is not null (the winners' indices, as float
// bits). Lanes of columns past the row keep what the phases hold (padding).
inline void put_phases(int64_t w, int64_t pw, int64_t shift, int64_t len, int64_t c, float* row, VecF b0, VecF b1,
                       float* row2 = nullptr, VecF a0 = VecF{}, VecF a1 = VecF{}) {
  for (int64_t q = 0; q <= shift; ++q) {
    const int64_t col = c + q;  // the first column of this pick
    if (col >= w) break;
    const int64_t at = ((col + pw) & shift) * len + ((col + pw) >> shift);
    const VecI keep = first_lanes((w - col + shift) >> shift);
    float* d = row + at;
    const VecF v = shift == 0 ? b0 : (q == 0 ? even_lanes(b0, b1) : odd_lanes(b0, b1));
    store(d, keep ? v : load(d));
    if (row2 != nullptr) {
      float* d2 = row2 + at;
      const VecF a = shift == 0 ? a0 : (q == 0 ? even_lanes(a0, a1) : odd_lanes(a0, a1));
      store(d2, keep ? a : load(d2));
    }
  }
}

}  // namespace sb::optimized
