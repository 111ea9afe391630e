// An XNNPACK graph compiled, at init, into a flat list of steps over our
// kernels: what execute() runs without allocating.
//
// Compiling decides these once:
//   - layouts: XNNPACK keeps images NHWC; our optimized convolution, pooling
//     and mean kernels take NCHW. An image that a convolution or pooling node
//     reads or writes is stored NCHW (and so are the element-wise values
//     between them), so a CNN runs with no layout work inside; a value whose
//     readers want the other layout is viewed in it when only size-1 dims
//     move, and converted by a relayout step otherwise;
//   - memory: every intermediate value gets its buffer here, in the method's
//     budget, at its dims' upper bounds (a call may bring smaller inputs:
//     shapes.h); reshapes, copies and the transposes the layouts already made
//     share their input's memory; constants are read in place when aligned
//     for their dtype; tensors over a delegate call's values are bound per
//     call;
//   - weights: fp32 convolution filters (OHWI) are packed OIHW and fully
//     connected ones ([O, I]) [I, O]; int8 filters get their requantization
//     multipliers, 4-bit ones are unpacked to int8 and their block scales to
//     fp32; dynamically quantized rows get a [rows, 2] tensor of their scales
//     and zero points, written by the convert node that quantizes them.
// Each node becomes a call of its node kind's kernel ("xnnpack::conv2d.f32",
// kernels/xnnpack), resolved in the build's registry: a build without it
// fails at init with every missing node kind named in one line.
#pragma once

#include <cstdint>

#include "graph.h"
#include "sb/backend.h"
#include "sb/kernel.h"
#include "shapes.h"

namespace sb::xnnpack {

struct Step {
  const KernelDef* kernel;  // nullptr for a relayout
  const KernelDef* const* callees;  // kernel->calls, resolved at init
  Value** args;
  uint32_t num_args;
  uint32_t node;  // the graph node it runs (for messages)
  // A relayout: `to` (contiguous) takes `from`'s elements with
  // to.sizes[k] == from.sizes[perm[k]].
  const Tensor* from;
  Tensor* to;
  uint8_t perm[4];
};

// A tensor of the plan whose data is a delegate call's value, set per call.
struct Binding {
  Tensor* tensor;
  uint32_t external_id;
};

struct Plan {
  const Graph* graph;
  Step* steps;
  uint32_t num_steps;
  Binding* bindings;
  uint32_t num_bindings;
  ShapeState shapes;  // the sizes its tensors have now, and how they follow a call's input shapes
};

Error compile_plan(BackendInitContext& context, const Graph& graph, Plan* plan);

// Runs the plan on the delegate call's values (inputs, then outputs, by
// external id): checks their dtypes and shapes (inputs may shrink within the
// planned bounds: shapes.h), binds them, resizes the outputs, runs each step.
Error run_plan(const Plan& plan, const BackendExecutionContext& context, Args args);

}  // namespace sb::xnnpack
