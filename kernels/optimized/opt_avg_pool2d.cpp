// aten::avg_pool2d.out, optimized: fp32, default dim order, vectorised over
// output width (optimized/util/pool_rows.h): each input row's window sums once
// (zero padding), then the kh row sums of each output row. The divisor is
// ATen's (the window clipped to input + padding with count_include_pad, else
// clipped to the input), a row extent times a column extent. divisor_override
// and everything else go to the portable kernel.
#include "optimized/util/pool_rows.h"
#include "optimized/util/vec.h"
#include "sb/kernel.h"

namespace sb::kernels {
extern const KernelDef avg_pool2d_out;
}

namespace sb::optimized {
namespace {

constexpr char kOp[] = "aten::avg_pool2d.out";

VecI vmin_i(VecI a, VecI b) { return a < b ? a : b; }
VecI vmax_i(VecI a, VecI b) { return a > b ? a : b; }

__attribute__((noinline)) void avg_pool_rows(const PoolRows& r, bool count_include_pad, const float* x, float* y) {
  const kernels::PoolGeometry& g = r.g;
  const int64_t s = g.sw;
  float scratch[kPoolScratchFloats];
  float* ring = scratch + kPhaseAhead * s * r.phase_len + kLanes;  // kh slots of row sums
  VecI lane_cols;
  for (int64_t i = 0; i < kLanes; ++i) lane_cols[i] = static_cast<int32_t>(i * s);
  const int64_t y_total = g.planes * g.oh * g.ow;
  const bool spill = r.tile >= g.ow;

  auto row = [&](int64_t k, int64_t, const float* phases, int64_t, int64_t n) {
    for (int64_t j = 0; j < n; j += kLanes) {
      VecF a0 = load(phases + r.col_off[0] + j), a1 = {};
      int64_t kj = 1;
      for (; kj + 2 <= g.kw; kj += 2) {
        a1 += load(phases + r.col_off[kj] + j);
        a0 += load(phases + r.col_off[kj + 1] + j);
      }
      if (kj < g.kw) a1 += load(phases + r.col_off[kj] + j);
      store(ring + k * r.tile + j, a0 + a1);
    }
  };
  auto out = [&](int64_t p, int64_t oh, const int64_t* slots, int64_t rows, int64_t ow0, int64_t n) {
    const int64_t h0 = oh * g.sh - g.ph;
    const int64_t h1 = h0 + g.kh < g.h + g.ph ? h0 + g.kh : g.h + g.ph;
    const int32_t row_ext = static_cast<int32_t>(count_include_pad ? h1 - h0 : rows);
    const int64_t at = (p * g.oh + oh) * g.ow + ow0;
    for (int64_t j = 0; j < n; j += kLanes) {
      VecF sum = load(ring + slots[0] * r.tile + j);
      for (int64_t i = 1; i < rows; ++i) sum += load(ring + slots[i] * r.tile + j);
      // Column extents of each lane's window, as the row's above.
      const VecI w0 = lane_cols + static_cast<int32_t>((ow0 + j) * s - g.pw);
      const VecI w1 = vmin_i(w0 + static_cast<int32_t>(g.kw), VecI{} + static_cast<int32_t>(g.w + g.pw));
      const VecI col_ext =
          count_include_pad ? w1 - w0 : vmin_i(w1, VecI{} + static_cast<int32_t>(g.w)) - vmax_i(w0, VecI{});
      const VecI divisor = col_ext * row_ext;
      const VecF q = sum / __builtin_convertvector(divisor > 0 ? divisor : VecI{} + 1, VecF);
      const int64_t m = n - j < kLanes ? n - j : kLanes;
      // With one column tile, lanes past m land on outputs written later (row-major order).
      const VecF v = divisor > 0 ? q : VecF{};
      if (m == kLanes || (spill && at + j + kLanes <= y_total)) {
        store(y + at + j, v);
      } else {
        store_partial(y + at + j, v, m);
      }
    }
  };
  walk_pool_rows(r, x, 0.0f, scratch, row, out);
}

Error avg_pool_impl(KernelContext& ctx, Args args) {
  const Tensor& in = *args[0]->as_tensor;
  Tensor& out = *args[7]->as_tensor;
  if (in.dtype != ScalarType::kFloat || out.dtype != ScalarType::kFloat || !in.is_default_dim_order() ||
      !out.is_default_dim_order() || !args[6]->is_none()) {
    return kernels::avg_pool2d_out.fn(ctx, args);  // divisor_override too (rare; its checks are portable's)
  }
  PoolRows plan;
  bool fast = false;
  Tensor* outs[] = {&out};
  const Error err = plan_pool_rows(kOp, in, args, false, 1, kPoolMaxStride, outs, &plan, &fast);
  if (!err.ok()) return err;
  if (!fast) return kernels::avg_pool2d_out.fn(ctx, args);
  avg_pool_rows(plan, args[5]->as_bool, in.data_as<float>(), out.data_as<float>());
  return Error();
}

}  // namespace

extern const KernelDef opt_avg_pool2d_out{kOp, "TIIIbbn|T", &avg_pool_impl, {}, LayoutPolicy::kAny};

}  // namespace sb::optimized
