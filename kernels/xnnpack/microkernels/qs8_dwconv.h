// The qs8 depthwise convolution micro-kernel: an NCHW image channel by channel, the taps accumulated
// in int32 vectors across output positions.
//
// Each input plane is first copied, widened to int32 (x - zero point, 0 in the padding), into the
// phase-split layout of qs8_gemm.h (one padded plane per phase of the stride, phase_h() x
// phase_w()), so that every tap reads a contiguous run of the output grid whatever the stride or
// dilation: acc[q] += w[tap] * plane[tap_offset + q] over the grid's oh x phase_w() positions, the
// columns past ow dropped when the results are stored.
#pragma once

#include <cstdint>

#include "xnnpack/microkernels/qs8_gemm.h"

namespace sb::xnnpack_nodes::qs8 {

// Small output planes run with lanes over channels instead (x86-64 vector kernel): every output
// position's in-bound taps over 16 channels at once, from the image transposed to [position][channel].
inline bool depthwise_by_channels(const ConvShape& s) { return s.oh * s.ow <= 4; }

// The int32 scratch of a depthwise call of `channels` outputs: tap offsets, the phase-split plane
// (with a tail a vector may read past its last position), then the portable kernel's accumulators
// of the grid or the vector kernel's tap weights; for small planes the transposed image.
inline int64_t depthwise_scratch_words(const ConvShape& s, int64_t channels) {
  return s.kh * s.kw + s.sh * s.sw * s.phase_plane() + s.phase_w() + 64 + s.grid_positions() + s.kh * s.kw +
         (depthwise_by_channels(s) ? (channels + 16) * s.h * s.w : 0);
}

// One image: output channel o reads input channel o / (out_channels / in_channels).
struct DepthwiseImage {
  const int8_t* x;                   // [in_channels][h][w]
  int64_t in_channels, out_channels;
  const int8_t* weights;             // [kh * kw][out_channels]
  const int32_t* bias;               // [out_channels] or null
  const float* multipliers;          // [out_channels]
  int32_t input_zero_point, output_zero_point, qmin, qmax;
  int8_t* out;                       // [out_channels][oh][ow]
};

// scratch holds depthwise_scratch_words(s, out_channels) int32.
using DepthwiseKernel = void (*)(const DepthwiseImage& image, const ConvShape& s, int32_t* scratch);

// The portable kernel (and the reference of the others).
void depthwise_scalar(const DepthwiseImage& image, const ConvShape& s, int32_t* scratch);

}  // namespace sb::xnnpack_nodes::qs8
