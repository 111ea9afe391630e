#include "optimized/microkernels/gemm.h"

namespace sb::optimized {
namespace {

// Few rows (the token-by-token GEMMs of recurrent and transformer models):
// wider tiles keep more independent accumulators in flight.
constexpr int kSmallMR = kGemmMR / 2;
constexpr int kSmallNV = kGemmNV * 2;
constexpr int kMaxAcc = kGemmMR * kGemmNV;  // accumulators of the largest tile
// Masked vector moves (else load_mask/store_mask go lane by lane: kept out of the tiles).
#if defined(__AVX512F__) || defined(__AVX2__)
constexpr bool kMaskedMoves = true;
#else
constexpr bool kMaskedMoves = false;
#endif

// Where a tile's vector v goes in a C row: count[v] masked stores, piece o
// writing the lanes of mask[v][o] at row + off[v][o] + lane (so that a run of
// lanes can land anywhere: the column map's output rows). `whole`: one
// full, unmasked store per vector at row + v * kLanes (the common case,
// kept free of the plan's loads); `prefix`: one masked store per vector
// there (a GEMM's last column tile).
struct StorePlan {
  bool whole;
  bool prefix;  // one piece per vector, at row + v * kLanes
  int32_t count[kSmallNV];
  int64_t off[kSmallNV][kLanes];
  uint32_t mask[kSmallNV][kLanes];
};

// What the tile does with its accumulators.
struct TileStore {
  float* c;  // row 0 of the row block
  int64_t ldc;
  const StorePlan* plan;
  bool first;             // the first K block: add the bias, else C's partial sum
  const float* row_bias;  // per row of the block, or null
  const float* col_bias;  // per tile column (plans of one piece per vector), or null
};

// C rows = acc rows (+ C unless first) through the plan: the tiles' shared
// slow path (column maps, partial vectors), kept out of line.
__attribute__((noinline, noclone)) void store_planned(const VecF* acc, int mr, int nv, float* c, int64_t ldc,
                                                      const StorePlan& plan, bool first) {
  for (int i = 0; i < mr; ++i) {
    float* row = c + i * ldc;
    for (int v = 0; v < nv; ++v, ++acc) {
      for (int32_t o = 0; o < plan.count[v]; ++o) {
        float* at = shifted(row, plan.off[v][o]);
        const uint32_t mk = plan.mask[v][o];
        store_mask(at, first ? *acc : *acc + load_mask(at, mk), mk);
      }
    }
  }
}

// The register tile: acc[MR x NV vectors] = A rows x B over kc, then C =
// acc + (bias | C) through the store plan. B's row p starts at
// b + p * ldb + offs[p * ostep]: a plain matrix (ostep 0, offs -> 0) or rows
// anywhere (ldb 0, ostep 1).
template <int MR, int NV>
void tile(int64_t kc, const float* a, int64_t lda, const float* b, int64_t ldb, const int32_t* offs, int64_t ostep,
          const TileStore* st) {
  static_assert(MR * NV <= kMaxAcc, "tile exceeds the register budget");
  VecF acc[MR][NV];
#pragma GCC unroll 8
  for (int i = 0; i < MR; ++i) {
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) acc[i][v] = VecF{};
  }
  // One K loop, two address streams: B's rows by offset (ldb 0), or by stride.
  const auto step = [&](int64_t p, const float* brow) __attribute__((always_inline)) {
    VecF bv[NV];
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) bv[v] = load(brow + v * kLanes);
#pragma GCC unroll 8
    for (int i = 0; i < MR; ++i) {
      const VecF ai = splat(a[i * lda + p]);
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) acc[i][v] = gemm_fma(ai, bv[v], acc[i][v]);
    }
  };
  if (ostep) {
    for (int64_t p = 0; p < kc; ++p) step(p, b + offs[p]);
  } else {
    for (int64_t p = 0; p < kc; ++p, b += ldb) step(p, b);
  }
  // The record's fields in registers: C's stores may not alias them.
  float* const c = st->c;
  const int64_t ldc = st->ldc;
  const StorePlan& plan = *st->plan;
  const bool first = st->first;
  if (first) {  // acc += row bias + column bias
    const float* const col_bias = st->col_bias;
    VecF cb[NV] = {};
    if (col_bias) {
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) {
        if (plan.whole) {
          cb[v] = load(col_bias + v * kLanes);
        } else if (plan.count[v] > 0) {
          cb[v] = load_mask(col_bias + plan.off[v][0], plan.mask[v][0]);
        }
      }
    }
    const float* const row_bias = st->row_bias;
    float rbs[MR] = {};
    if (row_bias) {
#pragma GCC unroll 8
      for (int i = 0; i < MR; ++i) rbs[i] = row_bias[i];
    }
