// Float element-wise loops for the optimized kernels: a unary map over memory
// order, and a broadcasting binary map that first folds the broadcast into
// at most kMaxDims (usually one to three) runs, so the inner loop is always a
// contiguous vector-vector or vector-scalar loop: same-shape, a 0-d or
// one-element operand, a trailing row vector [.., N] and a per-channel
// [C, 1, 1] operand all take it without per-element index arithmetic.
#pragma once

#include <cstdint>

#include "optimized/util/vec.h"
#include "optimized/util/vec_math.h"
#include "sb/tensor.h"
#include "util/elementwise.h"
#include "util/shape.h"

namespace sb::optimized {

// y[i] = f(x[i]) for i < n; f takes and returns VecF. The tail runs on a
// zero-padded vector, so f must not trap on zero (no float op traps here).
template <typename F>
inline void map_unary_f32(const float* x, float* y, int64_t n, F f) {
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) store(y + i, f(load(x + i)));
  if (i < n) store_partial(y + i, f(load_partial(x + i, n - i)), n - i);
}

// A broadcast binary op folded into runs: out's dims with size-1 dims dropped
// and adjacent dims merged wherever both operands stay linear across them.
struct BinaryPlan {
  int32_t rank = 0;  // 0: a single element
  int64_t sizes[kMaxDims] = {};
  int64_t stride_a[kMaxDims] = {};  // elements; 0 along broadcast dims
  int64_t stride_b[kMaxDims] = {};
};

// Plans out = f(a, b) for tensors in the contiguous dim order whose shapes
// the caller has validated: out has the broadcast shape of a and b.
inline void plan_binary(const Tensor& a, const Tensor& b, const Tensor& out, BinaryPlan* plan) {
  int64_t sa[kMaxDims];
  int64_t sb[kMaxDims];
  int64_t step_a = 1;
  int64_t step_b = 1;
  for (int32_t d = out.dim - 1; d >= 0; --d) {
    const int32_t da = a.dim - out.dim + d;
    const int32_t db = b.dim - out.dim + d;
    const int64_t size_a = da >= 0 ? a.sizes[da] : 1;
    const int64_t size_b = db >= 0 ? b.sizes[db] : 1;
    sa[d] = size_a == 1 ? 0 : step_a;
    sb[d] = size_b == 1 ? 0 : step_b;
    step_a *= size_a;
    step_b *= size_b;
  }
  int32_t r = 0;
  for (int32_t d = 0; d < out.dim; ++d) {
    const int64_t n = out.sizes[d];
    if (n == 1) continue;
    // Merge into the previous run when both operands continue linearly.
    if (r > 0 && plan->stride_a[r - 1] == sa[d] * n && plan->stride_b[r - 1] == sb[d] * n) {
      plan->sizes[r - 1] *= n;
      plan->stride_a[r - 1] = sa[d];
      plan->stride_b[r - 1] = sb[d];
      continue;
    }
    plan->sizes[r] = n;
    plan->stride_a[r] = sa[d];
    plan->stride_b[r] = sb[d];
    ++r;
  }
  plan->rank = r;
}

namespace binary_detail {

// z[i] = f(x[i], y[i]) over n elements; SA / SB: whether x / y advance
// (false: one element broadcast along the run).
template <bool SA, bool SB, typename F>
inline void run(const float* x, const float* y, float* z, int64_t n, F f) {
  const VecF xs = SA ? VecF{} : splat(*x);
  const VecF ys = SB ? VecF{} : splat(*y);
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    store(z + i, f(SA ? load(x + i) : xs, SB ? load(y + i) : ys));
  }
  if (i < n) {
    const int64_t m = n - i;
    store_partial(z + i, f(SA ? load_partial(x + i, m) : xs, SB ? load_partial(y + i, m) : ys), m);
  }
}

