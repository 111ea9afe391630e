// What the XNNPACK node kinds share. Each node kind × dtype of an XNNPACK
// delegate is an op of this library ("xnnpack::conv2d.f32"), selected, traced
// and sized like any other; native/backends/xnnpack plans a delegate's graph
// into calls of them, on tensors laid out as our kernels take them (NCHW
// images, weights packed once at init). Most run the portable or optimized
// kernel of the matching ATen op, then the clamp XNNPACK fuses into the node.
#pragma once

#include <cmath>

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

}  // namespace sb::xnnpack_nodes
