// Float element-wise arithmetic micro-kernels: a broadcasting binary map that
// runs over a plan folding the broadcast into at most kMaxDims (usually one
// to three) runs, so the inner loop is always a contiguous vector-vector or
// vector-scalar loop: same-shape, a 0-d or one-element operand, a trailing row
// vector [.., N] and a per-channel [C, 1, 1] operand all take it without
// per-element index arithmetic. Raw pointers only: the plan is made from
// tensors by optimized/operators/binary_op.h.
//
// One out-of-line loop per arithmetic (binary_f32.cpp): every binary and
// tensor-scalar kernel (add, sub, mul, div and their .Scalar forms) shares it,
// whatever the broadcast, so a model pays for it once.
#pragma once

#include <cstdint>

#include "sb/tensor.h"  // kMaxDims

namespace sb {
class ThreadPool;
}  // namespace sb

namespace sb::optimized {

// Elements per tile of a parallel element-wise loop (whole vectors at every width): 64 KiB of
// output, enough to outweigh taking a tile, small enough that two threads share a 1 MB map evenly.
constexpr int64_t kElementTile = 16 * 1024;

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

// out = a op b over `plan` (contiguous data); with a pool, tiles of
// kElementTile elements of out (from kParallelMinElements of them) split over it.
void binary_f32(const BinaryPlan& plan, const float* a, const float* b, float* out, BinaryOp op, float k = 1.0f,
                ThreadPool* pool = nullptr);

// y[i] = x[i] op c for i < n (the tensor-scalar kernels): binary_f32 with c
// broadcast.
void binary_scalar_f32(const float* x, float c, float* y, int64_t n, BinaryOp op, float k = 1.0f,
                       ThreadPool* pool = nullptr);

}  // namespace sb::optimized