template <typename F>
inline void run_inner(const float* x, const float* y, float* z, int64_t n, bool step_a, bool step_b, F f) {
  if (step_a && step_b) {
    run<true, true>(x, y, z, n, f);
  } else if (step_a) {
    run<true, false>(x, y, z, n, f);
  } else if (step_b) {
    run<false, true>(x, y, z, n, f);
  } else {
    run<false, false>(x, y, z, n, f);
  }
}

}  // namespace binary_detail

// Runs `plan` on contiguous data; f takes two VecF and returns VecF.
template <typename F>
inline void map_binary_f32(const BinaryPlan& plan, const float* a, const float* b, float* out, F f) {
  if (plan.rank == 0) {
    binary_detail::run<false, false>(a, b, out, 1, f);
    return;
  }
  const int32_t inner = plan.rank - 1;
  const int64_t n = plan.sizes[inner];
  const bool step_a = plan.stride_a[inner] != 0;
  const bool step_b = plan.stride_b[inner] != 0;
  int64_t outer = 1;
  for (int32_t d = 0; d < inner; ++d) outer *= plan.sizes[d];
  int64_t index[kMaxDims] = {};
  int64_t offset_a = 0;
  int64_t offset_b = 0;
  for (int64_t o = 0; o < outer; ++o) {
    binary_detail::run_inner(a + offset_a, b + offset_b, out + o * n, n, step_a, step_b, f);
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

// The float fast path's preconditions for a unary kernel whose portable form
// takes in and out of any dtypes: both Float, and out takes in's shape
// (through the portable resize helper). When false, the caller hands the call
// to the portable kernel, which reports whatever is wrong.
inline bool prepare_unary_f32(const char* op, const Tensor& in, Tensor& out) {
  if (in.dtype != ScalarType::kFloat || out.dtype != ScalarType::kFloat) return false;
  // An out that has the shape already needs no resize (static or dynamic, the
  // resize would change nothing); skipping the call skips its Error values.
  return same_shape(in, out) || kernels::resize_output_like(op, out, in).ok();
}

// Whether out already has the broadcast shape of a and b (then it needs no
// resize); false also when they do not broadcast (the portable helper then
// reports that).
inline bool has_broadcast_shape(const Tensor& a, const Tensor& b, const Tensor& out) {
  const int32_t rank = a.dim > b.dim ? a.dim : b.dim;
  if (out.dim != rank) return false;
  for (int32_t d = 0; d < rank; ++d) {
    const int32_t da = a.dim - rank + d;
    const int32_t db = b.dim - rank + d;
    const int64_t sa = da >= 0 ? a.sizes[da] : 1;
    const int64_t sb = db >= 0 ? b.sizes[db] : 1;
    const int64_t want = sa == 1 ? sb : sa;
    if ((sb != 1 && sb != sa && sa != 1) || out.sizes[d] != want) return false;
  }
  return true;
}

// The same for a broadcasting binary kernel: a, b and out Float, out given
// the broadcast shape, and a layout the plan covers: every tensor in the
// contiguous dim order, or (any one dim order, which the kernels' layout
// policy guarantees) each operand either out's shape or a single element.
inline bool prepare_binary_f32(const char* op, const Tensor& a, const Tensor& b, Tensor& out, BinaryPlan* plan) {
  if (a.dtype != ScalarType::kFloat || b.dtype != ScalarType::kFloat || out.dtype != ScalarType::kFloat) return false;
  if (!has_broadcast_shape(a, b, out) && !kernels::check_broadcast_out(op, a, b, out).ok()) return false;
  if (a.is_default_dim_order() && b.is_default_dim_order() && out.is_default_dim_order()) {
    plan_binary(a, b, out, plan);
    return true;
  }
  const int64_t n = out.numel();
  const bool a_full = same_shape(a, out);
  const bool b_full = same_shape(b, out);
  if (!(a_full || a.numel() == 1) || !(b_full || b.numel() == 1)) return false;
  plan->rank = 1;
  plan->sizes[0] = n;
  plan->stride_a[0] = a_full ? 1 : 0;
  plan->stride_b[0] = b_full ? 1 : 0;
  return true;
}

}  // namespace sb::optimized
