// What the XNNPACK node kinds share. Each node kind × dtype of an XNNPACK
// delegate is an op of this library ("xnnpack::conv2d.f32"), selected, traced
// and sized like any other; native/backends/xnnpack plans a delegate's graph
// into calls of them, on tensors laid out as our kernels take them (NCHW
// images, weights packed once at init). Most run the portable or optimized
// kernel of the matching ATen op, then the clamp XNNPACK fuses into the node.
#pragma once

#include <cmath>
#include <cstring>

#include "sb/kernel.h"

namespace sb::xnnpack_nodes {

// Clamps `out` in place to [min, max] (doubles; infinite bounds are no bound)
// through aten::clamp.out, which a kernel using it lists in its calls.
inline Error clamp_output(KernelContext& ctx, Value* out, const Value& min, const Value& max) {
  const bool has_min = std::isfinite(min.as_double), has_max = std::isfinite(max.as_double);
  if (!has_min && !has_max) return Error();
  Value lo = has_min ? Value::from_double(min.as_double) : Value::none();
  Value hi = has_max ? Value::from_double(max.as_double) : Value::none();
  Value* const args[] = {out, &lo, &hi, out};
  return ctx.call("aten::clamp.out", Args(args, 4));
}

// Runs `op`, an ATen element-wise op of `n` schema arguments, with `out`
// appended, then clamps.
inline Error call_then_clamp(KernelContext& ctx, const char* op, Value* const* inputs, size_t n, Value* out,
                             const Value& min, const Value& max) {
  Value* args[12];  // a convolution passes 9 and its out
  for (size_t i = 0; i < n; ++i) args[i] = inputs[i];
  args[n] = out;
  Error err = ctx.call(op, Args(args, n + 1));
  if (!err.ok()) return err;
  return clamp_output(ctx, out, min, max);
}

// A convolution node (regular or depthwise: the plan packs their filters alike): input, weight, bias,
// stride, padding, dilation, groups, output min, output max, out, through aten::convolution.out,
// then the clamp.
inline Error convolution_then_clamp(KernelContext& ctx, Args args) {
  Value transposed = Value::from_bool(false);
  static const int64_t kNoPadding[2] = {0, 0};
  Value output_padding = Value::from_int_list(Span<const int64_t>(kNoPadding, 2));
  Value* const inputs[] = {args[0], args[1], args[2], args[3], args[4], args[5], &transposed, &output_padding, args[6]};
  return call_then_clamp(ctx, "aten::convolution.out", inputs, 9, args[9], *args[7], *args[8]);
}

// A static_slice node of any element type (input, offsets, out): the box of `out`'s shape at `offsets`
// of `input` (both contiguous, same rank), row by row.
inline Error copy_slice(Args args) {
  const Tensor& in = *args[0]->as_tensor;
  const Tensor& out = *args[2]->as_tensor;
  const int64_t* offsets = args[1]->as_int_list.data();
  const int32_t rank = out.dim;
  if (rank == 0 || out.numel() == 0) return Error();
  int64_t in_strides[kMaxDims];
  in_strides[rank - 1] = 1;
  for (int32_t d = rank - 1; d > 0; --d) in_strides[d - 1] = in_strides[d] * in.sizes[d];
  const int64_t row = out.sizes[rank - 1];
  const size_t element = element_size(in.dtype);
  const uint8_t* src = static_cast<const uint8_t*>(in.data);
  uint8_t* dst = static_cast<uint8_t*>(out.data);
  int64_t index[kMaxDims] = {};
  for (int64_t rows = out.numel() / row; rows > 0; --rows) {
    int64_t at = offsets[rank - 1];
    for (int32_t d = 0; d < rank - 1; ++d) at += (offsets[d] + index[d]) * in_strides[d];
    memcpy(dst, src + at * static_cast<int64_t>(element), static_cast<size_t>(row) * element);
    dst += static_cast<size_t>(row) * element;
    for (int32_t d = rank - 2; d >= 0 && ++index[d] == out.sizes[d]; --d) index[d] = 0;
  }
  return Error();
}

}  // namespace sb::xnnpack_nodes
