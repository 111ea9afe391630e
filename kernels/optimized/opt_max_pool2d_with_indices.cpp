// aten::max_pool2d_with_indices.out, optimized: fp32, default dim order,
// dilation 1, vectorised over output width (optimized/util/pool_rows.h). ATen's
// rule per output: start at -inf with the index of the first in-bound tap, then
// taps in row-major order replace it when greater or NaN (padding, -inf, never
// does). That scan is separable: along each input row once (its kw taps, the
// row's winner and column), then down the kh row winners with the same rule.
// Everything else goes to the portable kernel.
#include <cstring>
#include <limits>

#include "optimized/util/pool_rows.h"
#include "optimized/util/vec.h"
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
void store_i(float* p, VecI v) { std::memcpy(p, &v, sizeof v); }

// Takes x where it beats best (greater, or NaN), with its plane index.
void take(VecF x, VecI x_at, VecF& best, VecI& best_at) {
  const VecI t = (x > best) | (x != x);
  best = t ? x : best;
  best_at = t ? x_at : best_at;
}

__attribute__((noinline)) void max_pool_rows(const PoolRows& r, const float* x, float* y, int64_t* yi) {
  const kernels::PoolGeometry& g = r.g;
  const int64_t s = g.sw;
  float scratch[kPoolScratchFloats];
  float* ring = scratch + kPhaseAhead * s * r.phase_len + kLanes;  // kh slots of row winners, then kh of their indices
  float* ring_at = ring + g.kh * r.tile;
  VecI lane_cols;
  for (int64_t i = 0; i < kLanes; ++i) lane_cols[i] = static_cast<int32_t>(i * s);
  const int64_t y_total = g.planes * g.oh * g.ow;
  const bool spill = r.tile >= g.ow;

  // Along input row ih: each lane's kw taps, the first in-bound column its start.
  auto row = [&](int64_t k, int64_t ih, const float* phases, int64_t ow0, int64_t n) {
    const int32_t row_at = static_cast<int32_t>(ih * g.w);
    for (int64_t j = 0; j < n; j += kLanes) {
      const VecI cols = lane_cols + static_cast<int32_t>((ow0 + j) * s - g.pw) + row_at;
      VecF best = load(phases + r.col_off[0] + j);
      VecI best_at = cols < row_at ? VecI{} + row_at : cols;
      for (int64_t kj = 1; kj < g.kw; ++kj) take(load(phases + r.col_off[kj] + j), cols + static_cast<int32_t>(kj), best, best_at);
      store(ring + k * r.tile + j, best);
      store_i(ring_at + k * r.tile + j, best_at);
    }
  };
  // Down the rows: the first row's winner is where ATen's scan stands after that row.
  auto out = [&](int64_t p, int64_t oh, const int64_t* slots, int64_t rows, int64_t ow0, int64_t n) {
    const int64_t at = (p * g.oh + oh) * g.ow + ow0;
    for (int64_t j = 0; j < n; j += kLanes) {
      VecF best = load(ring + slots[0] * r.tile + j);
      VecI best_at = load_i(ring_at + slots[0] * r.tile + j);
      for (int64_t i = 1; i < rows; ++i) take(load(ring + slots[i] * r.tile + j), load_i(ring_at + slots[i] * r.tile + j), best, best_at);
      // A whole vector where it fits: with one column tile, lanes past m land on outputs written
      // later (row-major order).
      const int64_t m = n - j < kLanes ? n - j : kLanes;
      const bool whole = m == kLanes || (spill && at + j + kLanes <= y_total);
      const VecL wide = __builtin_convertvector(best_at, VecL);
      if (whole) {
        store(y + at + j, best);
        std::memcpy(yi + at + j, &wide, sizeof wide);
      } else {
        store_partial(y + at + j, best, m);
        std::memcpy(yi + at + j, &wide, static_cast<size_t>(m) * sizeof(int64_t));
      }
    }
  };
  walk_pool_rows(r, x, -std::numeric_limits<float>::infinity(), scratch, row, out);
}

Error max_pool_impl(KernelContext& ctx, Args args) {
  const Tensor& in = *args[0]->as_tensor;
  Tensor& out = *args[6]->as_tensor;
  Tensor& indices = *args[7]->as_tensor;
  if (in.dtype != ScalarType::kFloat || out.dtype != ScalarType::kFloat || indices.dtype != ScalarType::kLong ||
      !in.is_default_dim_order() || !out.is_default_dim_order() || !indices.is_default_dim_order()) {
    return kernels::max_pool2d_with_indices_out.fn(ctx, args);
  }
  PoolRows plan;
  bool fast = false;
  Tensor* outs[] = {&out, &indices};
  const Error err = plan_pool_rows(kOp, in, args, true, 2, outs, &plan, &fast);
  if (!err.ok()) return err;
  if (!fast) return kernels::max_pool2d_with_indices_out.fn(ctx, args);
  max_pool_rows(plan, in.data_as<float>(), out.data_as<float>(), indices.data_as<int64_t>());
  return Error();
}

}  // namespace

extern const KernelDef opt_max_pool2d_with_indices_out{kOp, "TIIIIb|TT", &max_pool_impl, {}, LayoutPolicy::kAny};

}  // namespace sb::optimized
