// aten::max_pool2d_with_indices.out, optimized: fp32, default dim order,
// dilation 1, stride 1 or 2 along rows. ATen's rule per output: start at -inf
// with the index of the first in-bound tap, then taps in row-major order
// replace it when greater or NaN (padding, -inf, never does); that is, the
// greatest value at its first position, or the last NaN. Taken down the
// window's rows first (vectors of input columns), then along them
// (optimized/microkernels/pool_rows.h's bands), with a tie rule giving that winner in
// any order.
// Everything else goes to the portable kernel.
#include <cstring>
#include <limits>

#include "optimized/operators/pool_op.h"
#include "optimized/simd/vec.h"
#include "sb/kernel.h"

namespace sb::kernels {
extern const KernelDef max_pool2d_with_indices_out;
}

namespace sb::optimized {
namespace {

constexpr char kOp[] = "aten::max_pool2d_with_indices.out";
typedef int64_t VecL __attribute__((vector_size(2 * kVectorBytes)));

VecI load_i(const float* p) {
  VecI v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// Takes x where it beats best (greater, or NaN), with its plane index: ATen's rule for taps
// visited in row-major order.
void take(VecF x, VecI x_at, VecF& best, VecI& best_at) {
  const VecI t = (x > best) | (x != x);
  best = t ? x : best;
  best_at = t ? x_at : best_at;
}

// The same winner as ATen's row-major scan whatever the order taps come in: greater; equal and
// earlier; NaN over a number, or a later NaN (ATen keeps the last NaN). Padding is -inf at kPadAt.
constexpr int32_t kPadAt = 0x7fffffff;
void take_any_order(VecF x, VecI x_at, VecF& best, VecI& best_at) {
  const VecI x_nan = x != x;
  const VecI t = (x > best) | ((x == best) & (x_at < best_at)) | (x_nan & ((best == best) | (x_at > best_at)));
  best = t ? x : best;
  best_at = t ? x_at : best_at;
}

// m outputs and their indices; `whole`: a whole vector may be written (lanes past m land on
// outputs written later, in row-major order).
void store_out(float* y, int64_t* yi, VecF v, VecI at, int64_t m, bool whole) {
  const VecL wide = __builtin_convertvector(at, VecL);
  if (whole) {
    store(y, v);
    std::memcpy(yi, &wide, sizeof wide);
  } else {
    store_tail(y, v, m);
    std::memcpy(yi, &wide, static_cast<size_t>(m) * sizeof(int64_t));
  }
}

// The band path (optimized/microkernels/pool_rows.h): down the window's rows by the plain rule, along
// them by the any-order rule; values and their plane indices in two phase arrays.
// Planes [p0, p1) (a tile of a parallel pool: the stores past a row's end stop at p1's).
__attribute__((noinline)) void max_pool_bands(const PoolBands& b, const float* x, float* y, int64_t* yi, int64_t p0,
                                              int64_t p1) {
  const kernels::PoolGeometry g = b.g;
  const int64_t shift = b.shift, len = b.len, row_len = b.row_len, band = b.band;
  int64_t tap_off[kPoolMaxKernel];
  for (int64_t kj = 0; kj < g.kw; ++kj) tap_off[kj] = b.tap_off[kj];
  float vals[kPoolScratchFloats / 2];
  float ats[kPoolScratchFloats / 2];
  pad_band_rows(vals, b, splat(-std::numeric_limits<float>::infinity()));
  pad_band_rows(ats, b, (VecF)(VecI{} + kPadAt));
  VecI lanes;
  for (int64_t i = 0; i < kLanes; ++i) lanes[i] = static_cast<int32_t>(i);
  const int64_t total = g.planes * g.h * g.w;
  const int64_t y_total = p1 * g.oh * g.ow;
  for (int64_t p = p0; p < p1; ++p) {
    const int64_t plane = p * g.h * g.w;
    for (int64_t ob = 0; ob < g.oh; ob += band) {
      const int64_t oe = g.oh - ob < band ? g.oh : ob + band;
      for (int64_t oh = ob; oh < oe; ++oh) {
        const int64_t h0 = oh * g.sh - g.ph;
        const int64_t ih_lo = h0 < 0 ? 0 : h0;
        const int64_t ih_hi = h0 + g.kh < g.h ? h0 + g.kh : g.h;  // > ih_lo: pad <= kernel / 2
        for (int64_t c = 0; c < g.w; c += g.sw * kLanes) {
          // Down the rows for the kLanes columns from col (past the row: other rows' values, in
          // lanes not kept).
          auto down = [&](int64_t col, VecF& v, VecI& v_at) {
            const bool inside = plane + (ih_hi - 1) * g.w + col + kLanes <= total;
            auto row = [&](int64_t ih) {
              const int64_t at = plane + ih * g.w + col;
              return inside || total - at >= kLanes ? load(x + at) : load_upto(x + at, total - at);
            };
            v = row(ih_lo);
            v_at = lanes + static_cast<int32_t>(ih_lo * g.w + col);
            for (int64_t ih = ih_lo + 1; ih < ih_hi; ++ih) take(row(ih), lanes + static_cast<int32_t>(ih * g.w + col), v, v_at);
          };
          VecF b0 = {}, b1 = {};
          VecI a0 = {}, a1 = {};
          down(c, b0, a0);
          if (shift == 1 && c + kLanes < g.w) down(c + kLanes, b1, a1);
          put_phases(g.w, g.pw, shift, len, c, vals + (oh - ob) * row_len, b0, b1, ats + (oh - ob) * row_len, (VecF)a0,
                     (VecF)a1);
        }
      }
      for (int64_t oh = ob; oh < oe; ++oh) {
        const float* rv = vals + (oh - ob) * row_len;
        const float* ra = ats + (oh - ob) * row_len;
        const int64_t at = (p * g.oh + oh) * g.ow;
        for (int64_t j = 0; j < g.ow; j += kLanes) {
          VecF best = load(rv + j);
          VecI best_at = load_i(ra + j);
          for (int64_t kj = 1; kj < g.kw; ++kj) {
            take_any_order(load(rv + tap_off[kj] + j), load_i(ra + tap_off[kj] + j), best, best_at);
          }
          // Lanes past the row land on outputs written later (row-major order).
          const int64_t m = g.ow - j < kLanes ? g.ow - j : kLanes;
          store_out(y + at + j, yi + at + j, best, best_at, m, at + j + kLanes <= y_total);
        }
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
  PoolBands plan;
  bool fast = false;
  Tensor* outs[] = {&out, &indices};
  const Error err = plan_pool_bands(kOp, in, args, true, 2, outs, &plan, &fast);
  if (!err.ok()) return err;
  if (!fast) return kernels::max_pool2d_with_indices_out.fn(ctx, args);
  const PoolTiles tiles = pool_tiles(plan.g);
  parallelize_1d(pool_for(ctx.threads(), tiles.elements, kParallelMinElements), tiles.count, [&](size_t t) {
    const int64_t p0 = static_cast<int64_t>(t) * tiles.planes;
    max_pool_bands(plan, in.data_as<float>(), out.data_as<float>(), indices.data_as<int64_t>(), p0,
                   plan.g.planes - p0 < tiles.planes ? plan.g.planes : p0 + tiles.planes);
  });
  return Error();
}

}  // namespace

extern const KernelDef opt_max_pool2d_with_indices_out{kOp, "TIIIIb|TT", &max_pool_impl, {}, LayoutPolicy::kAny};

}  // namespace sb::optimized
