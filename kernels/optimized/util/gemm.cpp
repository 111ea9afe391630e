#include "optimized/util/gemm.h"

#include <cstring>
#include <array>
#include <utility>

namespace sb::optimized {
namespace {

// C tile at `c` (MR rows of up to NV * kLanes columns, `nvalid` of them real)
// = A rows x B panel over kc, then the epilogue: the bias on the first K
// block, C's previous partial sum on later ones.
// With OFF, B's row p starts at b + offs[p] instead of b + p * ldb.
template <int MR, int NV, bool OFF>
void tile(int64_t kc, const float* a, int64_t lda, const float* b, int64_t ldb, const int32_t* offs, float* c,
          int64_t ldc, int64_t nvalid, bool first, const float* row_bias, const float* col_bias) {
  VecF acc[MR][NV];
#pragma GCC unroll 16
  for (int i = 0; i < MR; ++i) {
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) acc[i][v] = VecF{};
  }
  for (int64_t p = 0; p < kc; ++p) {
    VecF bv[NV];
    const float* brow = OFF ? b + offs[p] : b;
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) bv[v] = load(brow + v * kLanes);
    if (!OFF) b += ldb;
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

using TileFn = void (*)(int64_t, const float*, int64_t, const float*, int64_t, const int32_t*, float*, int64_t,
                        int64_t, bool, const float*, const float*);

// tile_fn<NVMAX, MRMAX>(nv, mr): tile<mr, nv> for 1 <= nv <= NVMAX, 1 <= mr <= MRMAX.
template <int NV, bool OFF, size_t... M>
constexpr std::array<TileFn, sizeof...(M)> tile_row(std::index_sequence<M...>) {
  return {&tile<static_cast<int>(M + 1), NV, OFF>...};
}

template <int MRMAX, bool OFF, size_t... V>
constexpr std::array<std::array<TileFn, MRMAX>, sizeof...(V)> tile_grid(std::index_sequence<V...>) {
  return {tile_row<static_cast<int>(V + 1), OFF>(std::make_index_sequence<MRMAX>{})...};
}

template <int NVMAX, int MRMAX, bool OFF = false>
TileFn tile_fn(int64_t nv, int64_t mr) {
  static constexpr auto grid = tile_grid<MRMAX, OFF>(std::make_index_sequence<NVMAX>{});
  return grid[nv - 1][mr - 1];
}

// Rows of the panel run over M in MR blocks, the last one smaller.
template <int NVMAX, int MR, bool OFF = false>
void run_rows(int64_t m, int64_t kc, const float* a, int64_t lda, const float* b, int64_t ldb, const int32_t* offs,
              float* c, int64_t ldc, int64_t nvalid, int64_t nv, bool first, const float* row_bias,
              const float* col_bias) {
  const TileFn full = tile_fn<NVMAX, MR, OFF>(nv, MR);
  int64_t i = 0;
  for (; i + MR <= m; i += MR) {
    full(kc, a + i * lda, lda, b, ldb, offs, c + i * ldc, ldc, nvalid, first, row_bias ? row_bias + i : nullptr,
         col_bias);
  }
  if (i < m) {
    const TileFn edge = tile_fn<NVMAX, MR, OFF>(nv, m - i);
    edge(kc, a + i * lda, lda, b, ldb, offs, c + i * ldc, ldc, nvalid, first, row_bias ? row_bias + i : nullptr,
         col_bias);
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

// The shared driver: column tiles of NV vectors (the last one as few
// vectors as it needs), K blocks that fit the scratch, row blocks of MR.
// `direct` (may be null) gives B in place for tiles of whole vectors.
template <int NV, int MR>
void drive(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const DirectSource* direct,
           PanelPacker packer, float* c, int64_t ldc, GemmBias bias) {
  if (m <= 0 || n <= 0) return;
  if (k <= 0) {  // C = bias: A and B may be empty (even null) tensors
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) c[i * ldc + j] = (bias.row ? bias.row[i] : 0.0f) + (bias.col ? bias.col[j] : 0.0f);
    }
    return;
  }
  constexpr int64_t kNR = NV * kLanes;
  constexpr int64_t kKC = kGemmScratchBytes / (kNR * static_cast<int64_t>(sizeof(float)));
  alignas(64) float panel[kGemmScratchBytes / sizeof(float)];
  const int64_t kblocks = (k + kKC - 1) / kKC;
  const int64_t kc_step = (k + kblocks - 1) / kblocks;
  for (int64_t j = 0; j < n; j += kNR) {
    const int64_t nr = n - j < kNR ? n - j : kNR;
    const int64_t nv = (nr + kLanes - 1) / kLanes;
    const int64_t width = nv * kLanes;
    const float* col_bias = bias.col ? bias.col + j : nullptr;
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
      run_rows<NV, MR>(m, kc, a + p, lda, b, ldb, nullptr, c + j, ldc, nr, nv, p == 0, bias.row, col_bias);
    }
  }
}

// Few rows (the token-by-token GEMMs of recurrent and transformer models):
// wider tiles keep more independent accumulators in flight.
constexpr int kSmallMR = kGemmMR / 2;
constexpr int kSmallNV = kGemmNV * 2;

}  // namespace

void gemm_f32(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const float* b, int64_t ldb, float* c,
              int64_t ldc, GemmBias bias) {
  const DirectSource src{b, ldb};
  if (m <= kSmallMR) {
    drive<kSmallNV, kSmallMR>(m, n, k, a, lda, &src, PanelPacker{&pack_direct, &src}, c, ldc, bias);
  } else {
    drive<kGemmNV, kGemmMR>(m, n, k, a, lda, &src, PanelPacker{&pack_direct, &src}, c, ldc, bias);
  }
}

void gemm_f32_offsets(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const float* b,
                      const int32_t* offsets, float* c, int64_t ldc, GemmBias bias) {
  if (m <= 0 || n <= 0) return;
  for (int64_t j = 0; j < n; j += kGemmNR) {
    const int64_t nr = n - j < kGemmNR ? n - j : kGemmNR;
    run_rows<kGemmNV, kGemmMR, true>(m, k, a, lda, b + j, 0, offsets, c + j, ldc, nr, kGemmNV, true, bias.row,
                                     bias.col ? bias.col + j : nullptr);
  }
}

void gemm_f32_packed(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, PanelPacker packer, float* c,
                     int64_t ldc, GemmBias bias) {
  drive<kGemmNV, kGemmMR>(m, n, k, a, lda, nullptr, packer, c, ldc, bias);
}

}  // namespace sb::optimized
