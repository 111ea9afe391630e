// What the XNNPACK node kinds share. Each node kind × dtype of an XNNPACK
// delegate is an op of this library ("xnnpack::conv2d.f32"), selected, traced
// and sized like any other; native/backends/xnnpack plans a delegate's graph
// into calls of them, on tensors laid out as our kernels take them (NCHW
// images, weights packed once at init). The heavy ones (convolution, pooling,
// matrix products) run the portable or optimized kernel of the matching ATen
// op, then the clamp XNNPACK fuses into the node; element-wise ones and the
// int8 ones run loops of their own.
#pragma once

#include <cmath>
#include <cstring>

#include "sb/half.h"
#include "sb/kernel.h"

namespace sb::xnnpack_nodes {

// v within the node's output bounds (an infinite bound is none). NaN stays NaN, as ATen's clamp keeps it.
inline float clamp_to(float v, float lo, float hi) { return v < lo ? lo : v > hi ? hi : v; }

template <typename T>
void clamp_elements(T* data, int64_t n, float lo, float hi) {
  for (int64_t i = 0; i < n; ++i) data[i] = static_cast<T>(clamp_to(data[i], lo, hi));
}

// Clamps `out` (float, or Half computed in float) in place to the node's [min, max].
inline Error clamp_output(Value* out, const Value& min, const Value& max) {
  const bool has_min = std::isfinite(min.as_double), has_max = std::isfinite(max.as_double);
  if (!has_min && !has_max) return Error();
  Tensor& t = *out->as_tensor;
  const float lo = static_cast<float>(min.as_double), hi = static_cast<float>(max.as_double);
  if (t.dtype == ScalarType::kFloat) {
    clamp_elements(t.data_as<float>(), t.numel(), lo, hi);
  } else if (t.dtype == ScalarType::kHalf) {
    clamp_elements(t.data_as<Half>(), t.numel(), lo, hi);
  } else {
    return Error::make(ErrorCode::kInvalidArgument, "an XNNPACK node clamps a %s output", scalar_type_name(t.dtype));
  }
  return Error();
}

// Element strides of `t` against the output's rank-`rank` shape: 0 where t
// broadcasts (size 1), for a contiguous tensor of the same rank.
inline void broadcast_strides(const Tensor& t, int32_t rank, int64_t* strides) {
  int64_t s = 1;
  for (int32_t d = rank - 1; d >= 0; --d) {
    strides[d] = t.sizes[d] == 1 ? 0 : s;
    s *= t.sizes[d];
  }
}

// out = f(a, b) over out's shape, element by element: a and b hold In elements and out Out ones, and
// each dim of a and b is out's or 1 (the plan presents a binary node's inputs at its output's rank). A
// call that breaks this (a program naming the kind itself) is refused, never read past.
template <typename In, typename Out, typename F>
Error broadcast(const char* op, const Tensor& a, const Tensor& b, Tensor& out, F f) {
  const int32_t rank = out.dim;
  bool fits = a.dim == rank && b.dim == rank && a.dtype == ScalarTypeOf<In>::value &&
              b.dtype == ScalarTypeOf<In>::value && out.dtype == ScalarTypeOf<Out>::value;
  for (int32_t d = 0; fits && d < rank; ++d) {
    fits = (a.sizes[d] == out.sizes[d] || a.sizes[d] == 1) && (b.sizes[d] == out.sizes[d] || b.sizes[d] == 1);
  }
  if (!fits) return Error::make(ErrorCode::kInvalidArgument, "%s: its inputs do not broadcast to its output", op);
  const In* pa = a.data_as<In>();
  const In* pb = b.data_as<In>();
  Out* po = out.data_as<Out>();
  const int64_t total = out.numel();
  if (a.numel() == total && b.numel() == total) {
    for (int64_t i = 0; i < total; ++i) po[i] = f(pa[i], pb[i]);
    return Error();
  }
  int64_t sa[kMaxDims], sb[kMaxDims], index[kMaxDims] = {};
  broadcast_strides(a, rank, sa);
  broadcast_strides(b, rank, sb);
  int64_t ia = 0, ib = 0;
  for (int64_t i = 0; i < total; ++i) {
    po[i] = f(pa[ia], pb[ib]);
    for (int32_t d = rank - 1; d >= 0; --d) {
      ia += sa[d];
      ib += sb[d];
      if (++index[d] < out.sizes[d]) break;
      ia -= sa[d] * out.sizes[d];
      ib -= sb[d] * out.sizes[d];
      index[d] = 0;
    }
  }
  return Error();
}

// XNNPACK's float binary nodes (input1, input2, output min, output max, out), fp32 or fp16 (T = Half):
// out = clamp(Op()(a, b)), computed in float and rounded once to T, as ATen's Half kernels round. A
// node kind of its own, as XNNPACK's are, not an ATen op then a clamp: a delegated runtime needs
// neither ATen's broadcasting arithmetic nor its clamp.
template <typename T, typename Op>
Error binary_clamped(KernelContext& ctx, Args args) {
  const float lo = static_cast<float>(args[2]->as_double), hi = static_cast<float>(args[3]->as_double);
  return broadcast<T, T>(ctx.kernel().op, *args[0]->as_tensor, *args[1]->as_tensor, *args[4]->as_tensor,
                         [&](T x, T y) {
                           return static_cast<T>(clamp_to(Op()(static_cast<float>(x), static_cast<float>(y)), lo, hi));
                         });
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
  return clamp_output(out, min, max);
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
