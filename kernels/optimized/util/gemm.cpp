#include "optimized/util/gemm.h"

#include <cstring>
#include <utility>

namespace sb::optimized {
namespace {

// C tile at `c` (MR rows of up to NV * kLanes columns, `nvalid` of them real)
// = A rows x B panel over kc, then the epilogue: the bias on the first K
// block, C's previous partial sum on later ones.
template <int MR, int NV>
void tile(int64_t kc, const float* a, int64_t lda, const float* b, int64_t ldb, float* c, int64_t ldc,
          int64_t nvalid, bool first, const float* row_bias, const float* col_bias) {
  VecF acc[MR][NV];
#pragma GCC unroll 16
  for (int i = 0; i < MR; ++i) {
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) acc[i][v] = VecF{};
  }
  for (int64_t p = 0; p < kc; ++p) {
    VecF bv[NV];
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) bv[v] = load(b + v * kLanes);
    b += ldb;
#pragma GCC unroll 16
    for (int i = 0; i < MR; ++i) {
      const VecF ai = splat(a[i * lda + p]);
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) acc[i][v] = gemm_fma(ai, bv[v], acc[i][v]);
    }
  }
  const bool full = nvalid == NV * kLanes;
  VecF cb[NV] = {};
  const bool add_col = first && col_bias != nullptr;
  if (add_col) {
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) {
      const int64_t cnt = nvalid - v * kLanes;
      cb[v] = cnt >= kLanes ? load(col_bias + v * kLanes) : cnt > 0 ? load_partial(col_bias + v * kLanes, cnt) : VecF{};
    }
  }
#pragma GCC unroll 16
  for (int i = 0; i < MR; ++i) {
    float* row = c + i * ldc;
    if (first) {
      if (row_bias) {
        const VecF rb = splat(row_bias[i]);
#pragma GCC unroll 4
        for (int v = 0; v < NV; ++v) acc[i][v] += rb;
      }
      if (add_col) {
#pragma GCC unroll 4
        for (int v = 0; v < NV; ++v) acc[i][v] += cb[v];
      }
    }
    if (full) {
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) {
        if (!first) acc[i][v] += load(row + v * kLanes);
        store(row + v * kLanes, acc[i][v]);
      }
    } else {
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) {
        const int64_t cnt = nvalid - v * kLanes;
        if (cnt >= kLanes) {
          if (!first) acc[i][v] += load(row + v * kLanes);
          store(row + v * kLanes, acc[i][v]);
        } else if (cnt > 0) {
          if (!first) acc[i][v] += load_partial(row + v * kLanes, cnt);
          store_partial(row + v * kLanes, acc[i][v], cnt);
        }
      }
    }
  }
}

using TileFn = void (*)(int64_t, const float*, int64_t, const float*, int64_t, float*, int64_t, int64_t, bool,
                        const float*, const float*);

template <int NV, int... MRs>
struct TileTable {
  static constexpr TileFn fns[] = {&tile<MRs, NV>...};
};

template <int NV, size_t... I>
constexpr auto make_table(std::index_sequence<I...>) {
  return TileTable<NV, static_cast<int>(I + 1)...>{};
}

// tiles[nv - 1][mr - 1]
template <int NV>
TileFn tile_fn(int64_t mr) {
  return decltype(make_table<NV>(std::make_index_sequence<kGemmMR>{}))::fns[mr - 1];
}

// Rows of the panel run over M in MR blocks, the last one smaller.
inline void run_rows(int64_t m, int64_t kc, const float* a, int64_t lda, const float* b, int64_t ldb, float* c,
                     int64_t ldc, int64_t nvalid, int nv, bool first, const float* row_bias, const float* col_bias) {
  const TileFn full = nv == kGemmNV ? tile_fn<kGemmNV>(kGemmMR) : tile_fn<1>(kGemmMR);
  int64_t i = 0;
  for (; i + kGemmMR <= m; i += kGemmMR) {
    full(kc, a + i * lda, lda, b, ldb, c + i * ldc, ldc, nvalid, first, row_bias ? row_bias + i : nullptr, col_bias);
  }
  if (i < m) {
    const int64_t r = m - i;
    const TileFn edge = nv == kGemmNV ? tile_fn<kGemmNV>(r) : tile_fn<1>(r);
    edge(kc, a + i * lda, lda, b, ldb, c + i * ldc, ldc, nvalid, first, row_bias ? row_bias + i : nullptr, col_bias);
  }
}

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

// The shared driver: column tiles, K blocks, row blocks. `direct` (may be
// null) gives B in place for full-width tiles.
void drive(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const DirectSource* direct,
           PanelPacker packer, float* c, int64_t ldc, GemmBias bias) {
  if (m <= 0 || n <= 0) return;
  alignas(64) float panel[kGemmScratchBytes / sizeof(float)];
  const int64_t kblocks = k <= 0 ? 1 : (k + kGemmKC - 1) / kGemmKC;
  const int64_t kc_step = k <= 0 ? 0 : (k + kblocks - 1) / kblocks;
  for (int64_t j = 0; j < n; j += kGemmNR) {
    const int64_t nr = n - j < kGemmNR ? n - j : kGemmNR;
    const int nv = nr > kLanes ? kGemmNV : 1;
    const int64_t width = nv * kLanes;
    const float* col_bias = bias.col ? bias.col + j : nullptr;
    for (int64_t p = 0; p == 0 || p < k; p += kc_step) {
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
      run_rows(m, kc, a + p, lda, b, ldb, c + j, ldc, nr, nv, p == 0, bias.row, col_bias);
      if (kc_step == 0) break;
    }
  }
}

}  // namespace

void gemm_f32(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const float* b, int64_t ldb, float* c,
              int64_t ldc, GemmBias bias) {
  const DirectSource src{b, ldb};
  drive(m, n, k, a, lda, &src, PanelPacker{&pack_direct, &src}, c, ldc, bias);
}

void gemm_f32_packed(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, PanelPacker packer, float* c,
                     int64_t ldc, GemmBias bias) {
  drive(m, n, k, a, lda, nullptr, packer, c, ldc, bias);
}

}  // namespace sb::optimized
