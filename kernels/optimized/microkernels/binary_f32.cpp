// The shared loops of optimized/microkernels/binary_f32.h.
#include "optimized/microkernels/binary_f32.h"

#include "optimized/simd/vec.h"
#include "sb/thread_pool.h"

namespace sb::optimized {
namespace {

template <BinaryOp Op>
inline VecF apply(VecF x, VecF y, VecF k) {
  if constexpr (Op == BinaryOp::kAxpy) {
    return x + k * y;
  } else if constexpr (Op == BinaryOp::kMul) {
    return x * y;
  } else {
    return x / y;
  }
}

// z[i] = x[i] op y[i] for i < n. An operand's step is kLanes, or 0 for a
// broadcast value, which then points at a vector of it.
template <BinaryOp Op>
void run(const float* x, int64_t sx, const float* y, int64_t sy, float* z, int64_t n, VecF k) {
  int64_t i = 0;
  for (; i + 2 * kLanes <= n; i += 2 * kLanes) {
    const VecF r0 = apply<Op>(load(x), load(y), k);
    const VecF r1 = apply<Op>(load(x + sx), load(y + sy), k);
    store(z + i, r0);
    store(z + i + kLanes, r1);
    x += 2 * sx;
    y += 2 * sy;
  }
  if (i + kLanes <= n) {
    store(z + i, apply<Op>(load(x), load(y), k));
    x += sx;
    y += sy;
    i += kLanes;
  }
  if (i < n) {
    const int64_t m = n - i;
    const VecF a = sx != 0 ? load_tail(x, m) : load(x);
    const VecF b = sy != 0 ? load_tail(y, m) : load(y);
    store_tail(z + i, apply<Op>(a, b, k), m);
  }
}

using RunFn = void (*)(const float*, int64_t, const float*, int64_t, float*, int64_t, VecF);

// Elements [begin, end) of out, from the run and index they fall in.
void binary_range(RunFn f, const BinaryPlan& plan, const float* a, const float* b, float* out, VecF vk, int64_t begin,
                  int64_t end) {
  const int32_t inner = plan.rank - 1;  // -1: one element
  const int64_t n = plan.rank == 0 ? 1 : plan.sizes[inner];
  const bool step_a = plan.rank == 0 || plan.stride_a[inner] != 0;
  const bool step_b = plan.rank == 0 || plan.stride_b[inner] != 0;
  float splat_a[kLanes];
  float splat_b[kLanes];
  int64_t index[kMaxDims] = {};
  int64_t offset_a = 0;
  int64_t offset_b = 0;
  int64_t o = begin / n;
  for (int32_t d = inner - 1; d >= 0; --d) {  // run o's index, the last dim fastest
    index[d] = o % plan.sizes[d];
    o /= plan.sizes[d];
    offset_a += index[d] * plan.stride_a[d];
    offset_b += index[d] * plan.stride_b[d];
  }
  for (int64_t at = begin, i = begin % n; at < end; i = 0) {
    const int64_t len = n - i < end - at ? n - i : end - at;
    const float* x = a + offset_a;
    const float* y = b + offset_b;
    if (!step_a) store(splat_a, splat(*x));
    if (!step_b) store(splat_b, splat(*y));
    f(step_a ? x + i : splat_a, step_a ? kLanes : 0, step_b ? y + i : splat_b, step_b ? kLanes : 0, out + at, len, vk);
    at += len;
    for (int32_t d = inner - 1; d >= 0; --d) {
      offset_a += plan.stride_a[d];
      offset_b += plan.stride_b[d];
      if (++index[d] < plan.sizes[d]) break;
      offset_a -= plan.stride_a[d] * plan.sizes[d];
      offset_b -= plan.stride_b[d] * plan.sizes[d];
      index[d] = 0;
    }
  }
}

}  // namespace

void binary_f32(const BinaryPlan& plan, const float* a, const float* b, float* out, BinaryOp op, float k,
                ThreadPool* pool) {
  const RunFn f = op == BinaryOp::kAxpy ? run<BinaryOp::kAxpy> : op == BinaryOp::kMul ? run<BinaryOp::kMul>
                                                                                       : run<BinaryOp::kDiv>;
  int64_t total = 1;
  for (int32_t d = 0; d < plan.rank; ++d) total *= plan.sizes[d];
  if (total <= 0) return;  // an empty tensor (binary_range divides by its rows' length)
  const VecF vk = splat(k);
  pool = pool_for(pool, static_cast<uint64_t>(total), kParallelMinElements);
  if (pool == nullptr) {
    binary_range(f, plan, a, b, out, vk, 0, total);
    return;
  }
  parallelize_1d(pool, tiles_of(total, kElementTile), [&](size_t t) {
    const int64_t begin = static_cast<int64_t>(t) * kElementTile;
    binary_range(f, plan, a, b, out, vk, begin, total - begin < kElementTile ? total : begin + kElementTile);
  });
}

void binary_scalar_f32(const float* x, float c, float* y, int64_t n, BinaryOp op, float k, ThreadPool* pool) {
  BinaryPlan plan;
  plan.rank = 1;
  plan.sizes[0] = n;
  plan.stride_a[0] = 1;
  binary_f32(plan, x, &c, y, op, k, pool);
}

}  // namespace sb::optimized
