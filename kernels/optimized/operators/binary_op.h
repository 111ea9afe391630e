// The Tensor side of the float element-wise kernels' fast paths: whether a
// call takes the fast path (dtypes, shapes, dim orders), out resized, and the
// broadcast folded into a BinaryPlan for the micro-kernels of
// optimized/microkernels/binary_f32.h. The op glue of add, sub, mul, div,
// their .Scalar forms and the unary kernels shares it.
#pragma once

#include "optimized/microkernels/binary_f32.h"
#include "sb/kernel.h"
#include "sb/tensor.h"
#include "sb/thread_pool.h"

namespace sb::optimized {

// fn(begin, count) over the elements [0, n) of an element-wise map: all at once, or, with a pool
// and at least kParallelMinElements of them, in tiles of kElementTile (whole vectors) split over
// it. Every element is computed alike in either case, so the outputs do not depend on the split.
template <class F>
void for_element_tiles(ThreadPool* pool, int64_t n, const F& fn) {
  pool = pool_for(pool, static_cast<uint64_t>(n > 0 ? n : 0), kParallelMinElements);
  if (pool == nullptr) {
    fn(int64_t{0}, n);
    return;
  }
  parallelize_1d(pool, tiles_of(n, kElementTile), [&](size_t t) {
    const int64_t begin = static_cast<int64_t>(t) * kElementTile;
    fn(begin, n - begin < kElementTile ? n - begin : kElementTile);
  });
}

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
