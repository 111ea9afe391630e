// aten::avg_pool2d.out, optimized: fp32, default dim order, stride 1 or 2
// along rows. Sums down the window's rows first (vectors of input columns),
// then along them (optimized/microkernels/pool_rows.h's bands; padding adds zero). The
// divisor is ATen's (the window clipped to input + padding with
// count_include_pad, else clipped to the input), a row extent times a column
// extent. divisor_override and everything else go to the portable kernel.
#include "optimized/operators/pool_op.h"
#include "optimized/simd/vec.h"
#include "sb/kernel.h"

namespace sb::kernels {
extern const KernelDef avg_pool2d_out;
}

namespace sb::optimized {
namespace {

constexpr char kOp[] = "aten::avg_pool2d.out";

VecI vmin_i(VecI a, VecI b) { return a < b ? a : b; }
VecI vmax_i(VecI a, VecI b) { return a > b ? a : b; }

// Planes [p0, p1) (a tile of a parallel pool: the stores past a row's end stop at p1's).
__attribute__((noinline)) void avg_pool_bands(const PoolBands& b, bool count_include_pad, const float* x, float* y,
                                              int64_t p0, int64_t p1) {
  const kernels::PoolGeometry g = b.g;
  const int64_t shift = b.shift, len = b.len, row_len = b.row_len, band = b.band;
  int64_t tap_off[kPoolMaxKernel];
  for (int64_t kj = 0; kj < g.kw; ++kj) tap_off[kj] = b.tap_off[kj];
  float sums[kPoolScratchFloats];
  pad_band_rows(sums, b, VecF{});
  VecI lane_cols;
  for (int64_t i = 0; i < kLanes; ++i) lane_cols[i] = static_cast<int32_t>(i * g.sw);
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
          auto down = [&](int64_t col) {
            const bool inside = plane + (ih_hi - 1) * g.w + col + kLanes <= total;
            VecF v = {};
            for (int64_t ih = ih_lo; ih < ih_hi; ++ih) {
              const int64_t at = plane + ih * g.w + col;
              const int64_t left = total - at;
              v += inside || left >= kLanes ? load(x + at) : load_upto(x + at, left);
            }
            return v;
          };
          const VecF b0 = down(c);
          const VecF b1 = shift == 1 && c + kLanes < g.w ? down(c + kLanes) : VecF{};
          put_phases(g.w, g.pw, shift, len, c, sums + (oh - ob) * row_len, b0, b1);
        }
      }
      for (int64_t oh = ob; oh < oe; ++oh) {
        const float* r = sums + (oh - ob) * row_len;
        const int64_t h0 = oh * g.sh - g.ph;
        const int64_t h1 = h0 + g.kh < g.h + g.ph ? h0 + g.kh : g.h + g.ph;
        const int32_t row_ext =
            static_cast<int32_t>(count_include_pad ? h1 - h0 : (h1 < g.h ? h1 : g.h) - (h0 < 0 ? 0 : h0));
        const int64_t at = (p * g.oh + oh) * g.ow;
        for (int64_t j = 0; j < g.ow; j += kLanes) {
          VecF sum = load(r + j);
          for (int64_t kj = 1; kj < g.kw; ++kj) sum += load(r + tap_off[kj] + j);
          // Column extents of each lane's window, as the row's above.
          const VecI w0 = lane_cols + static_cast<int32_t>(j * g.sw - g.pw);
          const VecI w1 = vmin_i(w0 + static_cast<int32_t>(g.kw), VecI{} + static_cast<int32_t>(g.w + g.pw));
          const VecI col_ext =
              count_include_pad ? w1 - w0 : vmin_i(w1, VecI{} + static_cast<int32_t>(g.w)) - vmax_i(w0, VecI{});
          const VecI divisor = col_ext * row_ext;
          const VecF q = sum / __builtin_convertvector(divisor > 0 ? divisor : VecI{} + 1, VecF);
          const VecF v = divisor > 0 ? q : VecF{};
          // Lanes past the row land on outputs written later (row-major order).
          const int64_t m = g.ow - j < kLanes ? g.ow - j : kLanes;
          if (m == kLanes || at + j + kLanes <= y_total) {
            store(y + at + j, v);
          } else {
            store_tail(y + at + j, v, m);
          }
        }
      }
    }
  }
}

Error avg_pool_impl(KernelContext& ctx, Args args) {
  const Tensor& in = *args[0]->as_tensor;
  Tensor& out = *args[7]->as_tensor;
  if (in.dtype != ScalarType::kFloat || out.dtype != ScalarType::kFloat || !in.is_default_dim_order() ||
      !out.is_default_dim_order() || !args[6]->is_none()) {
    return kernels::avg_pool2d_out.fn(ctx, args);  // divisor_override too (rare; its checks are portable's)
  }
  PoolBands plan;
  bool fast = false;
  Tensor* outs[] = {&out};
  const Error err = plan_pool_bands(kOp, in, args, false, 1, outs, &plan, &fast);
  if (!err.ok()) return err;
  if (!fast) return kernels::avg_pool2d_out.fn(ctx, args);
  const PoolTiles tiles = pool_tiles(plan.g);
  parallelize_1d(pool_for(ctx.threads(), tiles.elements, kParallelMinElements), tiles.count, [&](size_t t) {
    const int64_t p0 = static_cast<int64_t>(t) * tiles.planes;
    avg_pool_bands(plan, args[5]->as_bool, in.data_as<float>(), out.data_as<float>(), p0,
                   plan.g.planes - p0 < tiles.planes ? plan.g.planes : p0 + tiles.planes);
  });
  return Error();
}

}  // namespace

extern const KernelDef opt_avg_pool2d_out{kOp, "TIIIbbn|T", &avg_pool_impl, {}, LayoutPolicy::kAny};

}  // namespace sb::optimized
