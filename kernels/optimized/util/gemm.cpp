#include "optimized/util/gemm.h"

namespace sb::optimized {
namespace {

// Few rows (the token-by-token GEMMs of recurrent and transformer models):
// wider tiles keep more independent accumulators in flight.
constexpr int kSmallMR = kGemmMR / 2;
constexpr int kSmallNV = kGemmNV * 2;
constexpr int kMaxAcc = kGemmMR * kGemmNV;  // accumulators of the largest tile

// C written by the tile itself: the common case (one run of whole vectors
// at the tile's first lane), stored from the registers.
struct TileStore {
  float* c;
  int64_t ldc;
  bool first;             // the first K block: add the bias, else C's partial sum
  const float* row_bias;  // per row of the block, or null
  const float* col_bias;  // per tile column, or null
};

// The register tile: acc[MR x NV vectors] = A rows x B over kc. B's row p
// starts at b + p * ldb + offs[p * ostep]: a plain matrix (ostep 0, offs ->
// 0) or rows anywhere (ldb 0, ostep 1). With `st` the tile finishes C
// itself; otherwise it writes acc to `out` (MR rows of NV * kLanes floats)
// for the shared epilogue (column edges, the column map), so a tile shape
// costs little more than its K loop.
template <int MR, int NV>
void tile(int64_t kc, const float* a, int64_t lda, const float* b, int64_t ldb, const int32_t* offs, int64_t ostep,
          float* out, const TileStore* st) {
  static_assert(MR * NV <= kMaxAcc, "tile exceeds the register budget");
  VecF acc[MR][NV];
#pragma GCC unroll 8
  for (int i = 0; i < MR; ++i) {
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) acc[i][v] = VecF{};
  }
  for (int64_t p = 0; p < kc; ++p, b += ldb, offs += ostep) {
    const float* brow = b + *offs;
    VecF bv[NV];
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) bv[v] = load(brow + v * kLanes);
#pragma GCC unroll 8
    for (int i = 0; i < MR; ++i) {
      const VecF ai = splat(a[i * lda + p]);
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) acc[i][v] = gemm_fma(ai, bv[v], acc[i][v]);
    }
  }
  if (!st) {
#pragma GCC unroll 8
    for (int i = 0; i < MR; ++i) {
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) store(out + (i * NV + v) * kLanes, acc[i][v]);
    }
    return;
  }
  // The record's fields in registers: C's stores may not alias them.
  float* const c = st->c;
  const int64_t ldc = st->ldc;
  const float* const row_bias = st->row_bias;
  const float* const col_bias = st->col_bias;
  if (st->first) {
    VecF cb[NV] = {};
    if (col_bias) {
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) cb[v] = load(col_bias + v * kLanes);
    }
    float rbs[MR] = {};
    if (row_bias) {
#pragma GCC unroll 8
      for (int i = 0; i < MR; ++i) rbs[i] = row_bias[i];
    }
#pragma GCC unroll 8
    for (int i = 0; i < MR; ++i) {
      const VecF rb = splat(rbs[i]);
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) store(c + i * ldc + v * kLanes, acc[i][v] + (rb + cb[v]));
    }
  } else {
#pragma GCC unroll 8
    for (int i = 0; i < MR; ++i) {
      float* row = c + i * ldc;
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) store(row + v * kLanes, acc[i][v] + load(row + v * kLanes));
    }
  }
}

using TileFn = void (*)(int64_t, const float*, int64_t, const float*, int64_t, const int32_t*, int64_t, float*,
                       const TileStore*);

struct TileKind {
  TileFn fn;
  int mr;
};

// Tiles by vectors (1, 2, 4), each a ladder of row counts: full row blocks
// take the first, the remainder the next ones down (8: 4 + 2 + 1 covers 7).
constexpr int kLevels = 4;
constexpr int kMidMR = kSmallMR > 2 ? kSmallMR : 2;
constexpr TileKind kTiles[3][kLevels] = {
    {{&tile<kGemmMR, 1>, kGemmMR}, {&tile<kMidMR, 1>, kMidMR}, {&tile<2, 1>, 2}, {&tile<1, 1>, 1}},
    {{&tile<kGemmMR, 2>, kGemmMR}, {&tile<kMidMR, 2>, kMidMR}, {&tile<2, 2>, 2}, {&tile<1, 2>, 1}},
    {{&tile<kMidMR, kSmallNV>, kMidMR}, {&tile<kMidMR, kSmallNV>, kMidMR}, {&tile<2, kSmallNV>, 2},
     {&tile<1, kSmallNV>, 1}},
};
static_assert(kMidMR * kSmallNV <= kMaxAcc, "few-row tile exceeds the register budget");

// A run of one tile's columns that lands contiguously in C: tile lanes
// [lane, lane + len) go to C columns [out, out + len) (of every tile row).
struct Seg {
  int64_t lane, len, out;
};