#pragma GCC unroll 8
    for (int i = 0; i < MR; ++i) {
      const VecF rb = splat(rbs[i]);
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) acc[i][v] += rb + cb[v];
    }
  }
  if (plan.whole) {
#pragma GCC unroll 8
    for (int i = 0; i < MR; ++i) {
      float* row = c + i * ldc;
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) store(row + v * kLanes, first ? acc[i][v] : acc[i][v] + load(row + v * kLanes));
    }
    return;
  }
  if (kMaskedMoves && plan.prefix) {  // the last column tile: masked stores from the registers
    uint32_t mk[NV];
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) mk[v] = plan.count[v] > 0 ? plan.mask[v][0] : 0u;
#pragma GCC unroll 8
    for (int i = 0; i < MR; ++i) {
      float* row = c + i * ldc;
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) {
        float* at = row + v * kLanes;
        store_mask(at, first ? acc[i][v] : acc[i][v] + load_mask(at, mk[v]), mk[v]);
      }
    }
    return;
  }
  alignas(64) VecF spill[MR * NV];
#pragma GCC unroll 8
  for (int i = 0; i < MR; ++i) {
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) spill[i * NV + v] = acc[i][v];
  }
  store_planned(spill, MR, NV, c, ldc, plan, first);
}

using TileFn = void (*)(int64_t, const float*, int64_t, const float*, int64_t, const int32_t*, int64_t,
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

// The row blocks of one column tile of nv (1, 2, 4) vectors, down the ladder.
// (C's record comes as fields, not a struct to copy: a copy reads back the
// caller's fresh scalar stores as one vector, a store-forwarding stall.)
void run_rows(int64_t m, int64_t nv, int64_t kc, const float* a, int64_t lda, const float* b, int64_t ldb,
              const int32_t* offs, int64_t ostep, float* c, int64_t ldc, const StorePlan* plan, bool first,
              const float* row_bias, const float* col_bias) {
  const TileKind* kinds = kTiles[nv > 2 ? 2 : nv - 1];
  TileStore st;
  st.ldc = ldc;
  st.plan = plan;
  st.first = first;
  st.col_bias = col_bias;
  int64_t i = 0;
  for (int l = 0; l < kLevels; ++l) {
    const TileFn fn = kinds[l].fn;
    const int mr = kinds[l].mr;
    for (; m - i >= mr; i += mr) {
      st.c = c + i * ldc;
      st.row_bias = row_bias ? row_bias + i : nullptr;
      fn(kc, a + i * lda, lda, b, ldb, offs, ostep, &st);
    }
  }
}

// The plan of a tile whose lanes [0, nr) go to C columns [0, nr).
void plain_plan(int64_t nr, int64_t nv, StorePlan* plan) {
  plan->whole = nr == nv * kLanes;
  plan->prefix = true;
  for (int64_t v = 0; v < nv; ++v) {
    const int64_t cnt = nr - v * kLanes < kLanes ? nr - v * kLanes : kLanes;
    plan->count[v] = 1;
    plan->off[v][0] = v * kLanes;
    plan->mask[v][0] = lane_mask(cnt);
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
// Only columns [j_begin, j_end) of C are computed (a block of a parallel GEMM;
// j_begin a multiple of the tile width).
__attribute__((noinline)) void drive_tiles(int64_t m, int64_t j_begin, int64_t n, int64_t k, const float* a,
                                           int64_t lda, const DirectSource* direct, PanelPacker packer, float* c,
                                           int64_t ldc, GemmBias bias, int64_t nv_max, float* panel) {
  const int64_t tile_nr = nv_max * kLanes;
  const int64_t kc_max = kGemmScratchBytes / (tile_nr * static_cast<int64_t>(sizeof(float)));
  int64_t kc_step = k;  // K blocks of equal length, as few as fit
  if (k > kc_max) {
    const int64_t kblocks = (k + kc_max - 1) / kc_max;
    kc_step = (k + kblocks - 1) / kblocks;
  }
  for (int64_t j = j_begin, nr; j < n; j += nr) {
    nr = n - j < tile_nr ? n - j : tile_nr;
    int64_t nv = (nr + kLanes - 1) / kLanes;
    if (nv == 3) nr = (nv = 2) * kLanes;  // 2 vectors, then 1: no 3-vector tile
    const int64_t width = nv * kLanes;
    StorePlan plan;
    plain_plan(nr, nv, &plan);
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
      run_rows(m, nv, kc, a + p, lda, b, ldb, kNoOffset, 0, c + j, ldc, &plan, p == 0, bias.row,
               bias.col ? bias.col + j : nullptr);
    }
  }
}

// The panel in its own frame, so that GEMMs reading B in place keep their
// stack (the tiles' spill and store records) near the caller's hot lines.
__attribute__((noinline)) void drive_packed(int64_t m, int64_t j_begin, int64_t n, int64_t k, const float* a,
                                            int64_t lda, const DirectSource* direct, PanelPacker packer, float* c,
                                            int64_t ldc, GemmBias bias, int64_t nv_max) {
  alignas(64) float panel[kGemmScratchBytes / sizeof(float)];
  drive_tiles(m, j_begin, n, k, a, lda, direct, packer, c, ldc, bias, nv_max, panel);
}

// How C of m x n splits into blocks: `cols` blocks of `col_step` columns (a multiple of `col_unit`)
// by `rows` blocks of `row_step` rows (a multiple of `row_unit`). Columns first (each block then
// reads or packs only its own part of B), rows when the columns are too few. Depends on the shape only.
struct Blocks {
  int64_t rows = 1, row_step = 0, cols = 1, col_step = 0;
};

Blocks split(int64_t m, int64_t n, int64_t k, int64_t row_unit, int64_t col_unit) {
  Blocks b;
  b.row_step = m;
  b.col_step = n;
  const int64_t fmas = m * n * k;
  int64_t want = fmas / kGemmMinBlockFmas;
  want = want > kGemmMaxBlocks ? kGemmMaxBlocks : want;
  if (want < 2) return b;
  const int64_t col_units = (n + col_unit - 1) / col_unit;
  const int64_t cols = col_units < want ? col_units : want;
  b.col_step = (col_units + cols - 1) / cols * col_unit;
  b.cols = (n + b.col_step - 1) / b.col_step;
  const int64_t row_units = (m + row_unit - 1) / row_unit;
  int64_t rows = want / b.cols;
  rows = rows < 1 ? 1 : rows > row_units ? row_units : rows;
  b.row_step = (row_units + rows - 1) / rows * row_unit;
  b.rows = (m + b.row_step - 1) / b.row_step;
  return b;
}

__attribute__((noinline)) void drive(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda,
                                     const DirectSource* direct, PanelPacker packer, float* c, int64_t ldc,
                                     GemmBias bias, int64_t nv_max, ThreadPool* pool) {
  if (m <= 0 || n <= 0) return;
  if (k <= 0) {  // C = bias: A and B may be empty (even null) tensors
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) c[i * ldc + j] = (bias.row ? bias.row[i] : 0.0f) + (bias.col ? bias.col[j] : 0.0f);
    }
    return;
  }
  const bool in_place = direct && n % kLanes == 0;  // every tile of whole vectors: no panel
  const uint64_t fmas = static_cast<uint64_t>(m) * static_cast<uint64_t>(n) * static_cast<uint64_t>(k);
  pool = pool_for(pool, fmas, kParallelMinFmas);
  const Blocks blocks = pool ? split(m, n, k, kGemmMR, nv_max * kLanes) : Blocks{1, m, 1, n};
  parallelize_2d(pool, static_cast<size_t>(blocks.rows), static_cast<size_t>(blocks.cols), [&](size_t r, size_t q) {
    const int64_t i0 = static_cast<int64_t>(r) * blocks.row_step;
    const int64_t j0 = static_cast<int64_t>(q) * blocks.col_step;
    const int64_t rows = m - i0 < blocks.row_step ? m - i0 : blocks.row_step;
    const int64_t j1 = n - j0 < blocks.col_step ? n : j0 + blocks.col_step;
    GemmBias rb = bias;
    if (rb.row) rb.row += i0;
    if (in_place) {
      drive_tiles(rows, j0, j1, k, a + i0 * lda, lda, direct, packer, c + i0 * ldc, ldc, rb, nv_max, nullptr);
    } else {
      drive_packed(rows, j0, j1, k, a + i0 * lda, lda, direct, packer, c + i0 * ldc, ldc, rb, nv_max);
    }
  });
}

