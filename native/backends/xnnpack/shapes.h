// Dynamic shapes for XNNPACK delegates.
//
// ExecuTorch 1.5 lowers a program exported with dynamic dims by writing each
// XNNPACK value's dims at their upper bound (exir's get_shape evaluates the
// symbolic sizes to their bounds; nothing marks a dim as dynamic), and a
// static reshape's inferred dim as 0. Its runtime hands XNNPACK the actual
// input shapes on every call (xnn_reshape_external_value, then
// xnn_reshape_runtime) and resizes the call's outputs to what XNNPACK
// derived.
//
// The plan does the same within the bounds: every buffer keeps its init-time
// (upper bound) capacity, and when a call's input shapes differ from the last
// call's, reshape_plan() re-derives every value's dims node by node (one
// shape rule per node kind), checks each against its planned bound, and
// rewrites the sizes of every plan tensor and argument that follows a value.
// The compiler registers those (ShapedTensor, ShapedScalar) as it makes them;
// a lowering that makes a tensor over a value must register it too.
#pragma once

#include <cstdint>

#include "graph.h"
#include "sb/error.h"
#include "sb/kernel.h"

namespace sb::xnnpack {

// How a plan tensor's sizes follow its value's XNNPACK dims.
enum class ShapeForm : uint8_t {
  kPresented,  // the dims, padded with leading 1s to `rank`, taken in `order`
  kRows,       // [numel / last dim, last dim]: a fully connected node's matrix
  kMatrices,   // [product of the batch dims, rows, columns]: a batch matrix multiply's
  kRowParams,  // [rows, 2]: a dynamically quantized value's per-row scale and zero point
  kRowCount,   // only the first size follows, as numel / last dim: a table of one entry per row (pixel)
};

struct ShapedTensor {
  Tensor* tensor = nullptr;
  uint32_t value = 0;
  ShapeForm form = ShapeForm::kPresented;
  int32_t rank = 0;
  uint8_t order[kMaxRank] = {};
  ShapedTensor* next = nullptr;
};

// A kernel argument that divides by a value's plane size (H * W of an NHWC
// image): the int8 global average pooling's multiplier.
struct ShapedScalar {
  Value* scalar = nullptr;
  uint32_t value = 0;
  double numerator = 0;
  ShapedScalar* next = nullptr;
};

struct ValueDims {
  int64_t d[kMaxRank] = {};
};

struct ShapeState {
  // Every value's dims as the plan's tensors hold them now: the planned
  // ones (the bounds) until a call brings other input shapes.
  ValueDims* dims = nullptr;
  // False while a re-derivation is under way or after one failed: the next
  // call derives again even if its inputs look like the last call's.
  bool* consistent = nullptr;
  ShapedTensor* tensors = nullptr;
  ShapedScalar* scalars = nullptr;
};

struct Plan;

// Takes the call's input shapes (in memory order, as XNNPACK reads them):
// each dim within its planned bound, the rank kept. When they differ from
// the last call's, re-derives every value's dims and resizes the plan's
// tensors; when they are the same, does nothing else. Every refusal is one
// error line.
Error reshape_plan(const Plan& plan, Args args);

}  // namespace sb::xnnpack
