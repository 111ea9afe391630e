// Row helpers shared by the optimized depthwise convolution and pooling kernels.
#pragma once

#include <cstdint>

namespace sb::optimized {

// One input row into `s` stride phases of `phase_len` floats each: phase p,
// element i is src[base + p + s * i] where that column is inside [0, in_w),
// `pad` elsewhere. Every tap of a window sliding by s over the row is then a
// contiguous run of one phase. Phase p starts at dst + p * phase_stride (default: phase_len, the
// phases back to back). Reads src only inside [0, in_w).
void fill_phase_row(float* dst, const float* src, int64_t in_w, int64_t base, int64_t s, int64_t phase_len, float pad,
                    int64_t phase_stride = 0);

// Sum of p[0..n), vectorised (several accumulators).
float sum_f32(const float* p, int64_t n);

}  // namespace sb::optimized