int64_t tile_vectors(int64_t m) { return m <= kSmallMR ? kSmallNV : kGemmNV; }

// ---- few columns: dot products along K ----
//
// With n at most half a vector (pointwise convolutions over the tiny planes at the end of a CNN),
// a tile would leave most lanes empty and spend one broadcast of A per FMA. Instead B's columns
// are copied into rows (a K block at a time) and each element of C is the dot product of an A row
// and a B column, with vectors along K: whole lanes, loads shared by several FMAs, and one
// horizontal sum per element at the end.
constexpr int64_t kDotMaxN = kLanes / 2;
constexpr int kDotMR = 2;  // A rows per block unit of a parallel split
constexpr int kDotNC = 4;  // B columns per tile
constexpr int64_t kDotKC = 512;  // K block: kDotMaxN columns of it take at most 16 KiB of stack
// Each accumulator is one FMA chain along K: a tile of fewer than 8 waits on the FMA latency (n = 1 with
// 2 rows measured at half the rate of 8). So the fewer the columns, the more A rows per tile: about 8
// accumulators, with their A loads within AVX2's 16 registers. Every element is still one chain over K
// in order, whichever tile computes it.
constexpr int kDotRows[kDotNC] = {8, 4, 2, 2};

template <int MR, int NC>
void dot_tile(int64_t kc, const float* a, int64_t lda, const float* bt, int64_t ldbt, float* c, int64_t ldc,
              bool first, const float* row_bias, const float* col_bias) {
  VecF acc[MR][NC] = {};
  int64_t p = 0;
  for (; p + kLanes <= kc; p += kLanes) {
    VecF av[MR];
#pragma GCC unroll 8
    for (int r = 0; r < MR; ++r) av[r] = load(a + r * lda + p);
#pragma GCC unroll 4
    for (int j = 0; j < NC; ++j) {
      const VecF bv = load(bt + j * ldbt + p);
#pragma GCC unroll 8
      for (int r = 0; r < MR; ++r) acc[r][j] = gemm_fma(av[r], bv, acc[r][j]);
    }
  }
  if (p < kc) {  // the rows' last partial vector; lanes past kc read as zero
    VecF av[MR];
#pragma GCC unroll 8
    for (int r = 0; r < MR; ++r) av[r] = load_tail(a + r * lda + p, kc - p);
#pragma GCC unroll 4
    for (int j = 0; j < NC; ++j) {
      const VecF bv = load_tail(bt + j * ldbt + p, kc - p);
#pragma GCC unroll 8
      for (int r = 0; r < MR; ++r) acc[r][j] = gemm_fma(av[r], bv, acc[r][j]);
    }
  }
  for (int r = 0; r < MR; ++r) {
    for (int j = 0; j < NC; ++j) {
      float& out = c[r * ldc + j];
      const float sum = reduce_add(acc[r][j]);
      out = first ? sum + (row_bias ? row_bias[r] : 0.0f) + (col_bias ? col_bias[j] : 0.0f) : out + sum;
    }
  }
}

