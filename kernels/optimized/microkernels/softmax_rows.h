// Float softmax and log-softmax over one dim of a contiguous [outer, n,
// inner] array, shared by _softmax.out's and _log_softmax.out's fast paths.
#pragma once

#include <cstdint>

namespace sb {
class ThreadPool;
}  // namespace sb

namespace sb::optimized {

struct SoftmaxShape {
  int64_t outer = 0;  // product of the dims before `dim`
  int64_t n = 0;      // size of `dim`
  int64_t inner = 0;  // product of the dims after it (the stride of `dim`)
};

// softmax (log: log-softmax) of x ([outer, n, inner], contiguous) into y
// along its middle dim; y may alias x. Out of line (softmax_rows.cpp): both
// kernels share it. With a pool, from kParallelMinElements elements, tiles of
// whole rows (or of whole column vectors, which the loop takes one at a time)
// split over it.
void softmax_f32(const float* x, float* y, const SoftmaxShape& s, bool log, ThreadPool* pool = nullptr);

}  // namespace sb::optimized