// Where a tile's output goes and what joins it.
struct TileOut {
  float* c;  // row 0 of the row block; Seg::out counts from here
  int64_t ldc;
  const Seg* segs;
  int64_t nseg;
  bool first;             // the first K block: add the bias, else C's partial sum
  const float* row_bias;  // per row of the block, or null
  const float* col_bias;  // per C column (indexed like Seg::out), or null
};

// The shared epilogue for rows i0 .. i0 + mr - 1: C rows = tile rows
// (+ bias | + C), lane runs by segment.
__attribute__((noinline)) void finish(const float* acc, int64_t width, int64_t i0, int64_t mr, const TileOut& o) {
  for (int64_t i = i0; i < i0 + mr; ++i, acc += width) {
    float* row = o.c + i * o.ldc;
    const VecF rb = splat(o.first && o.row_bias ? o.row_bias[i] : 0.0f);
    for (int64_t s = 0; s < o.nseg; ++s) {
      const Seg& seg = o.segs[s];
      for (int64_t t = 0; t < seg.len; t += kLanes) {
        const int64_t cnt = seg.len - t < kLanes ? seg.len - t : kLanes;
        float* dst = row + seg.out + t;
        VecF x = load_n(acc + seg.lane + t, cnt);
        if (!o.first) {
          x += load_n(dst, cnt);
        } else {
          x += rb;
          if (o.col_bias) x += load_n(o.col_bias + seg.out + t, cnt);
        }
        store_n(dst, x, cnt);
      }
    }
  }
}

// The row blocks of one column tile of nv (1, 2, 4) vectors, down the ladder.
void run_rows(int64_t m, int64_t nv, int64_t kc, const float* a, int64_t lda, const float* b, int64_t ldb,
              const int32_t* offs, int64_t ostep, const TileOut& o) {
  const TileKind* kinds = kTiles[nv > 2 ? 2 : nv - 1];
  const int64_t width = nv * kLanes;
  alignas(64) float acc[kMaxAcc * kLanes];
  // One run of whole vectors from lane 0: the tile stores C from its registers.
  const bool in_tile = o.nseg == 1 && o.segs[0].lane == 0 && o.segs[0].len == width;
  TileStore st;
  st.ldc = o.ldc;
  st.first = o.first;
  st.col_bias = o.col_bias ? o.col_bias + o.segs[0].out : nullptr;
  int64_t i = 0;
  for (int l = 0; l < kLevels; ++l) {
    const TileFn fn = kinds[l].fn;
    const int mr = kinds[l].mr;
    for (; m - i >= mr; i += mr) {
      if (in_tile) {
        st.c = o.c + i * o.ldc + o.segs[0].out;
        st.row_bias = o.row_bias ? o.row_bias + i : nullptr;
        fn(kc, a + i * lda, lda, b, ldb, offs, ostep, acc, &st);
      } else {
        fn(kc, a + i * lda, lda, b, ldb, offs, ostep, acc, nullptr);
        finish(acc, width, i, mr, o);
      }
    }
  }
}

constexpr int32_t kNoOffset[1] = {0};

struct DirectSource {
  const float* b;
  int64_t ldb;
};

void pack_direct(const void* ctx, int64_t k0, int64_t kc, int64_t j0, int64_t nr, int64_t width, float* dst) {
  const auto* s = static_cast<const DirectSource*>(ctx);
  const float* src = s->b + k0 * s->ldb + j0;
  for (int64_t p = 0; p < kc; ++p) {
    copy_floats(dst, src, nr);
    zero_floats(dst + nr, width - nr);
    dst += width;
    src += s->ldb;
  }
}

// The shared driver: column tiles of nv_max vectors (the last ones as few
// vectors as they need), K blocks that fit the scratch, row blocks down the
// ladder. `direct` (may be null) gives B in place for tiles of whole
// vectors; the others are packed into `panel` (kGemmScratchBytes, null when
// no tile needs it).
__attribute__((noinline)) void drive_tiles(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda,
                                           const DirectSource* direct, PanelPacker packer, float* c, int64_t ldc,
                                           GemmBias bias, int64_t nv_max, float* panel) {
  const int64_t tile_nr = nv_max * kLanes;
  const int64_t kc_max = kGemmScratchBytes / (tile_nr * static_cast<int64_t>(sizeof(float)));
  int64_t kc_step = k;  // K blocks of equal length, as few as fit
  if (k > kc_max) {
    const int64_t kblocks = (k + kc_max - 1) / kc_max;
    kc_step = (k + kblocks - 1) / kblocks;
  }
  for (int64_t j = 0, nr; j < n; j += nr) {
    nr = n - j < tile_nr ? n - j : tile_nr;
    int64_t nv = (nr + kLanes - 1) / kLanes;
    if (nv == 3) nr = (nv = 2) * kLanes;  // 2 vectors, then 1: no 3-vector tile
    const int64_t width = nv * kLanes;
    const Seg seg{0, nr, 0};
    for (int64_t p = 0; p < k; p += kc_step) {
      const int64_t kc = k - p < kc_step ? k - p : kc_step;
      const float* b;
      int64_t ldb;
      if (direct && nr == width) {
        b = direct->b + p * direct->ldb + j;
        ldb = direct->ldb;
      } else {
        packer.pack(packer.ctx, p, kc, j, nr, width, panel);
        b = panel;
        ldb = width;
      }
      const TileOut o{c + j, ldc, &seg, 1, p == 0, bias.row, bias.col ? bias.col + j : nullptr};
      run_rows(m, nv, kc, a + p, lda, b, ldb, kNoOffset, 0, o);
    }
  }
}

