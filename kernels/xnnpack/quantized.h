// The int8 arithmetic of XNNPACK's static quantization (qs8: int8 values v
// standing for scale * (v - zero_point)), as the qs8 node kinds use it:
// integer accumulation, then XNNPACK's fp32 requantization (the int32
// accumulator times one float multiplier, clamped, rounded to nearest even,
// plus the output zero point).
//
// Convolutions and fully connected layers run the int8 micro-kernels of
// microkernels/ (u8 x s8 dot products, vectorised requantization); the dynamic
// fully connected layer still widens to int16 in loops the compiler vectorises.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#include "sb/kernel.h"
#include "sb/thread_pool.h"
#include "xnnpack/microkernels/qs8_requantize.h"

namespace sb::xnnpack_nodes::qs8 {

// sum_i a[i] * b[i]: a widened row (input minus its zero point) by a weight row.
inline int32_t dot(const int16_t* a, const int8_t* b, int64_t n) {
  int32_t acc = 0;
  for (int64_t i = 0; i < n; ++i) acc += a[i] * static_cast<int32_t>(b[i]);
  return acc;
}

// A convolution of int8 NCHW images, per-channel multipliers. Arguments, as the plan passes them:
// input, weight, bias, stride, padding, dilation, groups, multipliers (float, one per output
// channel), input zero point, output zero point, output min, output max, out, scratch. The weight is
// packed for the GEMM micro-kernels and the bias holds the input zero point folded in
// (microkernels/qs8_gemm.h: pack_filter); scratch is conv_scratch_bytes. Every non-depthwise conv
// node kind runs it. With a pool (sb/thread_pool.h) the blocks of 16 output channels (or, on small
// planes, the output rows) of each group are split over it once the group's image is packed.
Error conv(Args args, ThreadPool* pool = nullptr);

// The same arguments for a depthwise convolution (groups = input channels, each giving
// out_channels / groups outputs): the weight OIHW [O, 1, kh, kw], the bias as the node has it (int32
// or none), scratch of depthwise_scratch_words int32 (microkernels/qs8_dwconv.h).
Error depthwise_conv(Args args);

// Rows [M, I] by an int8 filter packed as one group of a 1x1 convolution (O outputs, I inputs; bias
// folded likewise): input, weight, bias, multipliers (one per output), input zero point, output zero
// point, output min, output max, out [M, O], scratch (fully_connected_scratch_bytes). With a pool,
// runs of output channel blocks split over it.
Error fully_connected(Args args, ThreadPool* pool = nullptr);

// Dynamically quantized rows [M, K] (each with its scale and zero point, row_params [M, 2] from
// convert.f32_qd8) by an int8 [O, K] filter (4-bit filters unpacked at init), fp32 out [M, O]:
// integer dot products per filter scale block, then acc * row scale * block scale summed over the
// blocks, plus bias, clamped. weight_scales is [O] (one block: per channel) or [O, K / G] (per group
// of G). Arguments: input, row_params, weight, bias (fp32 or none), weight_scales, output min, output
// max, out, scratch (one widened row). With a pool, each row's outputs split over it in runs.
Error dynamic_fully_connected(Args args, ThreadPool* pool = nullptr);

// The input index that output index `o` of a convolution reads through tap `k` along one dim of
// `size` inputs, or -1 when the tap falls outside: o * stride - pad + k * dilation; for a transposed
// convolution, the input whose strided tap lands on o (o + pad - k * dilation, divisible by stride).
inline int64_t tap_input(int64_t o, int64_t k, int64_t stride, int64_t pad, int64_t dilation, int64_t size,
                         bool transposed) {
  int64_t i = o * stride - pad + k * dilation;
  if (transposed) {
    const int64_t t = o + pad - k * dilation;
    i = t >= 0 && t % stride == 0 ? t / stride : -1;
  }
  return i < size ? i : -1;
}

}  // namespace sb::xnnpack_nodes::qs8
