// aten::max_pool2d_with_indices.out, optimized: fp32, default dim order,
// dilation 1, vectorised over output width. Each input row a window row needs
// is split by the stride into -inf padded phases (optimized/util/pool_rows.h),
// so every tap is a contiguous vector load. ATen's rule per output: start at
// -inf with the index of the first in-bound tap, then taps in row-major order
// replace it when greater or NaN (padding, -inf, never does). Everything else
// goes to the portable kernel.
#include <cstring>
#include <limits>
#include <utility>

#include "optimized/util/pool_rows.h"
#include "optimized/util/vec.h"
#include "sb/kernel.h"
#include "util/pool.h"
#include "util/shape.h"

namespace sb::kernels {
extern const KernelDef max_pool2d_with_indices_out;
}

namespace sb::optimized {
namespace {

constexpr char kOp[] = "aten::max_pool2d_with_indices.out";
constexpr int64_t kRowBytes = 24 * 1024;  // stack rows per call
constexpr int64_t kRowFloats = kRowBytes / static_cast<int64_t>(sizeof(float));
constexpr int64_t kMaxKernel = 16;  // window rows and columns on the fast path
// Whole-plane path scratch: the phases and the value grid (10 KiB of floats), three int32 index grids
// (12 KiB).
constexpr int64_t kPlaneFloats = 2560;
constexpr int64_t kPlaneGrid = 1024;
typedef int64_t VecL __attribute__((vector_size(2 * kVectorBytes)));

template <size_t... I>
constexpr VecI iota_scaled(int32_t s, std::index_sequence<I...>) {
  return VecI{static_cast<int32_t>(I * s)...};
}

// The stack rows of one output row: input row ih in slot ih % kh, tap kj at col_off[kj].
struct WindowRows {
  const float* rows;
  int64_t row_len, kh, kw;
  const int64_t* col_off;
  int64_t ih_lo, ih_hi, w;
};

// V vectors of outputs starting at phase element j (input column `col0` for tap kj = 0 of the
// first); `left` outputs remain in the row (the last vector may be partial).
template <int V>
void max_block(const WindowRows& wr, int64_t j, int64_t col0, VecI lane_cols, int64_t s, float* y, int64_t* yi,
               int64_t left) {
  const float ninf = -std::numeric_limits<float>::infinity();
  VecI cols[V], best_at[V];
  VecF best[V];
#pragma GCC unroll 4
  for (int v = 0; v < V; ++v) {
    cols[v] = lane_cols + static_cast<int32_t>(col0 + v * kLanes * s);
    best_at[v] = (cols[v] < 0 ? VecI{} : cols[v]) + static_cast<int32_t>(wr.ih_lo * wr.w);
    best[v] = splat(ninf);
  }
  for (int64_t ih = wr.ih_lo; ih < wr.ih_hi; ++ih) {
    const float* r = wr.rows + (ih % wr.kh) * wr.row_len + j;
    const int32_t row_at = static_cast<int32_t>(ih * wr.w);
    for (int64_t kj = 0; kj < wr.kw; ++kj) {
      const float* rk = r + wr.col_off[kj];
#pragma GCC unroll 4
      for (int v = 0; v < V; ++v) {
        const VecF x = load(rk + v * kLanes);
        const VecI take = (x > best[v]) | (x != x);
        best[v] = take ? x : best[v];
        best_at[v] = take ? cols[v] + (row_at + static_cast<int32_t>(kj)) : best_at[v];
      }
    }
  }
#pragma GCC unroll 4
  for (int v = 0; v < V; ++v) {
    const int64_t lanes = left - v * kLanes < kLanes ? left - v * kLanes : kLanes;
    const VecL wide = __builtin_convertvector(best_at[v], VecL);
    if (lanes == kLanes) {
      store(y + v * kLanes, best[v]);
      std::memcpy(yi + v * kLanes, &wide, sizeof wide);
    } else if (lanes > 0) {
      store_partial(y + v * kLanes, best[v], lanes);
      std::memcpy(yi + v * kLanes, &wide, static_cast<size_t>(lanes) * sizeof(int64_t));
    }
  }
}

// Rows of any width: a ring of kh input rows split into -inf padded column phases, column tiles.
__attribute__((noinline)) void max_pool_rows(const kernels::PoolGeometry& g, int64_t tile_max, const float* x,
                                             float* y, int64_t* yi) {
  const int64_t s = g.sw;
  const int64_t m_max = (g.kw - 1) / s;
  const int64_t tile = g.ow < tile_max ? g.ow : tile_max;
  const int64_t phase_len = ((tile + kLanes - 1) / kLanes * kLanes + m_max + kLanes - 1) / kLanes * kLanes;
  const int64_t row_len = s * phase_len;
  const float ninf = -std::numeric_limits<float>::infinity();
  const VecI lane_cols = iota_scaled(static_cast<int32_t>(s), std::make_index_sequence<kLanes>{});
  float rows[kRowFloats];
  int64_t col_off[kMaxKernel];
  for (int64_t kj = 0; kj < g.kw; ++kj) col_off[kj] = (kj % s) * phase_len + kj / s;

  for (int64_t p = 0; p < g.planes; ++p) {
    const float* plane = x + p * g.h * g.w;
    for (int64_t ow0 = 0; ow0 < g.ow; ow0 += tile) {
      const int64_t n = g.ow - ow0 < tile ? g.ow - ow0 : tile;
      const int64_t base = ow0 * s - g.pw;
      // Window rows are consecutive (dilation 1), so the kh rows of one output row have
      // distinct slots ih % kh; a row stays in its slot for the output rows that share it.
      int64_t slot_row[kMaxKernel];
      for (int64_t k = 0; k < g.kh; ++k) slot_row[k] = -1;
      for (int64_t oh = 0; oh < g.oh; ++oh) {
        const int64_t h0 = oh * g.sh - g.ph;
        const int64_t ih_lo = h0 < 0 ? 0 : h0;
        const int64_t ih_hi = h0 + g.kh < g.h ? h0 + g.kh : g.h;  // >= ih_lo + 1 (dilation 1, pad <= kernel / 2)
        float* yrow = y + (p * g.oh + oh) * g.ow;
        int64_t* irow = yi + (p * g.oh + oh) * g.ow;
        for (int64_t ih = ih_lo; ih < ih_hi; ++ih) {
          const int64_t k = ih % g.kh;
          if (slot_row[k] != ih) {
            fill_phase_row(rows + k * row_len, plane + ih * g.w, g.w, base, s, phase_len, ninf);
            slot_row[k] = ih;
          }
        }
        const WindowRows wr{rows, row_len, g.kh, g.kw, col_off, ih_lo, ih_hi, g.w};
        // Four vectors at a time: each is a serial chain of compares, so independent ones interleave.
        const int64_t n_vec = (n + kLanes - 1) / kLanes * kLanes;
        int64_t j = 0;
        for (; j + 4 * kLanes <= n_vec; j += 4 * kLanes) {
          max_block<4>(wr, j, base + j * s, lane_cols, s, yrow + ow0 + j, irow + ow0 + j, n - j);
        }
        for (; j < n_vec; j += kLanes) {
          max_block<1>(wr, j, base + j * s, lane_cols, s, yrow + ow0 + j, irow + ow0 + j, n - j);
        }
      }
    }
  }
}

// Small planes (see PlaneGrid): every tap one vector run over the output plane's grid. Per grid
// lane: `at0`, the plane index of the first in-bound tap (ATen's starting index), and `at`, of tap
// (0, 0) (ki * w + kj added per tap); the winners go to `vals`/`idx`, then the kept columns out.
__attribute__((noinline)) void max_pool_planes(const kernels::PoolGeometry& g, const PlaneGrid& pg, const float* x,
                                               float* y, int64_t* yi) {
  float xin[kPlaneFloats];
  int32_t at0[kPlaneGrid], at[kPlaneGrid], idx[kPlaneGrid];
  float* vals = xin + pg.in_floats;
  const float ninf = -std::numeric_limits<float>::infinity();
  for (int64_t i = 0; i < pg.in_floats; ++i) xin[i] = ninf;
  for (int64_t o = 0; o < pg.grid; ++o) {
    const int64_t oh = o / pg.wq, ow = o % pg.wq;
    const int64_t h0 = oh * g.sh - g.ph, w0 = ow * g.sw - g.pw;
    at[o] = static_cast<int32_t>(h0 * g.w + w0);
    at0[o] = static_cast<int32_t>((h0 < 0 ? 0 : h0) * g.w + (w0 < 0 ? 0 : w0));
  }
  int64_t off[kMaxKernel * kMaxKernel];
  int32_t tap_at[kMaxKernel * kMaxKernel];
  const int64_t taps = g.kh * g.kw;
  for (int64_t ki = 0; ki < g.kh; ++ki) {
    for (int64_t kj = 0; kj < g.kw; ++kj) {
      off[ki * g.kw + kj] = pg.tap_offset(ki, kj);
      tap_at[ki * g.kw + kj] = static_cast<int32_t>(ki * g.w + kj);
    }
  }
  for (int64_t p = 0; p < g.planes; ++p) {
    fill_plane(xin, pg, x + p * g.h * g.w, g.h, g.w, g.ph, g.pw);
    for (int64_t j = 0; j < pg.grid; j += kLanes) {
      VecF best = splat(ninf);
      VecI best_at, base;
      std::memcpy(&best_at, at0 + j, sizeof best_at);
      std::memcpy(&base, at + j, sizeof base);
      for (int64_t t = 0; t < taps; ++t) {
        const VecF v = load(xin + off[t] + j);
        const VecI take = (v > best) | (v != v);
        best = take ? v : best;
        best_at = take ? base + tap_at[t] : best_at;
      }
      store(vals + j, best);
      std::memcpy(idx + j, &best_at, sizeof best_at);
    }
    float* yp = y + p * g.oh * g.ow;
    int64_t* ip = yi + p * g.oh * g.ow;
    for (int64_t oh = 0; oh < g.oh; ++oh) {
      for (int64_t ow = 0; ow < g.ow; ++ow) {
        yp[oh * g.ow + ow] = vals[oh * pg.wq + ow];
        ip[oh * g.ow + ow] = idx[oh * pg.wq + ow];
      }
    }
  }
}

Error max_pool_impl(KernelContext& ctx, Args args) {
  const Tensor& in = *args[0]->as_tensor;
  Tensor& out = *args[6]->as_tensor;
  Tensor& indices = *args[7]->as_tensor;
  if (in.dtype != ScalarType::kFloat || out.dtype != ScalarType::kFloat || indices.dtype != ScalarType::kLong ||
      !in.is_default_dim_order() || !out.is_default_dim_order() || !indices.is_default_dim_order()) {
    return kernels::max_pool2d_with_indices_out.fn(ctx, args);
  }
  kernels::PoolGeometry g{};
  Error err = kernels::pool_geometry(kOp, in, args[1]->as_int_list, args[2]->as_int_list, args[3]->as_int_list,
                                     args[4]->as_int_list, args[5]->as_bool, &g);
  if (!err.ok()) return err;
  const int64_t s = g.sw;
  const int64_t phase_max = g.kh <= kMaxKernel && s <= kRowFloats ? kRowFloats / g.kh / s / kLanes * kLanes : 0;
  const int64_t m_max = (g.kw - 1) / s;
  const int64_t tile_max = (phase_max - m_max) / kLanes * kLanes;
  if (g.dh != 1 || g.dw != 1 || g.kw > kMaxKernel || tile_max < kLanes || g.w > (int64_t{1} << 24) ||
      g.h > (int64_t{1} << 24) || g.h * g.w > (int64_t{1} << 30)) {
    return kernels::max_pool2d_with_indices_out.fn(ctx, args);
  }
  int64_t sizes[kMaxDims];
  kernels::pool_out_sizes(in, g, sizes);
  if (!(err = kernels::resize_output(kOp, out, sizes, in.dim)).ok()) return err;
  if (!(err = kernels::resize_output(kOp, indices, sizes, in.dim)).ok()) return err;

  const float* x = in.data_as<float>();
  float* y = out.data_as<float>();
  int64_t* yi = indices.data_as<int64_t>();
  PlaneGrid pg;
  if (g.ow <= 4 * kLanes && plane_grid(g.oh, g.ow, g.kh, g.kw, g.sh, g.sw, 1, 1, kPlaneFloats, 1, &pg) &&
      pg.grid <= kPlaneGrid) {
    max_pool_planes(g, pg, x, y, yi);
  } else {
    max_pool_rows(g, tile_max, x, y, yi);
  }
  return Error();
}

}  // namespace

extern const KernelDef opt_max_pool2d_with_indices_out{kOp, "TIIIIb|TT", &max_pool_impl, {}, LayoutPolicy::kAny};

}  // namespace sb::optimized