using DotTileFn = void (*)(int64_t, const float*, int64_t, const float*, int64_t, float*, int64_t, bool, const float*,
                           const float*);
// [rows: 8, 4, 2, 1][columns - 1]
constexpr int kDotLevels = 4;
constexpr DotTileFn kDotTiles[kDotLevels][kDotNC] = {
    {&dot_tile<8, 1>, &dot_tile<8, 2>, &dot_tile<8, 3>, &dot_tile<8, 4>},
    {&dot_tile<4, 1>, &dot_tile<4, 2>, &dot_tile<4, 3>, &dot_tile<4, 4>},
    {&dot_tile<2, 1>, &dot_tile<2, 2>, &dot_tile<2, 3>, &dot_tile<2, 4>},
    {&dot_tile<1, 1>, &dot_tile<1, 2>, &dot_tile<1, 3>, &dot_tile<1, 4>},
};

__attribute__((noinline)) void gemm_few_columns(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda,
                                                const float* b, int64_t ldb, float* c, int64_t ldc, GemmBias bias) {
  alignas(64) float bt[kDotMaxN * kDotKC];
  for (int64_t k0 = 0; k0 < k; k0 += kDotKC) {
    const int64_t kc = k - k0 < kDotKC ? k - k0 : kDotKC;
    for (int64_t j = 0; j < n; ++j) {
      for (int64_t p = 0; p < kc; ++p) bt[j * kDotKC + p] = b[(k0 + p) * ldb + j];
    }
    const bool first = k0 == 0;
    for (int64_t j = 0; j < n; j += kDotNC) {
      const int64_t nc = n - j < kDotNC ? n - j : kDotNC;
      const float* col_bias = bias.col ? bias.col + j : nullptr;
      int64_t i = 0;
      for (int level = 0, mr = 8; level < kDotLevels; ++level, mr /= 2) {  // the rows down the ladder
        if (mr > kDotRows[nc - 1]) continue;
        for (; i + mr <= m; i += mr) {
          kDotTiles[level][nc - 1](kc, a + i * lda + k0, lda, bt + j * kDotKC, kDotKC, c + i * ldc + j, ldc, first,
                                   bias.row ? bias.row + i : nullptr, col_bias);
        }
      }
    }
  }
}

}  // namespace

