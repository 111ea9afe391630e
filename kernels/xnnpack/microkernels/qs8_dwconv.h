// The qs8 depthwise convolution micro-kernel: one channel of an NCHW image at a time, its taps
// accumulated in int32 vectors across output positions.
//
// The channel's plane is first copied, widened to int32 (x - zero point, 0 in the padding), into
// the phase-split layout of qs8_gemm.h (one padded plane per phase of the stride, phase_h() x
// phase_w()), so that every tap reads a contiguous run of the output grid whatever the stride or
// dilation: acc[q] += w[tap] * plane[tap_offset + q] over the grid's oh x phase_w() positions, the
// columns past ow then dropped at requantization.
#pragma once

#include <cstdint>

#include "xnnpack/microkernels/qs8_gemm.h"

namespace sb::xnnpack_nodes::qs8 {

// The int32 scratch a depthwise call works in: tap offsets, the phase-split plane (with a tail a
// vector may read past its last position), the accumulators of the grid.
inline int64_t depthwise_scratch_words(const ConvShape& s) {
  return s.kh * s.kw + s.sh * s.sw * s.phase_plane() + s.phase_w() + 64 + s.grid_positions() + 64;
}

// One output channel: x_plane (h x w int8) by `weights` (kh * kw int8), plus bias, requantized into
// out (oh x ow). scratch holds depthwise_scratch_words(s) int32.
using DepthwiseKernel = void (*)(const int8_t* x_plane, const ConvShape& s, const int8_t* weights, int32_t bias,
                                 int32_t input_zero_point, float multiplier, int32_t output_zero_point, int32_t qmin,
                                 int32_t qmax, int32_t* scratch, int8_t* out);

// Chosen on the first call (an AVX-512 build of the same loops on x86-64 CPUs that have it).
DepthwiseKernel depthwise_kernel();

}  // namespace sb::xnnpack_nodes::qs8
