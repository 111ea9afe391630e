// Depthwise 2-D convolution, fp32 NCHW: groups == input channels, `multiplier`
// output channels per input channel (weight [C_out, 1, kh, kw]).
#pragma once

#include <cstdint>

namespace sb::optimized {

// With `channels` output channels (C_in = channels / multiplier):
// output[n, c, oh, ow] = bias[c] + sum_{ki, kj} weight[c, ki, kj] *
//   input[n, c / multiplier, oh * stride_h - pad_h + ki * dilation_h, ow * stride_w - pad_w + kj * dilation_w]
// with input positions outside [0, in_h) x [0, in_w) reading as zero. All
// tensors contiguous; `bias` may be null. Reads only inside the input/weight
// planes whatever out_h/out_w are. Returns false without touching `output`
// for a geometry it does not take (non-positive stride or dilation, negative
// padding, channels not a multiple of the multiplier, a kernel or row too large
// for its fixed scratch).
bool depthwise_conv2d_f32(const float* input, const float* weight, const float* bias, float* output, int64_t batch,
                          int64_t channels, int64_t in_h, int64_t in_w, int64_t out_h, int64_t out_w,
                          int64_t kernel_h, int64_t kernel_w, int64_t stride_h, int64_t stride_w, int64_t pad_h,
                          int64_t pad_w, int64_t dilation_h, int64_t dilation_w, int64_t multiplier = 1);

}  // namespace sb::optimized