void gemm_f32(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const float* b, int64_t ldb, float* c,
              int64_t ldc, GemmBias bias, ThreadPool* pool) {
  if (n > 0 && n <= kDotMaxN && k >= 2 * kLanes && m > 0) {
    // Blocks of rows, each with its own copy of B's columns.
    pool = pool_for(pool, static_cast<uint64_t>(m) * static_cast<uint64_t>(n) * static_cast<uint64_t>(k),
                    kParallelMinFmas);
    const Blocks blocks = pool ? split(m, n, k, kDotMR, n) : Blocks{1, m, 1, n};
    parallelize_1d(pool, static_cast<size_t>(blocks.rows), [&](size_t r) {
      const int64_t i0 = static_cast<int64_t>(r) * blocks.row_step;
      GemmBias rb = bias;
      if (rb.row) rb.row += i0;
      gemm_few_columns(m - i0 < blocks.row_step ? m - i0 : blocks.row_step, n, k, a + i0 * lda, lda, b, ldb,
                       c + i0 * ldc, ldc, rb);
    });
    return;
  }
  const DirectSource src{b, ldb};
  drive(m, n, k, a, lda, &src, PanelPacker{&pack_direct, &src}, c, ldc, bias, tile_vectors(m), pool);
}

void gemm_f32_packed(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, PanelPacker packer, float* c,
                     int64_t ldc, GemmBias bias, ThreadPool* pool) {
  drive(m, n, k, a, lda, nullptr, packer, c, ldc, bias, kGemmNV, pool);  // panels at most kGemmNR wide
}