// The panel in its own frame, so that GEMMs reading B in place keep their
// stack (the tiles' spill and store records) near the caller's hot lines.
__attribute__((noinline)) void drive_packed(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda,
                                            const DirectSource* direct, PanelPacker packer, float* c, int64_t ldc,
                                            GemmBias bias, int64_t nv_max) {
  alignas(64) float panel[kGemmScratchBytes / sizeof(float)];
  drive_tiles(m, n, k, a, lda, direct, packer, c, ldc, bias, nv_max, panel);
}

void drive(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const DirectSource* direct,
           PanelPacker packer, float* c, int64_t ldc, GemmBias bias, int64_t nv_max) {
  if (m <= 0 || n <= 0) return;
  if (k <= 0) {  // C = bias: A and B may be empty (even null) tensors
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) c[i * ldc + j] = (bias.row ? bias.row[i] : 0.0f) + (bias.col ? bias.col[j] : 0.0f);
    }
    return;
  }
  if (direct && n % kLanes == 0) {  // every tile of whole vectors
    drive_tiles(m, n, k, a, lda, direct, packer, c, ldc, bias, nv_max, nullptr);
  } else {
    drive_packed(m, n, k, a, lda, direct, packer, c, ldc, bias, nv_max);
  }
}

int64_t tile_vectors(int64_t m) { return m <= kSmallMR ? kSmallNV : kGemmNV; }

}  // namespace

void gemm_f32(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const float* b, int64_t ldb, float* c,
              int64_t ldc, GemmBias bias) {
  const DirectSource src{b, ldb};
  drive(m, n, k, a, lda, &src, PanelPacker{&pack_direct, &src}, c, ldc, bias, tile_vectors(m));
}

void gemm_f32_packed(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, PanelPacker packer, float* c,
                     int64_t ldc, GemmBias bias) {
  drive(m, n, k, a, lda, nullptr, packer, c, ldc, bias, tile_vectors(m));
}

void gemm_f32_offsets(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const float* b,
                      const int32_t* offsets, float* c, int64_t ldc, const float* row_bias, ColumnMap map) {
  if (m <= 0 || n <= 0) return;
  const int64_t period = map.period < 1 ? 1 : map.period;
  const int64_t valid = map.valid < period ? map.valid : period;
  if (valid < period && valid % kGemmNR == 0) {
    // Kept runs of whole tiles: tiles along each run, stored from the registers.
    for (int64_t q = 0; q * period < n; ++q) {
      for (int64_t x = 0; x < valid && q * period + x < n; x += kGemmNR) {
        const int64_t nr = valid - x < kGemmNR ? valid - x : kGemmNR;
        const Seg seg{0, nr, q * valid + x};
        const TileOut o{c, ldc, &seg, 1, true, row_bias, nullptr};
        run_rows(m, nr / kLanes, k, a, lda, b + q * period + x, 0, offsets, 1, o);
      }
    }
    return;
  }
  for (int64_t j = 0; j < n; j += kGemmNR) {
    const int64_t nr = n - j < kGemmNR ? n - j : kGemmNR;
    // The tile's columns j .. j + nr - 1 as runs of kept columns, merged where contiguous.
    Seg segs[kGemmNR];
    int64_t nseg = 0;
    for (int64_t col = j; col < j + nr;) {
      const int64_t q = col / period, x = col % period;
      if (x >= valid) {
        col = (q + 1) * period;
        continue;
      }
      const int64_t len = valid - x < j + nr - col ? valid - x : j + nr - col;
      const int64_t out = q * valid + x;
      if (nseg > 0 && segs[nseg - 1].out + segs[nseg - 1].len == out &&
          segs[nseg - 1].lane + segs[nseg - 1].len == col - j) {
        segs[nseg - 1].len += len;
      } else {
        segs[nseg++] = Seg{col - j, len, out};
      }
      col += len;
    }
    const TileOut o{c, ldc, segs, nseg, true, row_bias, nullptr};
    run_rows(m, (nr + kLanes - 1) / kLanes, k, a, lda, b + j, 0, offsets, 1, o);
  }
}

}  // namespace sb::optimized
