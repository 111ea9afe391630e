// Float element-wise loops for the optimized kernels: a unary map over memory
// order, and a broadcasting binary map that first folds the broadcast into
// at most kMaxDims (usually one to three) runs, so the inner loop is always a
// contiguous vector-vector or vector-scalar loop: same-shape, a 0-d or
// one-element operand, a trailing row vector [.., N] and a per-channel
// [C, 1, 1] operand all take it without per-element index arithmetic.
//
// The binary map is one out-of-line loop per arithmetic (binary_fast.cpp):
// every binary and tensor-scalar kernel (add, sub, mul, div and their .Scalar
// forms) shares it, whatever the broadcast, so a model pays for it once.
#pragma once

#include <cstdint>

#include "optimized/util/vec.h"
#include "sb/kernel.h"
#include "sb/tensor.h"

namespace sb::optimized {

// y[i] = f(x[i]) for i < n; f takes and returns VecF. The tail runs on a
// zero-padded vector, so f must not trap on zero (no float op traps here).
template <typename F>
inline void map_unary_f32(const float* x, float* y, int64_t n, F f) {
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) store(y + i, f(load(x + i)));
  if (i < n) store_first(y + i, f(load_first(x + i, n - i)), n - i);
}

// A broadcast binary op folded into runs: out's dims with size-1 dims dropped
// and adjacent dims merged wherever both operands stay linear across them.
struct BinaryPlan {
  int32_t rank = 0;  // 0: a single element
  int64_t sizes[kMaxDims] = {};
  int64_t stride_a[kMaxDims] = {};  // elements; 0 along broadcast dims
  int64_t stride_b[kMaxDims] = {};
};

// The arithmetic of binary_f32: kAxpy is a + k * b (add and sub with their
// alpha; k = +-1 gives a + b and a - b exactly, fused or not).
enum class BinaryOp : int32_t { kAxpy, kMul, kDiv };

// out = a op b over `plan` (contiguous data).
void binary_f32(const BinaryPlan& plan, const float* a, const float* b, float* out, BinaryOp op, float k = 1.0f);

// y[i] = x[i] op c for i < n (the tensor-scalar kernels): binary_f32 with c
// broadcast.
void binary_scalar_f32(const float* x, float c, float* y, int64_t n, BinaryOp op, float k = 1.0f);

// The float fast path's preconditions for a unary kernel whose portable form
// takes in and out of any dtypes: both Float, and out takes in's shape
// (through the portable resize helper). When false, the caller hands the call
// to the portable kernel, which reports whatever is wrong.
bool prepare_unary_f32(const char* op, const Tensor& in, Tensor& out);

// The same for a broadcasting binary kernel: a, b and out Float, out given
// the broadcast shape, and a layout the plan covers: every tensor in the
// contiguous dim order, or (any one dim order, which the kernels' layout
// policy guarantees) each operand either out's shape or a single element.
bool prepare_binary_f32(const char* op, const Tensor& a, const Tensor& b, Tensor& out, BinaryPlan* plan);

// add.out and sub.out (`sign` +1 / -1): out = a + sign * alpha * b for Float
// operands, alpha as the portable kernel takes it for a Float result (an int or
// a double that fits float; a bool alpha is refused there). Anything else goes
// to `portable`.
Error add_scaled_f32(const char* op, KernelContext& ctx, Args args, const KernelDef& portable, float sign);

// mul.out and div.out: out = a op b for Float operands; anything else goes to `portable`.
Error binary_out_f32(const char* op, KernelContext& ctx, Args args, const KernelDef& portable, BinaryOp bop);

// An int or double Scalar: a Float tensor keeps its dtype with either (the
// tensor-scalar kernels' fast-path condition).
inline bool numeric_scalar(const Value& s) { return s.tag == Tag::kInt || s.tag == Tag::kDouble; }

}  // namespace sb::optimized