void gemm_f32_offsets(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const float* b,
                      const int32_t* offsets, float* c, int64_t ldc, const float* row_bias, ColumnMap map) {
  if (m <= 0 || n <= 0) return;
  const int64_t period = map.period < 1 ? 1 : map.period;
  const int64_t valid = map.valid < period ? map.valid : period;
  StorePlan plan;
  if (valid < period && valid % kLanes == 0) {
    // Kept runs of whole vectors: tiles along each run (of kGemmNV vectors, the run's rest of one),
    // plain stores, and the dropped columns never computed.
    StorePlan one;
    plain_plan(kGemmNR, kGemmNV, &plan);
    plain_plan(kLanes, 1, &one);
    for (int64_t q = 0; q * period < n; ++q) {
      for (int64_t x = 0, nv; x < valid && q * period + x < n; x += nv * kLanes) {
        nv = valid - x >= kGemmNR ? kGemmNV : 1;
        run_rows(m, nv, k, a, lda, b + q * period + x, 0, offsets, 1, c + q * valid + x, ldc, nv == 1 ? &one : &plan,
                 true, row_bias, nullptr);
      }
    }
    return;
  }
  if (valid >= n) {
    // Every column in place: whole stores from the registers, the last tile's masked.
    for (int64_t j = 0; j < n; j += kGemmNR) {
      const int64_t nr = n - j < kGemmNR ? n - j : kGemmNR;
      const int64_t nv = (nr + kLanes - 1) / kLanes;
      plain_plan(nr, nv, &plan);
      run_rows(m, nv, k, a, lda, b + j, 0, offsets, 1, c + j, ldc, &plan, true, row_bias, nullptr);
    }
    return;
  }
  for (int64_t j = 0; j < n; j += kGemmNR) {
    const int64_t nr = n - j < kGemmNR ? n - j : kGemmNR;
    const int64_t nv = (nr + kLanes - 1) / kLanes;
    // Tile lane l is column j + l = q * period + x: kept when x < valid, at
    // q * valid + x. Runs of kept lanes, cut at vector bounds, one piece each.
    plan.whole = plan.prefix = false;
    for (int64_t v = 0; v < nv; ++v) plan.count[v] = 0;
    int64_t q = j / period, x = j - q * period;  // lane l's column, walked
    for (int64_t l = 0; l < nr;) {
      if (x >= valid) {
        l += period - x;
        x = 0;
        ++q;
        continue;
      }
      const int64_t v = l / kLanes;
      int64_t len = valid - x;
      len = len < nr - l ? len : nr - l;
      len = len < (v + 1) * kLanes - l ? len : (v + 1) * kLanes - l;
      const int64_t lane = l - v * kLanes;
      plan.off[v][plan.count[v]] = q * valid + x - lane;
      plan.mask[v][plan.count[v]++] = lane_mask(lane + len) & ~lane_mask(lane);
      l += len;
      x += len;
    }
    run_rows(m, nv, k, a, lda, b + j, 0, offsets, 1, c, ldc, &plan, true, row_bias, nullptr);
  }
}

}  // namespace sb::optimized
