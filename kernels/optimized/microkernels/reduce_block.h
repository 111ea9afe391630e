// Reductions of fp32 tensors whose reduced dims form one block in memory:
// viewed as [outer, count, inner], output element (o, i) folds the `count`
// elements in[o, 0..count, i]. Sum, mean and norms over trailing or middle
// dims of a contiguous tensor all have this shape.
#pragma once

#include <cstdint>

namespace sb {
class ThreadPool;
}  // namespace sb

namespace sb::optimized {

struct ReductionBlock {
  int64_t outer = 1;
  int64_t count = 1;
  int64_t inner = 1;
};

// out[o, i] = (sum over r of in[o, r, i]) / divisor, vectorised over i (when inner is 1: over
// kLanes rows at a time, or along r). out holds outer × inner elements. With a pool, from
// kParallelMinElements inputs, tiles of whole output rows (whole groups of kLanes of them when
// inner is 1, as the loop takes them) split over it: each output is summed alike either way.
void sum_block_f32(const float* in, float* out, const ReductionBlock& block, float divisor,
                   ThreadPool* pool = nullptr);

// Sum of p[0..n), vectorised (several accumulators).
float sum_f32(const float* p, int64_t n);

}  // namespace sb::optimized
