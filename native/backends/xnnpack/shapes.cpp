#include "shapes.h"

#include <cstdarg>
#include <cstdio>

#include "plan.h"
#include "sb/checked.h"
#include "sb/tensor.h"
#include "selection.h"

namespace sb::xnnpack {
namespace {

Error node_error(const Graph& graph, uint32_t n, const char* format, ...) __attribute__((format(printf, 3, 4)));
Error node_error(const Graph& graph, uint32_t n, const char* format, ...) {
  char message[200];
  va_list ap;
  va_start(ap, format);
  vsnprintf(message, sizeof message, format, ap);
  va_end(ap);
  const char* kind = node_type_name(graph.nodes[n].type);
  return Error::make(ErrorCode::kInvalidArgument, "XNNPACK node %u (%s): %s", static_cast<unsigned>(n),
                     kind != nullptr ? kind : "?", message);
}

// The product of dims[from..to), saturating: bounded dims stay far from saturation, a hostile payload's need not.
uint64_t product(const int64_t* dims, int32_t from, int32_t to) {
  uint64_t n = 1;
  for (int32_t d = from; d < to; ++d) n = sat_mul(n, static_cast<uint64_t>(dims[d]));
  return n;
}

// One spatial dim of a convolution or pooling output, as XNNPACK computes it. The geometry is the
// payload's (u32 fields): the dilated window saturates rather than wrap.
bool window(int64_t size, uint32_t padding_before, uint32_t padding_after, uint32_t kernel, uint32_t stride,
            uint32_t dilation, int64_t* out) {
  if (stride == 0 || kernel == 0 || size < 0) return false;
  const uint64_t effective = sat_add(sat_mul(kernel - 1, dilation > 0 ? dilation : 1), 1);
  const uint64_t padded = static_cast<uint64_t>(size) + padding_before + padding_after;
  if (padded < effective) return false;
  *out = static_cast<int64_t>((padded - effective) / stride + 1);
  return true;
}

bool is_unary(NodeType t) {
  switch (t) {
    case NodeType::kClamp: case NodeType::kSigmoid: case NodeType::kTanh: case NodeType::kExp: case NodeType::kAbs:
    case NodeType::kNegate: case NodeType::kFloor: case NodeType::kCeiling: case NodeType::kSquareRoot:
    case NodeType::kReciprocalSquareRoot: case NodeType::kLog: case NodeType::kSin: case NodeType::kCos:
    case NodeType::kGelu: case NodeType::kSquare: case NodeType::kELU: case NodeType::kLeakyReLU:
    case NodeType::kHardswish: case NodeType::kCopy: case NodeType::kSoftmax: case NodeType::kConvert:
      return true;
    default:
      return false;
  }
}

// Element-wise nodes of two inputs, broadcast against each other (PReLU's slope against its input).
bool is_binary(NodeType t) {
  return t == NodeType::kAdd || t == NodeType::kSubtract || t == NodeType::kMultiply || t == NodeType::kDiv ||
         t == NodeType::kMinimum || t == NodeType::kMaximum || t == NodeType::kPReLU;
}

// The dims of node n's output from its inputs' dims (XNNPACK's order, NHWC images), by its kind's
// shape rule. The caller checks them against the output's planned bound.
Error infer(const Graph& graph, uint32_t n, const ValueDims* dims, int64_t* out) {
  const GraphNode& node = graph.nodes[n];
  const GraphValue& y = graph.values[node.outputs[0]];
  const GraphValue& x = graph.values[node.inputs[0]];
  const int64_t* in = dims[node.inputs[0]].d;
  const int rank = static_cast<int>(y.rank);  // an int for messages: int32_t is long on some targets
  const uint32_t* g = node.geometry;
  if (node.num_outputs != 1) return node_error(graph, n, "has no shape rule for a change of input shapes");
  if (is_unary(node.type)) {
    if (x.rank != rank) return node_error(graph, n, "changes rank %d to %d", static_cast<int>(x.rank), rank);
    for (int32_t d = 0; d < rank; ++d) out[d] = in[d];
    return Error();
  }
  if (is_binary(node.type)) {
    // Broadcasting aligns the trailing dims; a missing or size-1 dim takes the other's size.
    const GraphValue& b = graph.values[node.inputs[1]];
    const int64_t* other = dims[node.inputs[1]].d;
    if (x.rank > rank || b.rank > rank) return node_error(graph, n, "broadcasts to a lower rank");
    for (int32_t d = 0; d < rank; ++d) {
      const int32_t da = d - (rank - x.rank), db = d - (rank - b.rank);
      const int64_t sa = da >= 0 ? in[da] : 1, sb = db >= 0 ? other[db] : 1;
      if (sa != sb && sa != 1 && sb != 1) {
        return node_error(graph, n, "cannot broadcast %lld with %lld in dim %d", static_cast<long long>(sa),
                          static_cast<long long>(sb), static_cast<int>(d));
      }
      out[d] = sa == 1 ? sb : sa;
    }
    return Error();
  }
  switch (node.type) {
    case NodeType::kConv2d: case NodeType::kDepthwiseConv2d:
    case NodeType::kAvgPooling2d: case NodeType::kMaxPooling2d: {
      if (!selects_any("*", NodeType::kConv2d, NodeType::kDepthwiseConv2d, NodeType::kAvgPooling2d,
                       NodeType::kMaxPooling2d)) {
        break;
      }
      // Geometry: padding top, right, bottom, left; window height, width; stride; dilation.
      const bool conv = node.type == NodeType::kConv2d || node.type == NodeType::kDepthwiseConv2d;
      const bool dilated = conv || node.type == NodeType::kMaxPooling2d;
      if (x.rank != 4 || rank != 4) return node_error(graph, n, "takes a rank-%d image", static_cast<int>(x.rank));
      // A convolution's filter fixes its input channels.
      if (conv && in[3] != x.dims[3]) {
        return node_error(graph, n, "takes %lld channels, its filter %lld", static_cast<long long>(in[3]),
                          static_cast<long long>(x.dims[3]));
      }
      if (!window(in[1], g[0], g[2], g[4], g[6], dilated ? g[8] : 1, &out[1]) ||
          !window(in[2], g[1], g[3], g[5], g[7], dilated ? g[9] : 1, &out[2])) {
        return node_error(graph, n, "a %lldx%lld image is smaller than its window", static_cast<long long>(in[1]),
                          static_cast<long long>(in[2]));
      }
      out[0] = in[0];
      out[3] = conv ? y.dims[3] : in[3];
      return Error();
    }
    case NodeType::kConvTranspose2d: {
      if (!selects(NodeType::kConvTranspose2d)) break;
      // Geometry: padding top, right, bottom, left; kernel height, width; stride; dilation; group input and
      // output channels, groups; adjustment height, width. Each side: (in - 1) * stride + the kernel's
      // reach + the adjustment + 1, less both paddings.
      if (x.rank != 4 || rank != 4) return node_error(graph, n, "takes a rank-%d image", static_cast<int>(x.rank));
      if (in[3] != x.dims[3]) {
        return node_error(graph, n, "takes %lld channels, its filter %lld", static_cast<long long>(in[3]),
                          static_cast<long long>(x.dims[3]));
      }
      for (int k = 0; k < 2; ++k) {
        const uint64_t span = sat_add(sat_mul(static_cast<uint64_t>(in[1 + k] - 1), g[6 + k]),
                                      sat_add(sat_mul(g[8 + k], uint64_t{g[4 + k]} - 1), uint64_t{g[13 + k]} + 1));
        const uint64_t padding = uint64_t{g[k == 0 ? 0 : 1]} + g[k == 0 ? 2 : 3];
        if (in[1 + k] == 0 || span <= padding || span - padding > static_cast<uint64_t>(INT64_MAX)) {
          return node_error(graph, n, "a %lldx%lld image leaves no output", static_cast<long long>(in[1]),
                            static_cast<long long>(in[2]));
        }
        out[1 + k] = static_cast<int64_t>(span - padding);
      }
      out[0] = in[0];
      out[3] = y.dims[3];
      return Error();
    }
    case NodeType::kGlobalAvgPooling2d:
      if (!selects(NodeType::kGlobalAvgPooling2d)) break;
      if (x.rank != 4 || rank != 4) return node_error(graph, n, "takes a rank-%d image", static_cast<int>(x.rank));
      out[0] = in[0];
      out[1] = out[2] = 1;
      out[3] = in[3];
      return Error();
    case NodeType::kFullyConnected: {
      if (!selects(NodeType::kFullyConnected)) break;
      // The filter fixes the input's last dim; the output's is the filter's output channels.
      const int64_t features = in[x.rank - 1];
      if (features != x.dims[x.rank - 1]) {
        return node_error(graph, n, "takes %lld input features, its filter %lld", static_cast<long long>(features),
                          static_cast<long long>(x.dims[x.rank - 1]));
      }
      if (rank == x.rank) {
        for (int32_t d = 0; d + 1 < rank; ++d) out[d] = in[d];
      } else if (rank == 2) {
        const uint64_t rows = product(in, 0, x.rank - 1);
        out[0] = rows > static_cast<uint64_t>(INT64_MAX) ? INT64_MAX : static_cast<int64_t>(rows);
      } else {
        return node_error(graph, n, "maps rank %d to rank %d", static_cast<int>(x.rank), rank);
      }
      out[rank - 1] = y.dims[rank - 1];
      return Error();
    }
    case NodeType::kStaticReshape: {
      if (!selects(NodeType::kStaticReshape)) break;
      // XNNPACK's new shape: fixed dims, and at most one 0 that takes what the others leave.
      if (node.list_size != rank) {
        return node_error(graph, n, "reshapes to %d dims of %d", static_cast<int>(node.list_size), rank);
      }
      const uint64_t total = product(in, 0, x.rank);
      uint64_t known = 1;
      int32_t inferred = -1;
      for (int32_t d = 0; d < rank; ++d) {
        out[d] = node.list[0][d];
        if (out[d] != 0) {
          known = sat_mul(known, static_cast<uint64_t>(out[d]));
        } else if (inferred < 0) {
          inferred = d;
        } else {
          return node_error(graph, n, "infers more than one dim");
        }
      }
      if (inferred >= 0 && known != 0 && total % known == 0) out[inferred] = static_cast<int64_t>(total / known);
      if ((inferred >= 0 && (known == 0 || total % known != 0)) || (inferred < 0 && known != total)) {
        char shape[64];
        format_shape(shape, sizeof shape, node.list[0], rank);
        return node_error(graph, n, "cannot reshape %llu elements to %s (a 0 takes what the others leave)",
                          static_cast<unsigned long long>(total), shape);
      }
      return Error();
    }
    case NodeType::kStaticTranspose:
      if (!selects(NodeType::kStaticTranspose)) break;
      if (node.list_size != rank || x.rank != rank) return node_error(graph, n, "permutes a rank-%d value", rank);
      for (int32_t d = 0; d < rank; ++d) {
        if (node.list[0][d] >= rank) return node_error(graph, n, "its permutation is not one");
        out[d] = in[node.list[0][d]];
      }
      return Error();
    case NodeType::kConcatenate2: case NodeType::kConcatenate3: case NodeType::kConcatenate4:
    case NodeType::kConcatenate5: {
      if (!selects_any("*", NodeType::kConcatenate2, NodeType::kConcatenate3, NodeType::kConcatenate4,
                       NodeType::kConcatenate5)) {
        break;
      }
      const int64_t axis = node.list[0][0];
      if (axis >= rank) return node_error(graph, n, "concatenates along dim %lld", static_cast<long long>(axis));
      uint64_t along = 0;
      for (int i = 0; i < node.num_inputs; ++i) {
        const int64_t* part = dims[node.inputs[i]].d;
        if (graph.values[node.inputs[i]].rank != rank) return node_error(graph, n, "concatenates different ranks");
        for (int32_t d = 0; d < rank; ++d) {
          if (d != axis && part[d] != in[d]) {
            return node_error(graph, n, "input %d has %lld in dim %d, input 0 %lld", i,
                              static_cast<long long>(part[d]), static_cast<int>(d), static_cast<long long>(in[d]));
          }
        }
        along = sat_add(along, static_cast<uint64_t>(part[axis]));
      }
      for (int32_t d = 0; d < rank; ++d) out[d] = in[d];
      out[axis] = along > static_cast<uint64_t>(INT64_MAX) ? INT64_MAX : static_cast<int64_t>(along);
      return Error();
    }
    case NodeType::kStaticSlice:
      if (!selects(NodeType::kStaticSlice)) break;
      // ExecuTorch writes a slice's sizes at their bound: a slice that reached the end of its input's
      // bound reaches the end of the input (as ATen clamps a slice's end), any other keeps its size.
      if (node.list_size != rank || x.rank != rank) return node_error(graph, n, "slices a rank-%d value", rank);
      for (int32_t d = 0; d < rank; ++d) {
        const int64_t offset = node.list[0][d], size = node.list[1][d];
        const bool to_end = size == 0 || offset + size == x.dims[d];
        out[d] = to_end ? in[d] - offset : size;
        if (out[d] < 0 || offset + out[d] > in[d]) {
          return node_error(graph, n, "slices past the end of dim %d (%lld)", static_cast<int>(d),
                            static_cast<long long>(in[d]));
        }
      }
      return Error();
    case NodeType::kStaticConstantPad:
      if (!selects(NodeType::kStaticConstantPad)) break;
      if (node.list_size != rank || x.rank != rank) return node_error(graph, n, "pads a rank-%d value", rank);
      for (int32_t d = 0; d < rank; ++d) out[d] = in[d] + node.list[0][d] + node.list[1][d];
      return Error();
    case NodeType::kBatchMatrixMultiply: {
      if (!selects(NodeType::kBatchMatrixMultiply)) break;
      const GraphValue& b = graph.values[node.inputs[1]];
      const int64_t* right = dims[node.inputs[1]].d;
      if (x.rank != rank || b.rank != rank || rank < 2) return node_error(graph, n, "multiplies different ranks");
      for (int32_t d = 0; d + 2 < rank; ++d) {
        if (in[d] != right[d]) return node_error(graph, n, "its batch dims differ in dim %d", static_cast<int>(d));
        out[d] = in[d];
      }
      if (in[rank - 1] != right[rank - 2]) {
        return node_error(graph, n, "multiplies [.., %lld] by [%lld, ..]", static_cast<long long>(in[rank - 1]),
                          static_cast<long long>(right[rank - 2]));
      }
      out[rank - 2] = in[rank - 2];
      out[rank - 1] = right[rank - 1];
      return Error();
    }
    default:
      break;
  }
  // A kind without a rule, or one this runtime does not select (selection.h: its rule compiles away).
  return node_error(graph, n, "has no shape rule for a change of input shapes");
}

bool at_bound(const GraphValue& value, const ValueDims& dims) {
  for (int32_t d = 0; d < value.rank; ++d) {
    if (dims.d[d] != value.dims[d]) return false;
  }
  return true;
}

// Every value's dims from the inputs' (already in `dims`), node by node, each checked against its bound.
Error derive(const Graph& graph, ValueDims* dims) {
  for (uint32_t n = 0; n < graph.num_nodes; ++n) {
    const GraphNode& node = graph.nodes[n];
    const uint32_t y = node.outputs[0];
    const GraphValue& value = graph.values[y];
    // A node whose inputs are all at their planned shapes has its planned output: the plan was
    // compiled from those, and a kind without a shape rule still runs where no dynamic dim reaches.
    bool planned = true;
    for (int i = 0; i < node.num_inputs && planned; ++i) {
      planned = node.inputs[i] == kInvalidId || at_bound(graph.values[node.inputs[i]], dims[node.inputs[i]]);
    }
    int64_t out[kMaxRank] = {};
    for (int32_t d = 0; d < value.rank && planned; ++d) out[d] = value.dims[d];
    Error err = planned ? Error() : infer(graph, n, dims, out);
    if (!err.ok()) return err;
    bool fits = true;
    for (int32_t d = 0; d < value.rank; ++d) fits = fits && out[d] >= 0 && out[d] <= value.dims[d];
    if (!fits) {
      char got[64], bound[64];
      format_shape(got, sizeof got, out, value.rank);
      format_shape(bound, sizeof bound, value.dims, value.rank);
      return node_error(graph, n, "its output would have shape %s, beyond its bound %s", got, bound);
    }
    for (int32_t d = 0; d < value.rank; ++d) dims[y].d[d] = out[d];
  }
  return Error();
}

void resize_tensors(const Graph& graph, const ShapeState& state) {
  for (ShapedTensor* s = state.tensors; s != nullptr; s = s->next) {
    const int64_t* d = state.dims[s->value].d;
    const GraphValue& value = graph.values[s->value];
    const int32_t rank = value.rank;
    Tensor& t = *s->tensor;
    switch (s->form) {
      case ShapeForm::kPresented: {
        const int32_t pad = s->rank - rank;
        for (int32_t k = 0; k < s->rank; ++k) t.sizes[k] = s->order[k] < pad ? 1 : d[s->order[k] - pad];
        break;
      }
      case ShapeForm::kRows: {
        const int64_t last = d[rank - 1];
        t.sizes[0] = last == 0 ? 0 : static_cast<int64_t>(product(d, 0, rank) / static_cast<uint64_t>(last));
        t.sizes[1] = last;
        break;
      }
      case ShapeForm::kMatrices:
        t.sizes[0] = static_cast<int64_t>(product(d, 0, rank - 2));
        t.sizes[1] = d[rank - 2];
        t.sizes[2] = d[rank - 1];
        break;
      case ShapeForm::kRowCount: {
        const int64_t last = d[rank - 1];
        t.sizes[0] = last == 0 ? 0 : static_cast<int64_t>(product(d, 0, rank) / static_cast<uint64_t>(last));
        break;
      }
      case ShapeForm::kRowParams: {
        const uint64_t row = product(d, rank - value.quant.num_nonbatch_dims, rank);
        t.sizes[0] = row == 0 ? 0 : static_cast<int64_t>(product(d, 0, rank) / row);
        break;
      }
    }
  }
  for (ShapedScalar* s = state.scalars; s != nullptr; s = s->next) {
    const int64_t* d = state.dims[s->value].d;
    const double plane = static_cast<double>(d[1]) * static_cast<double>(d[2]);
    s->scalar->as_double = plane > 0 ? s->numerator / plane : 0.0;
  }
}

}  // namespace

Error reshape_plan(const Plan& plan, Args args) {
  const Graph& graph = *plan.graph;
  const ShapeState& state = plan.shapes;
  for (uint32_t e = 0; e < graph.num_inputs; ++e) {
    const uint32_t v = graph.external_values[e];
    const GraphValue& value = graph.values[v];
    const Tensor& t = *args[e]->as_tensor;
    int64_t dims[kMaxRank] = {};
    bool fits = true;
    if (t.dim == value.rank) {
      // XNNPACK reads the tensor in its memory order; every dim may shrink within its bound.
      for (int32_t j = 0; j < value.rank; ++j) {
        dims[j] = t.sizes[t.dim_order[j]];
        fits = fits && dims[j] <= value.dims[j] && (dims[j] > 0 || value.dims[j] == 0);
      }
    } else {
      // The exporter may give a scalar rank 1: a tensor of another rank fits its value when their dims
      // larger than 1 agree, and keeps the planned shape.
      int32_t a = 0, b = 0;
      while (fits) {
        while (a < t.dim && t.sizes[t.dim_order[a]] == 1) ++a;
        while (b < value.rank && value.dims[b] == 1) ++b;
        if (a == t.dim || b == value.rank) {
          fits = a == t.dim && b == value.rank;
          break;
        }
        fits = t.sizes[t.dim_order[a++]] == value.dims[b++];
      }
      for (int32_t j = 0; j < value.rank; ++j) dims[j] = value.dims[j];
    }
    if (!fits) {
      char got[64], bound[64];
      format_shape(got, sizeof got, t.sizes, t.dim);
      format_shape(bound, sizeof bound, value.dims, value.rank);
      return Error::make(ErrorCode::kInvalidArgument,
                         "delegate input %u has shape %s, its XNNPACK graph takes at most %s (in memory order, "
                         "no dim empty)",
                         static_cast<unsigned>(e), got, bound);
    }
    for (int32_t j = 0; j < value.rank; ++j) {
      if (state.dims[v].d[j] != dims[j]) *state.consistent = false;
      state.dims[v].d[j] = dims[j];
    }
  }
  if (*state.consistent) return Error();
  Error err = derive(graph, state.dims);
  if (!err.ok()) return err;
  resize_tensors(graph, state);
  *state.consistent = true;
  return Error();
}

}  // namespace sb::xnnpack
