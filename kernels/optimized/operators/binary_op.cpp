// The fast-path checks and plans of optimized/operators/binary_op.h.
#include "optimized/operators/binary_op.h"

#include "util/elementwise.h"
#include "util/promote.h"
#include "util/shape.h"

namespace sb::optimized {
namespace {

// Plans out = f(a, b) for tensors in the contiguous dim order whose shapes
// the caller has validated: out has the broadcast shape of a and b.
void plan_binary(const Tensor& a, const Tensor& b, const Tensor& out, BinaryPlan* plan) {
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

// Whether out already has the broadcast shape of a and b (then it needs no
// resize); false also when they do not broadcast (the portable helper then
// reports that).
bool has_broadcast_shape(const Tensor& a, const Tensor& b, const Tensor& out) {
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

}  // namespace

bool prepare_unary_f32(const char* op, const Tensor& in, Tensor& out) {
  if (in.dtype != ScalarType::kFloat || out.dtype != ScalarType::kFloat) return false;
  // An out that has the shape already needs no resize (static or dynamic, the
  // resize would change nothing); skipping the call skips its Error values.
  return same_shape(in, out) || kernels::resize_output_like(op, out, in).ok();
}

bool prepare_binary_f32(const char* op, const Tensor& a, const Tensor& b, Tensor& out, BinaryPlan* plan) {
  if (a.dtype != ScalarType::kFloat || b.dtype != ScalarType::kFloat || out.dtype != ScalarType::kFloat) return false;
  // The common calls first, checked in a few comparisons: each operand either
  // has out's shape (then, by the layout policy, its dim order too) or is a
  // single element of no higher rank, one of them out's shape: out has the
  // broadcast shape, and memory order serves.
  const bool a_full = same_shape(a, out);
  const bool b_full = same_shape(b, out);
  const bool a_one = !a_full && a.dim <= out.dim && a.numel() == 1;
  const bool b_one = !b_full && b.dim <= out.dim && b.numel() == 1;
  if ((a_full || b_full) && (a_full || a_one) && (b_full || b_one)) {
    plan->rank = 1;
    plan->sizes[0] = out.numel();
    plan->stride_a[0] = a_full ? 1 : 0;
    plan->stride_b[0] = b_full ? 1 : 0;
    return true;
  }
  if (!has_broadcast_shape(a, b, out) && !kernels::check_broadcast_out(op, a, b, out).ok()) return false;
  if (a.is_default_dim_order() && b.is_default_dim_order() && out.is_default_dim_order()) {
    plan_binary(a, b, out, plan);
    return true;
  }
  // Other dim orders: out may have been resized; the same two layouts only.
  if (!(same_shape(a, out) || a.numel() == 1) || !(same_shape(b, out) || b.numel() == 1)) return false;
  plan->rank = 1;
  plan->sizes[0] = out.numel();
  plan->stride_a[0] = same_shape(a, out) ? 1 : 0;
  plan->stride_b[0] = same_shape(b, out) ? 1 : 0;
  return true;
}

Error add_scaled_f32(const char* op, KernelContext& ctx, Args args, const KernelDef& portable, float sign) {
  const Tensor& a = *args[0]->as_tensor;
  const Tensor& b = *args[1]->as_tensor;
  Tensor& out = *args[3]->as_tensor;
  float alpha = 0.0f;
  BinaryPlan plan;
  if (args[2]->tag == Tag::kBool || !kernels::extract_scalar<float>(*args[2], &alpha) ||
      !prepare_binary_f32(op, a, b, out, &plan)) {
    return portable.fn(ctx, args);
  }
  binary_f32(plan, a.data_as<float>(), b.data_as<float>(), out.data_as<float>(), BinaryOp::kAxpy, sign * alpha,
             ctx.threads());
  return Error();
}

Error binary_out_f32(const char* op, KernelContext& ctx, Args args, const KernelDef& portable, BinaryOp bop) {
  const Tensor& a = *args[0]->as_tensor;
  const Tensor& b = *args[1]->as_tensor;
  Tensor& out = *args[2]->as_tensor;
  BinaryPlan plan;
  if (!prepare_binary_f32(op, a, b, out, &plan)) return portable.fn(ctx, args);
  binary_f32(plan, a.data_as<float>(), b.data_as<float>(), out.data_as<float>(), bop, 1.0f, ctx.threads());
  return Error();
}

}  // namespace sb::optimized
