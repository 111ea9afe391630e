#include "plan.h"

#include <cinttypes>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <new>

#include "sb/checked.h"
#include "sb/half.h"
#include "sb/registry.h"
#include "selection.h"
#include "xnnpack/microkernels/qs8_dwconv.h"
#include "xnnpack/microkernels/qs8_gemm.h"

namespace sb::xnnpack {

namespace qs8 = xnnpack_nodes::qs8;
namespace {

// NHWC dims [N, H, W, C] as stored NCHW: storage dim k holds XNNPACK dim kChannelsFirst[k].
constexpr uint8_t kChannelsFirst[4] = {0, 3, 1, 2};
constexpr uint8_t kIdentity[kMaxRank] = {0, 1, 2, 3, 4, 5};

Error unsupported(uint32_t node, const char* format, ...) __attribute__((format(printf, 2, 3)));
Error unsupported(uint32_t node, const char* format, ...) {
  char message[160];
  va_list ap;
  va_start(ap, format);
  vsnprintf(message, sizeof message, format, ap);
  va_end(ap);
  return Error::make(ErrorCode::kNotSupported, "XNNPACK node %u: %s", static_cast<unsigned>(node), message);
}

// ---- what this runtime lowers (selection.h) --------------------------------------------------------
// Each lowering below is kept only while a kind it serves is selected: unlowered() stands in for the rest.
constexpr bool kLowersConvolution = selects_any("*", NodeType::kConv2d, NodeType::kDepthwiseConv2d);
constexpr bool kLowersInt8Convolution = selects_any("qs8*", NodeType::kConv2d, NodeType::kDepthwiseConv2d);
constexpr bool kLowersDynamicConvolution =
    selects_any("qd8*", NodeType::kConv2d, NodeType::kDepthwiseConv2d, NodeType::kConvTranspose2d);
constexpr bool kLowersPixelQuantization = selects(NodeType::kConvert, "f32_qd8") && selects(NodeType::kConv2d, "qd8*");
constexpr bool kLowersHalfWeights = selects_any("f16*", NodeType::kConv2d, NodeType::kDepthwiseConv2d,
                                                NodeType::kConvTranspose2d, NodeType::kFullyConnected);
constexpr bool kLowersFullyConnected = selects(NodeType::kFullyConnected);
constexpr bool kLowersInt8FullyConnected = selects(NodeType::kFullyConnected, "qs8*");
constexpr bool kLowersDynamicFullyConnected = selects(NodeType::kFullyConnected, "qd8*");
constexpr bool kLowersFourBitFullyConnected = selects(NodeType::kFullyConnected, "*4w");
constexpr bool kLowersDeconvolution = selects(NodeType::kConvTranspose2d);
constexpr bool kLowersInt8Deconvolution = selects(NodeType::kConvTranspose2d, "qs8*");
constexpr bool kLowersPooling = selects_any("*", NodeType::kAvgPooling2d, NodeType::kMaxPooling2d);
constexpr bool kLowersInt8Pooling = selects_any("qs8*", NodeType::kAvgPooling2d, NodeType::kMaxPooling2d);
constexpr bool kLowersGlobalAvgPooling = selects(NodeType::kGlobalAvgPooling2d);
constexpr bool kLowersInt8GlobalAvgPooling = selects(NodeType::kGlobalAvgPooling2d, "qs8*");
constexpr bool kLowersBinary = selects_any("*", NodeType::kAdd, NodeType::kSubtract, NodeType::kMultiply,
                                           NodeType::kDiv, NodeType::kMinimum, NodeType::kMaximum);
constexpr bool kLowersInt8Binary = selects_any("qs8*", NodeType::kAdd, NodeType::kSubtract, NodeType::kMultiply,
                                               NodeType::kDiv, NodeType::kMinimum, NodeType::kMaximum);
constexpr bool kLowersClamp = selects(NodeType::kClamp);
constexpr bool kLowersInt8Clamp = selects(NodeType::kClamp, "qs8*");
constexpr bool kLowersConvert = selects(NodeType::kConvert);
constexpr bool kLowersDynamicQuantization = selects(NodeType::kConvert, "f32_qd8");
constexpr bool kLowersSlopes = selects_any("*", NodeType::kELU, NodeType::kLeakyReLU);
constexpr bool kLowersSoftmax = selects(NodeType::kSoftmax);
constexpr bool kLowersConcatenate = selects_any("*", NodeType::kConcatenate2, NodeType::kConcatenate3,
                                                NodeType::kConcatenate4, NodeType::kConcatenate5);
constexpr bool kLowersTranspose = selects(NodeType::kStaticTranspose);
constexpr bool kLowersReshape = selects_any("*", NodeType::kStaticReshape, NodeType::kCopy);
constexpr bool kLowersPad = selects(NodeType::kStaticConstantPad);
constexpr bool kLowersSlice = selects(NodeType::kStaticSlice);
constexpr bool kLowersBatchMatmul = selects(NodeType::kBatchMatrixMultiply);
constexpr bool kLowersResize = selects(NodeType::kStaticResizeBilinear2D);
constexpr bool kLowersPReLU = selects(NodeType::kPReLU);
constexpr bool kLowersUnary =
    selects_any("*", NodeType::kSigmoid, NodeType::kTanh, NodeType::kExp, NodeType::kAbs, NodeType::kNegate,
                NodeType::kFloor, NodeType::kCeiling, NodeType::kSquareRoot, NodeType::kReciprocalSquareRoot,
                NodeType::kLog, NodeType::kSin, NodeType::kCos, NodeType::kGelu, NodeType::kSquare,
                NodeType::kHardswish);

bool is_anchor(NodeType t) {
  return t == NodeType::kConv2d || t == NodeType::kDepthwiseConv2d || t == NodeType::kAvgPooling2d ||
         t == NodeType::kMaxPooling2d || t == NodeType::kGlobalAvgPooling2d || t == NodeType::kConvTranspose2d ||
         t == NodeType::kStaticResizeBilinear2D;
}

// Nodes that take either layout: the element-wise ones, and those whose one
// axis the plan maps into the layout.
bool is_layout_free(NodeType t) {
  switch (t) {
    case NodeType::kAdd: case NodeType::kSubtract: case NodeType::kMultiply: case NodeType::kDiv:
    case NodeType::kMinimum: case NodeType::kMaximum: case NodeType::kClamp: case NodeType::kSigmoid:
    case NodeType::kTanh: case NodeType::kExp: case NodeType::kAbs: case NodeType::kNegate: case NodeType::kFloor:
    case NodeType::kCeiling: case NodeType::kSquareRoot: case NodeType::kReciprocalSquareRoot: case NodeType::kLog:
    case NodeType::kSin: case NodeType::kCos: case NodeType::kGelu: case NodeType::kSquare: case NodeType::kELU:
    case NodeType::kLeakyReLU: case NodeType::kHardswish: case NodeType::kCopy: case NodeType::kSoftmax:
    case NodeType::kConcatenate2: case NodeType::kConcatenate3: case NodeType::kConcatenate4:
    case NodeType::kConcatenate5: case NodeType::kPReLU:
      return true;
    default:
      return false;
  }
}

class Compiler {
 public:
  Compiler(BackendInitContext& context, const Graph& graph, Plan* plan)
      : context_(context), graph_(graph), plan_(*plan) {}

  Error compile() {
    plan_ = Plan{&graph_, nullptr, 0, nullptr, 0, ShapeState{}};
    Error err;
    if (!(err = resolve_kernels()).ok()) return err;
    if (!(err = alloc(&channels_first_, graph_.num_values)).ok()) return err;
    if (!(err = alloc(&tensors_, graph_.num_values)).ok()) return err;
    if (!(err = alloc(&ready_, graph_.num_values)).ok()) return err;
    if (!(err = alloc(&written_, graph_.num_values)).ok()) return err;
    if (!(err = alloc(&bound_, graph_.num_values)).ok()) return err;
    if (!(err = alloc(&row_params_, graph_.num_values)).ok()) return err;
    for (uint32_t v = 0; v < graph_.num_values; ++v) bound_[v] = kInvalidId;
    decide_layouts();
    // Generous upper bounds: a node is at most a relayout per input, its
    // call and a relayout of its output; a tensor of the plan is bound at
    // most once per reader.
    max_steps_ = sat_mul(graph_.num_nodes, kMaxNodeInputs + 2);
    max_bindings_ = sat_add(graph_.num_values, sat_mul(graph_.num_nodes, kMaxNodeInputs + 1));
    if (!(err = alloc(&plan_.steps, max_steps_)).ok() || !(err = alloc(&plan_.bindings, max_bindings_)).ok()) {
      return err;
    }
    for (uint32_t v = 0; v < graph_.num_values; ++v) {
      if (graph_.values[v].flags != 0 && !(err = define(v)).ok()) return err;
    }
    for (uint32_t n = 0; n < graph_.num_nodes; ++n) {
      if (!(err = lower(n)).ok()) return err;
    }
    for (uint32_t e = graph_.num_inputs; e < graph_.num_inputs + graph_.num_outputs; ++e) {
      if (!written_[graph_.external_values[e]]) {
        return unsupported(0, "no node writes output %u", static_cast<unsigned>(e));
      }
    }
    return track_values();
  }

 private:
  // ---- memory: a bump arena over the method's budget -------------------------------------------
  template <typename T>
  Error alloc(T** out, uint64_t count) {
    *out = nullptr;
    if (count == 0) return Error();
    const uint64_t bytes = sat_mul(count, sizeof(T));
    if (bytes > kChunk / 4) {
      Result<void*> memory = context_.allocate(bytes, "the XNNPACK plan");
      if (!memory.ok()) return memory.error;
      *out = static_cast<T*>(memory.value);
    } else {
      const uint64_t aligned = (bytes + 15) & ~uint64_t{15};
      if (chunk_left_ < aligned) {
        Result<void*> memory = context_.allocate(kChunk, "the XNNPACK plan");
        if (!memory.ok()) return memory.error;
        chunk_ = static_cast<uint8_t*>(memory.value);
        chunk_left_ = kChunk;
      }
      *out = reinterpret_cast<T*>(chunk_);
      chunk_ += aligned;
      chunk_left_ -= aligned;
    }
    for (uint64_t i = 0; i < count; ++i) new (&(*out)[i]) T();
    return Error();
  }
  static constexpr uint64_t kChunk = 64 * 1024;

  // ---- dynamic shapes (shapes.h) ------------------------------------------------------------------
  // Registers a tensor whose sizes follow value v's dims, so a call with other input shapes resizes it.
  Error track(Tensor* t, uint32_t v, ShapeForm form, const uint8_t* order = kIdentity, int32_t rank = 0) {
    if (graph_.values[v].constant != nullptr) return Error();  // a constant's shape never changes
    ShapedTensor* s = nullptr;
    Error err = alloc(&s, 1);
    if (!err.ok()) return err;
    s->tensor = t;
    s->value = v;
    s->form = form;
    s->rank = rank;
    for (int32_t k = 0; k < rank; ++k) s->order[k] = order[k];
    s->next = plan_.shapes.tensors;
    plan_.shapes.tensors = s;
    return Error();
  }

  // A kernel argument of `numerator` over value v's plane size (NHWC H * W).
  Error track_plane(Value* scalar, uint32_t v, double numerator) {
    if (scalar == nullptr) return Error::make(ErrorCode::kMemoryBudget, "memory budget exhausted by the XNNPACK plan");
    ShapedScalar* s = nullptr;
    Error err = alloc(&s, 1);
    if (!err.ok()) return err;
    s->scalar = scalar;
    s->value = v;
    s->numerator = numerator;
    s->next = plan_.shapes.scalars;
    plan_.shapes.scalars = s;
    return Error();
  }

  // Every value's own tensor follows its dims; the state starts at the planned dims.
  Error track_values() {
    Error err;
    if (!(err = alloc(&plan_.shapes.dims, graph_.num_values)).ok() ||
        !(err = alloc(&plan_.shapes.consistent, 1)).ok()) {
      return err;
    }
    *plan_.shapes.consistent = true;
    for (uint32_t v = 0; v < graph_.num_values; ++v) {
      const GraphValue& value = graph_.values[v];
      for (int32_t d = 0; d < value.rank; ++d) plan_.shapes.dims[v].d[d] = value.dims[d];
      if (ready_[v] && !(err = track(&tensors_[v], v, ShapeForm::kPresented, storage_order(v), value.rank)).ok()) {
        return err;
      }
    }
    return Error();
  }

  // ---- kernels ------------------------------------------------------------------------------------
  // Every node's kind, found in the registry; the ones the build lacks are
  // named together (with the ops they call that it lacks).
  Error resolve_kernels() {
    Error err = alloc(&kernels_, graph_.num_nodes);
    if (!err.ok()) return err;
    MissingOps missing;
    const OpRegistry& registry = context_.registry();
    for (uint32_t n = 0; n < graph_.num_nodes; ++n) {
      char name[96] = "xnnpack::";
      node_kind(graph_, graph_.nodes[n], name + 9, sizeof name - 9);
      const KernelDef* def = registry.find(name);
      if (def == nullptr) {
        missing.add(name, nullptr);
        continue;
      }
      if (!(err = registry.collect_missing_calls(*def, missing)).ok()) return err;
      kernels_[n] = def;
    }
    char label[96];
    snprintf(label, sizeof label, "delegate %u of %s", static_cast<unsigned>(context_.delegate_index()),
             context_.backend_id());
    return missing.error(label);
  }

  // ---- layouts --------------------------------------------------------------------------------------
  bool internal_image(uint32_t v) const {
    const GraphValue& value = graph_.values[v];
    return value.rank == 4 && value.flags == 0 && value.constant == nullptr;
  }

  void decide_layouts() {
    bool* wanted = nullptr;
    if (!alloc(&wanted, graph_.num_values).ok()) return;  // no memory: every value keeps XNNPACK's layout
    for (uint32_t n = 0; n < graph_.num_nodes; ++n) {
      const GraphNode& node = graph_.nodes[n];
      if (!is_anchor(node.type)) continue;
      if (internal_image(node.inputs[0])) wanted[node.inputs[0]] = true;
      if (internal_image(node.outputs[0])) wanted[node.outputs[0]] = true;
    }
    for (uint32_t n = 0; n < graph_.num_nodes; ++n) {
      const GraphNode& node = graph_.nodes[n];
      const uint32_t y = node.outputs[0];
      if (!internal_image(y)) continue;
      bool cf = is_anchor(node.type) || wanted[y];
      if (!cf && is_layout_free(node.type)) {
        for (int i = 0; i < node.num_inputs; ++i) {
          cf = cf || (node.inputs[i] != kInvalidId && channels_first_[node.inputs[i]]);
        }
      }
      channels_first_[y] = cf;
    }
  }

  // The storage order of value v: storage dim k holds XNNPACK dim order[k].
  const uint8_t* storage_order(uint32_t v) const { return channels_first_[v] ? kChannelsFirst : kIdentity; }

  // ---- tensors ----------------------------------------------------------------------------------------
 public:
  static ScalarType scalar_type(Datatype dtype) {
    switch (dtype) {
      case Datatype::kFp32: return ScalarType::kFloat;
      case Datatype::kFp16: return ScalarType::kHalf;
      case Datatype::kInt32: case Datatype::kQint32: case Datatype::kQcint32: return ScalarType::kInt;
      case Datatype::kQuint8: return ScalarType::kByte;
      default: return ScalarType::kChar;
    }
  }

 private:

  // Value v's tensor in its own layout, with its memory: constants in
  // place (copied when misaligned), intermediates in a buffer of their
  // own, externals bound per call.
  void describe(uint32_t v) {
    const GraphValue& value = graph_.values[v];
    Tensor& t = tensors_[v];
    t.dtype = scalar_type(value.dtype);
    t.dim = value.rank;
    const uint8_t* order = storage_order(v);
    for (int32_t k = 0; k < value.rank; ++k) t.sizes[k] = value.dims[order[k]];
  }

  // Value y holds the same elements in the same memory order as `source` (x's tensor as a node
  // reads it): y shares its memory instead of copying, unless y is the call's output. The node
  // still runs (a tracing build records it), as a copy onto itself that its kernel skips.
  Error alias(uint32_t y, const Tensor* source, uint32_t x) {
    if (graph_.values[y].flags != 0 || ready_[y]) return Error();
    describe(y);
    tensors_[y].data = source->data;
    ready_[y] = true;
    if (bound_[x] != kInvalidId && source->data == tensors_[x].data) {
      bound_[y] = bound_[x];
      return bind(&tensors_[y], bound_[y]);
    }
    return Error();
  }

  // A tensor made over v's memory (a view, a reshaped copy of its tensor): bound per call too when
  // that memory is a delegate call's value.
  Error bind_like(Tensor* t, uint32_t v) {
    if (bound_[v] == kInvalidId || t->data != tensors_[v].data) return Error();
    return bind(t, bound_[v]);
  }

  Error define(uint32_t v) {
    if (ready_[v]) return Error();
    describe(v);
    const GraphValue& value = graph_.values[v];
    Tensor& t = tensors_[v];
    const uint64_t bytes = sat_mul(value.numel(), element_size(t.dtype));
    if (value.flags != 0) {
      bound_[v] = value.external_id;
      Error err = bind(&t, value.external_id);
      if (!err.ok()) return err;
    } else if (value.constant != nullptr) {
      if (reinterpret_cast<uintptr_t>(value.constant) % element_size(t.dtype) == 0) {
        t.data = const_cast<uint8_t*>(value.constant);  // kernels only read inputs
      } else {
        Result<void*> copy = context_.allocate(bytes, "an XNNPACK constant");
        if (!copy.ok()) return copy.error;
        memcpy(copy.value, value.constant, bytes);
        t.data = copy.value;
      }
    } else {
      Result<void*> buffer = context_.allocate(bytes, "an XNNPACK value");
      if (!buffer.ok()) return buffer.error;
      t.data = buffer.value;
    }
    ready_[v] = true;
    return Error();
  }

  Error bind(Tensor* t, uint32_t external_id) {
    if (plan_.num_bindings == max_bindings_) return unsupported(0, "binds more tensors than its plan holds");
    plan_.bindings[plan_.num_bindings++] = Binding{t, external_id};
    return Error();
  }

  // The steps array holds the bound compile() gives it; a lowering past it is refused, not written.
  Error add_step(const Step& step) {
    if (plan_.num_steps == max_steps_) return unsupported(step.node, "needs more steps than its plan holds");
    plan_.steps[plan_.num_steps++] = step;
    return Error();
  }

  // A tensor presenting v with its dims in `order` (of XNNPACK's dims, after
  // padding v's rank with leading 1s to `rank`): v's own tensor, a view
  // when only size-1 dims move, or a relayout into a scratch tensor
  // (`before` true: a step now, for a reader; false: a step after the
  // node, for a writer).
  Error present(uint32_t v, const uint8_t* order, int32_t rank, uint32_t node, bool reader, Tensor** out,
                Step* after = nullptr) {
    Error err = define(v);
    if (!err.ok()) return err;
    const GraphValue& value = graph_.values[v];
    const int32_t pad = rank - value.rank;
    if (pad < 0) {
      return unsupported(node, "a rank-%d value where rank %d is wanted", static_cast<int>(value.rank),
                         static_cast<int>(rank));
    }
    int64_t dims[kMaxRank];  // v's XNNPACK dims padded to `rank`
    for (int32_t d = 0; d < rank; ++d) dims[d] = d < pad ? 1 : value.dims[d - pad];
    const uint8_t* own = storage_order(v);
    if (pad == 0 && memcmp(own, order, static_cast<size_t>(rank)) == 0) {
      *out = &tensors_[v];
      return Error();
    }
    // v's memory order, as padded dims (leading 1s first), against the wanted order: a view
    // when they agree on the dims larger than 1.
    uint8_t held[kMaxRank];
    for (int32_t d = 0; d < pad; ++d) held[d] = static_cast<uint8_t>(d);
    for (int32_t d = 0; d < value.rank; ++d) held[pad + d] = static_cast<uint8_t>(own[d] + pad);
    Tensor* t = nullptr;
    if (!(err = alloc(&t, 1)).ok()) return err;
    t->dtype = tensors_[v].dtype;
    t->dim = rank;
    for (int32_t k = 0; k < rank; ++k) t->sizes[k] = dims[order[k]];
    if (!(err = track(t, v, ShapeForm::kPresented, order, rank)).ok()) return err;
    int32_t a = 0, b = 0;
    bool same = true;
    while (same) {
      while (a < rank && dims[held[a]] == 1) ++a;
      while (b < rank && dims[order[b]] == 1) ++b;
      if (a == rank || b == rank) {
        same = a == rank && b == rank;
        break;
      }
      same = held[a++] == order[b++];
    }
    if (same) {
      t->data = tensors_[v].data;
      if (!(err = bind_like(t, v)).ok()) return err;
      *out = t;
      return Error();
    }
    if (rank != 4 || pad != 0) {
      return unsupported(node, "value %u would need a relayout of rank %d", static_cast<unsigned>(v),
                         static_cast<int>(rank));
    }
    Result<void*> scratch = context_.allocate(tensors_[v].nbytes(), "an XNNPACK relayout");
    if (!scratch.ok()) return scratch.error;
    t->data = scratch.value;
    // to.sizes[k] == from.sizes[perm[k]]: storage dim k of one holds XNNPACK dim order[k].
    const Tensor* from = reader ? &tensors_[v] : t;
    Tensor* to = reader ? t : &tensors_[v];
    const uint8_t* to_order = reader ? order : own;
    const uint8_t* from_order = reader ? own : order;
    Step step{};
    step.node = node;
    step.from = from;
    step.to = to;
    for (int k = 0; k < 4; ++k) {
      for (int j = 0; j < 4; ++j) {
        if (from_order[j] == to_order[k]) step.perm[k] = static_cast<uint8_t>(j);
      }
    }
    if (reader) {
      if (!(err = add_step(step)).ok()) return err;
    } else {
      *after = step;
      after->num_args = 1;  // marks a pending relayout
    }
    *out = t;
    return Error();
  }

  Error reader(uint32_t v, bool channels_first, uint32_t node, Tensor** out) {
    const int32_t rank = channels_first ? 4 : graph_.values[v].rank;
    return present(v, channels_first ? kChannelsFirst : kIdentity, rank, node, true, out);
  }

  // ---- steps --------------------------------------------------------------------------------------------
  Value* tensor_value(Tensor* t) {
    Value* v = nullptr;
    if (!alloc(&v, 1).ok()) return nullptr;
    *v = Value::from_tensor(t);
    return v;
  }
  Value* scalar(Value value) {
    Value* v = nullptr;
    if (!alloc(&v, 1).ok()) return nullptr;
    *v = value;
    return v;
  }
  Value* int_list(const int64_t* items, int32_t n) {
    int64_t* storage = nullptr;
    if (!alloc(&storage, n > 0 ? n : 1).ok()) return nullptr;
    for (int32_t i = 0; i < n; ++i) storage[i] = items[i];
    return scalar(Value::from_int_list(Span<const int64_t>(storage, static_cast<size_t>(n))));
  }
  Value* none() { return scalar(Value::none()); }

  Error call(uint32_t n, Value* const* args, uint32_t count, const Step& after) {
    Value** list = nullptr;
    Error err = alloc(&list, count);
    if (!err.ok()) return err;
    for (uint32_t i = 0; i < count; ++i) {
      if (args[i] == nullptr) {
        return Error::make(ErrorCode::kMemoryBudget, "memory budget exhausted by the XNNPACK plan");
      }
      list[i] = args[i];
    }
    err = check_signature(*kernels_[n], Args(list, count), CallSite::kDispatcher);
    if (!err.ok()) return unsupported(n, "%s", err.message());
    Step step{};
    step.kernel = kernels_[n];
    const KernelDef** callees = nullptr;
    if (!(err = alloc(&callees, step.kernel->calls.size())).ok()) return err;
    if (callees != nullptr) context_.registry().resolve_calls(*step.kernel, callees);
    step.callees = callees;
    step.args = list;
    step.num_args = count;
    step.node = n;
    if (!(err = add_step(step)).ok()) return err;
    return after.num_args == 1 ? add_step(after) : Error();
  }

  Error writer(uint32_t v, bool channels_first, uint32_t node, Tensor** out, Step* after) {
    const int32_t rank = channels_first ? 4 : graph_.values[v].rank;
    if (graph_.values[v].flags & kExternalInput) {
      return unsupported(node, "writes the delegate's input %u", static_cast<unsigned>(v));
    }
    Error err = present(v, channels_first ? kChannelsFirst : kIdentity, rank, node, false, out, after);
    written_[v] = true;
    return err;
  }

  // A constant float value packed into a new buffer: dst[i] = src[source(i)].
  template <typename Index>
  Error pack(uint32_t v, uint32_t node, int64_t count, Index source, Tensor** out) {
    const GraphValue& value = graph_.values[v];
    if (value.constant == nullptr) {
      return unsupported(node, "its weights (value %u) are not constant", static_cast<unsigned>(v));
    }
    const bool int8 = value.dtype == Datatype::kQint8 || value.dtype == Datatype::kQcint8;
    if (value.dtype != Datatype::kFp32 && !int8) {
      return unsupported(node, "its weights (value %u) are %s", static_cast<unsigned>(v), datatype_name(value.dtype));
    }
    const int64_t bytes = int8 ? 1 : 4;
    Result<void*> memory = context_.allocate(sat_mul(static_cast<uint64_t>(count), static_cast<uint64_t>(bytes)),
                                             "packed XNNPACK weights");
    if (!memory.ok()) return memory.error;
    uint8_t* dst = static_cast<uint8_t*>(memory.value);
    for (int64_t i = 0; i < count; ++i) {
      memcpy(dst + i * bytes, value.constant + bytes * source(i), static_cast<size_t>(bytes));
    }
    Tensor* t = nullptr;
    Error err = alloc(&t, 1);
    if (!err.ok()) return err;
    t->dtype = int8 ? ScalarType::kChar : ScalarType::kFloat;
    t->data = dst;
    *out = t;
    return Error();
  }

  // A 4-bit filter [O, I] (two values a byte, the first in the low nibble, each row padded to whole
  // bytes, stored plus 8) as int8 values in [-8, 7], [O, I].
  Error unpack_int4(uint32_t v, uint32_t node, int64_t outputs, int64_t inputs, bool transposed, Tensor** out) {
    const GraphValue& value = graph_.values[v];
    if (value.constant == nullptr || transposed) return unsupported(node, "its 4-bit filter is not a constant [O, I]");
    const uint64_t row_bytes = static_cast<uint64_t>(inputs + 1) / 2;
    if (value.constant_bytes < sat_mul(row_bytes, static_cast<uint64_t>(outputs))) {
      return unsupported(node, "its 4-bit filter holds fewer bytes than its shape needs");
    }
    Result<void*> memory = context_.allocate(sat_mul(static_cast<uint64_t>(outputs), static_cast<uint64_t>(inputs)),
                                             "unpacked XNNPACK weights");
    if (!memory.ok()) return memory.error;
    int8_t* dst = static_cast<int8_t*>(memory.value);
    for (int64_t o = 0; o < outputs; ++o) {
      const uint8_t* row = value.constant + static_cast<uint64_t>(o) * row_bytes;
      for (int64_t k = 0; k < inputs; ++k) {
        dst[o * inputs + k] = static_cast<int8_t>(((row[k / 2] >> (4 * (k % 2))) & 0xF) - 8);
      }
    }
    Error err = alloc(out, 1);
    if (!err.ok()) return err;
    (*out)->dtype = ScalarType::kChar;
    (*out)->dim = 2;
    (*out)->sizes[0] = outputs;
    (*out)->sizes[1] = inputs;
    (*out)->data = dst;
    return Error();
  }

  // A blockwise-quantized filter's scales (bf16 in a scale buffer, or fp32), as fp32 [O, I / G].
  Error block_scales(uint32_t filter, uint32_t node, int64_t outputs, int64_t inputs, Tensor** out) {
    const QuantParams& q = graph_.values[filter].quant;
    if (q.kind != QuantKind::kPerChannelGroup || q.group_size <= 0 || inputs % q.group_size != 0 ||
        q.num_scales != static_cast<uint64_t>(outputs * (inputs / q.group_size))) {
      return unsupported(node, "its filter's block scales do not match its shape");
    }
    Result<void*> memory = context_.allocate(sat_mul(q.num_scales, 4), "XNNPACK block scales");
    if (!memory.ok()) return memory.error;
    float* dst = static_cast<float*>(memory.value);
    for (uint32_t k = 0; k < q.num_scales; ++k) {
      if (q.scales_bf16) {
        const uint32_t bits = static_cast<uint32_t>(q.scales[2 * k] | (q.scales[2 * k + 1] << 8)) << 16;
        memcpy(&dst[k], &bits, 4);
      } else {
        memcpy(&dst[k], q.scales + 4 * k, 4);
      }
      if (!(dst[k] > 0 && dst[k] < INFINITY)) {
        return unsupported(node, "its filter has block scale %g", static_cast<double>(dst[k]));
      }
    }
    Error err = alloc(out, 1);
    if (!err.ok()) return err;
    (*out)->dtype = ScalarType::kFloat;
    (*out)->dim = 2;
    (*out)->sizes[0] = outputs;
    (*out)->sizes[1] = inputs / q.group_size;
    (*out)->data = dst;
    return Error();
  }

  Error bias(uint32_t v, uint32_t node, Value** out) {
    if (v == kInvalidId) {
      *out = none();
      return Error();
    }
    Tensor* t = nullptr;
    Error err = reader(v, false, node, &t);
    if (!err.ok()) return err;
    *out = tensor_value(t);
    return Error();
  }

  // ---- quantization ---------------------------------------------------------------------------------------
  bool is_qs8(uint32_t v) const { return graph_.values[v].dtype == Datatype::kQint8; }

  // A static int8 activation's scale and zero point (per tensor, as XNNPACK's qs8 operators take them).
  Error activation(uint32_t v, uint32_t node, float* scale, int32_t* zero_point) {
    const QuantParams& q = graph_.values[v].quant;
    if (!is_qs8(v) || q.kind != QuantKind::kPerTensor || q.zero_point < -128 || q.zero_point > 127) {
      return unsupported(node, "value %u is not a per-tensor int8 activation", static_cast<unsigned>(v));
    }
    *scale = q.scale;
    *zero_point = q.zero_point;
    return Error();
  }

  // An int8 node's input and output quantization, and its output bounds in the output's steps.
  struct Int8Io {
    float si = 0, so = 0;
    int32_t zi = 0, zo = 0;
    int64_t lo = 0, hi = 0;
  };
  Error int8_io(uint32_t n, const GraphNode& node, uint32_t x, uint32_t y, Int8Io* q) {
    Error err;
    if (!(err = activation(x, n, &q->si, &q->zi)).ok() || !(err = activation(y, n, &q->so, &q->zo)).ok()) return err;
    int8_bounds(node, q->so, q->zo, &q->lo, &q->hi);
    return Error();
  }

  // The node's output bounds (real numbers) in the output's int8 steps.
  static void int8_bounds(const GraphNode& node, float scale, int32_t zero_point, int64_t* lo, int64_t* hi) {
    auto step = [&](float bound, int64_t fallback) -> int64_t {
      if (!(bound > -3e38f && bound < 3e38f)) return fallback;
      const double q = static_cast<double>(bound) / scale;
      if (q < -1e6 || q > 1e6) return fallback;
      const int64_t v = static_cast<int64_t>(std::nearbyint(q)) + zero_point;
      return v < -128 ? -128 : v > 127 ? 127 : v;
    };
    *lo = step(node.output_min, -128);
    *hi = step(node.output_max, 127);
  }

  // The requantization multipliers of a quantized filter's `outputs` channels (their scales along
  // `channel_dim`): input scale * filter scale / output scale, as XNNPACK computes them (in float).
  Error multipliers(uint32_t filter, uint32_t node, int64_t outputs, int32_t channel_dim, float in_scale,
                    float out_scale, Tensor** out) {
    const QuantParams& q = graph_.values[filter].quant;
    const bool per_channel = q.kind == QuantKind::kPerChannel && !q.scales_bf16;
    if (!per_channel && !(q.kind == QuantKind::kPerTensor && q.zero_point == 0)) {
      return unsupported(node, "its filter (value %u) is not symmetric int8, per tensor or per output channel",
                         static_cast<unsigned>(filter));
    }
    if (per_channel && (q.channel_dim != channel_dim || q.num_scales != static_cast<uint64_t>(outputs))) {
      return unsupported(node, "its filter's scales are not one per output channel");
    }
    Result<void*> memory = context_.allocate(sat_mul(static_cast<uint64_t>(outputs), 4), "XNNPACK requantization");
    if (!memory.ok()) return memory.error;
    float* m = static_cast<float*>(memory.value);
    for (int64_t c = 0; c < outputs; ++c) {
      float scale = q.scale;
      if (per_channel) memcpy(&scale, q.scales + 4 * c, 4);
      m[c] = in_scale * scale / out_scale;
    }
    Error err = alloc(out, 1);
    if (!err.ok()) return err;
    (*out)->dtype = ScalarType::kFloat;
    (*out)->dim = 1;
    (*out)->sizes[0] = outputs;
    (*out)->data = m;
    return Error();
  }

  // An int8 convolution's geometry on one group of an NCHW image, checked against its input and output
  // (the micro-kernels read by offsets they compute from it) and kept small enough for int32 offsets.
  Error int8_conv_shape(uint32_t n, const GraphNode& node, int64_t in_per_group, qs8::ConvShape* shape) {
    const uint32_t* g = node.geometry;  // top, right, bottom, left, kh, kw, sh, sw, dh, dw, gic, goc, groups
    const GraphValue& x = graph_.values[node.inputs[0]];   // NHWC
    const GraphValue& y = graph_.values[node.outputs[0]];  // NHWC
    if (x.rank != 4 || y.rank != 4 || g[6] == 0 || g[7] == 0 || g[8] == 0 || g[9] == 0 || g[4] == 0 || g[5] == 0) {
      return unsupported(n, "an int8 convolution of unexpected rank, stride, dilation or kernel size");
    }
    auto extent = [](int64_t size, int64_t pad, int64_t kernel, int64_t stride, int64_t dilation) -> int64_t {
      const int64_t span = size + 2 * pad - dilation * (kernel - 1);
      return span < 1 ? 0 : (span - 1) / stride + 1;
    };
    // Geometry fields are u32: these products stay far inside int64.
    const int64_t h = x.dims[1], w = x.dims[2];
    if (x.dims[3] != in_per_group * static_cast<int64_t>(g[12]) || y.dims[0] != x.dims[0] ||
        y.dims[1] != extent(h, g[0], g[4], g[6], g[8]) || y.dims[2] != extent(w, g[3], g[5], g[7], g[9]) ||
        y.dims[1] == 0 || y.dims[2] == 0) {
      return unsupported(n, "its output's shape does not match its input and geometry");
    }
    *shape = qs8::ConvShape{in_per_group, h, w, y.dims[1], y.dims[2], g[4], g[5], g[6], g[7], g[0], g[3], g[8], g[9]};
    const double bytes = (static_cast<double>(in_per_group) + 4) * static_cast<double>(g[4]) * g[5] *
                         (static_cast<double>(h) + 2 * g[0] + 1) * (static_cast<double>(w) + 2 * g[3] + 1) * 4;
    if (bytes > 1e9) return unsupported(n, "an int8 convolution too large for its micro-kernels");
    return Error();
  }

  // An int8 convolution's OIHW filter packed for the GEMM micro-kernels (kernels/xnnpack/microkernels/
  // qs8_gemm.h), and its bias with the input zero point folded in: a new int32 tensor, one block of 16
  // outputs per started 16 of each group.
  Error int8_gemm_filter(uint32_t n, const GraphNode& node, Tensor* weight, int64_t groups, int64_t outputs,
                         int64_t inputs, int64_t taps, int32_t input_zero_point, Value** bias_out) {
    const uint64_t packed_bytes = sat_mul(static_cast<uint64_t>(groups),
                                          static_cast<uint64_t>(qs8::packed_filter_bytes(outputs, inputs, taps)));
    const int64_t padded = qs8::round_up(outputs, qs8::kChannelBlock);
    const uint64_t bias_words = sat_mul(static_cast<uint64_t>(groups), static_cast<uint64_t>(padded));
    Result<void*> packed = context_.allocate(packed_bytes, "packed XNNPACK weights");
    if (!packed.ok()) return packed.error;
    Result<void*> folded = context_.allocate(sat_mul(bias_words, 4), "folded XNNPACK bias");
    if (!folded.ok()) return folded.error;
    int32_t* bias_words_out = static_cast<int32_t*>(folded.value);
    memset(bias_words_out, 0, static_cast<size_t>(bias_words) * 4);
    const uint32_t b = node.inputs[2];
    if (b != kInvalidId) {
      const GraphValue& value = graph_.values[b];
      const uint64_t count = static_cast<uint64_t>(groups * outputs);
      if (value.constant == nullptr || value.constant_bytes < sat_mul(count, 4) ||
          (value.dtype != Datatype::kInt32 && value.dtype != Datatype::kQint32 && value.dtype != Datatype::kQcint32)) {
        return unsupported(n, "its bias (value %u) is not constant int32", static_cast<unsigned>(b));
      }
      for (uint64_t o = 0; o < count; ++o) {
        memcpy(bias_words_out + (o / static_cast<uint64_t>(outputs)) * static_cast<uint64_t>(padded) +
                   o % static_cast<uint64_t>(outputs),
               value.constant + 4 * o, 4);
      }
    }
    qs8::pack_filter(weight->data_as<int8_t>(), groups, outputs, inputs, taps, input_zero_point,
                     static_cast<int8_t*>(packed.value), bias_words_out);
    weight->data = packed.value;
    Tensor* bias = nullptr;
    Error err = alloc(&bias, 1);
    if (!err.ok()) return err;
    bias->dtype = ScalarType::kInt;
    bias->dim = 1;
    bias->sizes[0] = static_cast<int64_t>(bias_words);
    bias->data = folded.value;
    *bias_out = tensor_value(bias);
    return Error();
  }

  // Zeroed scratch memory a kernel works in, as an int16 tensor of `bytes` (rounded up).
  Error scratch(uint64_t bytes, Tensor** out) {
    const uint64_t elements = (bytes + 1) / 2;
    Result<void*> memory = context_.allocate(sat_mul(elements == 0 ? 1 : elements, 2), "XNNPACK scratch");
    if (!memory.ok()) return memory.error;
    Error err = alloc(out, 1);
    if (!err.ok()) return err;
    (*out)->dtype = ScalarType::kShort;
    (*out)->dim = 1;
    (*out)->sizes[0] = static_cast<int64_t>(elements);
    (*out)->data = memory.value;
    return Error();
  }

  Value* int_value(int64_t v) { return scalar(Value::from_int(v)); }
  Value* double_value(double v) { return scalar(Value::from_double(v)); }

  // ---- nodes ---------------------------------------------------------------------------------------------
  // A node whose kind this runtime left out (kLowers*): resolve_kernels() refuses such a node first.
  Error unlowered(uint32_t n) {
    return unsupported(n, "its kind is not in this runtime's selection");
  }

  Error lower(uint32_t n) {
    const GraphNode& node = graph_.nodes[n];
    const uint32_t y = node.outputs[0];
    Value* min = scalar(Value::from_double(node.output_min));
    Value* max = scalar(Value::from_double(node.output_max));
    Step after{};
    Tensor *in = nullptr, *out = nullptr;
    Error err;
    if (graph_.values[node.inputs[0]].dtype == Datatype::kFp16 && has_filter(node.type)) {
      return kLowersHalfWeights ? half_weighted(n, node, min, max) : unlowered(n);
    }
    if (graph_.values[node.inputs[0]].dtype == Datatype::kQdint8 && has_filter(node.type) &&
        node.type != NodeType::kFullyConnected) {
      return kLowersDynamicConvolution ? dynamic_convolution(n, node, min, max) : unlowered(n);
    }
    if (kLowersPixelQuantization && node.type == NodeType::kConvert && graph_.values[y].dtype == Datatype::kQdint8 &&
        pointwise_only(y)) {
      return pixel_quantization(n, node);
    }
    switch (node.type) {
      case NodeType::kConv2d:
      case NodeType::kDepthwiseConv2d:
        return kLowersConvolution ? convolution(n, node, min, max) : unlowered(n);
      case NodeType::kFullyConnected:
        return kLowersFullyConnected ? fully_connected(n, node, min, max) : unlowered(n);
      case NodeType::kAvgPooling2d:
      case NodeType::kMaxPooling2d:
        return kLowersPooling ? pooling(n, node, min, max) : unlowered(n);
      case NodeType::kGlobalAvgPooling2d: {
        if (!kLowersGlobalAvgPooling) return unlowered(n);
        if (!(err = reader(node.inputs[0], true, n, &in)).ok() || !(err = writer(y, true, n, &out, &after)).ok()) {
          return err;
        }
        if (is_qs8(node.inputs[0])) {
          if (!kLowersInt8GlobalAvgPooling) return unlowered(n);
          Int8Io q;
          if (!(err = int8_io(n, node, node.inputs[0], y, &q)).ok()) return err;
          const GraphValue& x = graph_.values[node.inputs[0]];
          const double plane = static_cast<double>(x.dims[1] * x.dims[2]);  // NHWC
          if (plane == 0) return unsupported(n, "pools an empty image");
          Value* args[] = {tensor_value(in), double_value(static_cast<double>(q.si / q.so) / plane), int_value(q.zi),
                           int_value(q.zo), int_value(q.lo), int_value(q.hi), tensor_value(out)};
          if (!(err = track_plane(args[1], node.inputs[0], static_cast<double>(q.si / q.so))).ok()) return err;
          return call(n, args, 7, after);
        }
        Value* args[] = {tensor_value(in), min, max, tensor_value(out)};
        return call(n, args, 4, after);
      }
      case NodeType::kAdd: case NodeType::kSubtract: case NodeType::kMultiply: case NodeType::kDiv:
      case NodeType::kMinimum: case NodeType::kMaximum: {
        if (!kLowersBinary) return unlowered(n);
        const bool cf = channels_first_[y];
        const int32_t rank = graph_.values[y].rank;
        const uint8_t* order = cf ? kChannelsFirst : kIdentity;
        Tensor *a = nullptr, *b = nullptr;
        if (!(err = present(node.inputs[0], order, rank, n, true, &a)).ok() ||
            !(err = present(node.inputs[1], order, rank, n, true, &b)).ok() ||
            !(err = writer(y, cf, n, &out, &after)).ok()) {
          return err;
        }
        if (is_qs8(node.inputs[0])) {
          if (!kLowersInt8Binary) return unlowered(n);
          Int8Io q;
          float s2 = 0;
          int32_t z2 = 0;
          if (!(err = int8_io(n, node, node.inputs[0], y, &q)).ok() ||
              !(err = activation(node.inputs[1], n, &s2, &z2)).ok()) {
            return err;
          }
          const bool product = node.type == NodeType::kMultiply;
          Value* args[] = {tensor_value(a), tensor_value(b), double_value(product ? q.si * s2 / q.so : q.si / q.so),
                           double_value(product ? 0.0 : s2 / q.so), int_value(q.zi), int_value(z2), int_value(q.zo),
                           int_value(q.lo), int_value(q.hi), tensor_value(out)};
          return call(n, args, 10, after);
        }
        Value* args[] = {tensor_value(a), tensor_value(b), min, max, tensor_value(out)};
        return call(n, args, 5, after);
      }
      case NodeType::kClamp: {
        if (!kLowersClamp) return unlowered(n);
        const bool cf = channels_first_[y];
        if (!(err = reader(node.inputs[0], cf, n, &in)).ok() || !(err = writer(y, cf, n, &out, &after)).ok()) {
          return err;
        }
        if (is_qs8(node.inputs[0])) {
          if (!kLowersInt8Clamp) return unlowered(n);
          Int8Io q;
          if (!(err = int8_io(n, node, node.inputs[0], y, &q)).ok()) return err;
          if (q.si != q.so || q.zi != q.zo) return unsupported(n, "an int8 clamp that changes the quantization");
          Value* args[] = {tensor_value(in), int_value(q.lo), int_value(q.hi), tensor_value(out)};
          return call(n, args, 4, after);
        }
        Value* args[] = {tensor_value(in), min, max, tensor_value(out)};
        return call(n, args, 4, after);
      }
      case NodeType::kConvert: {
        if (!kLowersConvert) return unlowered(n);
        const bool cf = channels_first_[y];
        if (!(err = reader(node.inputs[0], cf, n, &in)).ok() || !(err = writer(y, cf, n, &out, &after)).ok()) {
          return err;
        }
        if (graph_.values[y].dtype == Datatype::kQdint8) {
          return kLowersDynamicQuantization ? dynamic_quantization(n, node, in, out, after) : unlowered(n);
        }
        const uint32_t quantized = is_qs8(y) ? y : node.inputs[0];
        float scale = 0;
        int32_t zp = 0;
        if (!(err = activation(quantized, n, &scale, &zp)).ok()) return err;
        Value* args[] = {tensor_value(in), double_value(scale), int_value(zp), tensor_value(out)};
        return call(n, args, 4, after);
      }
      case NodeType::kELU: case NodeType::kLeakyReLU: {
        if (!kLowersSlopes) return unlowered(n);
        const bool cf = channels_first_[y];
        if (!(err = reader(node.inputs[0], cf, n, &in)).ok() || !(err = writer(y, cf, n, &out, &after)).ok()) {
          return err;
        }
        Value* args[] = {tensor_value(in), scalar(Value::from_double(node.scalar)), tensor_value(out)};
        return call(n, args, 3, after);
      }
      case NodeType::kSoftmax: {
        if (!kLowersSoftmax) return unlowered(n);
        const bool cf = channels_first_[y];
        if (!(err = reader(node.inputs[0], cf, n, &in)).ok() || !(err = writer(y, cf, n, &out, &after)).ok()) {
          return err;
        }
        const int32_t last = graph_.values[y].rank - 1;
        const uint8_t* order = storage_order(y);
        int64_t dim = last;
        for (int32_t k = 0; k <= last; ++k) {
          if (order[k] == last) dim = k;
        }
        Value* args[] = {tensor_value(in), scalar(Value::from_int(dim)), tensor_value(out)};
        return call(n, args, 3, after);
      }
      case NodeType::kConcatenate2: case NodeType::kConcatenate3: case NodeType::kConcatenate4:
      case NodeType::kConcatenate5:
        return kLowersConcatenate ? concatenate(n, node) : unlowered(n);
      case NodeType::kStaticTranspose:
        return kLowersTranspose ? transpose(n, node) : unlowered(n);
      case NodeType::kStaticReshape: case NodeType::kCopy: {
        if (!kLowersReshape) return unlowered(n);
        if (graph_.values[node.inputs[0]].numel() != graph_.values[y].numel()) {
          return unsupported(n, "reshapes %llu elements into %llu",
                             static_cast<unsigned long long>(graph_.values[node.inputs[0]].numel()),
                             static_cast<unsigned long long>(graph_.values[y].numel()));
        }
        if (!(err = reader(node.inputs[0], false, n, &in)).ok()) return err;
        if (!channels_first_[y] && !(err = alias(y, in, node.inputs[0])).ok()) return err;
        if (!(err = writer(y, false, n, &out, &after)).ok()) return err;
        Value* args[] = {tensor_value(in), tensor_value(out)};
        return call(n, args, 2, after);
      }
      case NodeType::kStaticConstantPad: {
        if (!kLowersPad) return unlowered(n);
        if (!(err = reader(node.inputs[0], false, n, &in)).ok() || !(err = writer(y, false, n, &out, &after)).ok()) {
          return err;
        }
        const int32_t rank = graph_.values[y].rank;
        if (node.list_size != rank) {
          return unsupported(n, "pads %d dims of a rank-%d value", static_cast<int>(node.list_size),
                             static_cast<int>(rank));
        }
        int64_t pads[2 * kMaxRank];
        for (int32_t d = 0; d < rank; ++d) {
          pads[2 * d] = node.list[0][rank - 1 - d];
          pads[2 * d + 1] = node.list[1][rank - 1 - d];
        }
        Value* args[] = {tensor_value(in), int_list(pads, 2 * rank), double_value(node.scalar), tensor_value(out)};
        return call(n, args, 4, after);
      }
      case NodeType::kStaticSlice: {
        if (!kLowersSlice) return unlowered(n);
        if (!(err = reader(node.inputs[0], false, n, &in)).ok() || !(err = writer(y, false, n, &out, &after)).ok()) {
          return err;
        }
        const GraphValue& x = graph_.values[node.inputs[0]];
        if (!same_quantization(node.inputs[0], y)) return unsupported(n, "an int8 slice that changes the quantization");
        if (node.list_size != x.rank || graph_.values[y].rank != x.rank) {
          return unsupported(n, "slices %d dims of a rank-%d value", static_cast<int>(node.list_size),
                             static_cast<int>(x.rank));
        }
        for (int32_t d = 0; d < x.rank; ++d) {
          if (node.list[0][d] + graph_.values[y].dims[d] > x.dims[d]) {
            return unsupported(n, "slices past dim %d", static_cast<int>(d));
          }
        }
        Value* args[] = {tensor_value(in), int_list(node.list[0], x.rank), tensor_value(out)};
        return call(n, args, 3, after);
      }
      case NodeType::kBatchMatrixMultiply:
        return kLowersBatchMatmul ? batch_matmul(n, node) : unlowered(n);
      case NodeType::kConvTranspose2d:
        return kLowersDeconvolution ? deconvolution(n, node, min, max) : unlowered(n);
      case NodeType::kStaticResizeBilinear2D:
        return kLowersResize ? resize_bilinear(n, node) : unlowered(n);
      case NodeType::kPReLU:
        return kLowersPReLU ? prelu(n, node) : unlowered(n);
      default: {  // element-wise unary nodes
        if (!kLowersUnary) return unlowered(n);
        const bool cf = channels_first_[y];
        if (node.num_inputs != 1) return unsupported(n, "node kind %s is not supported", node_type_name(node.type));
        if (!(err = reader(node.inputs[0], cf, n, &in)).ok() || !(err = writer(y, cf, n, &out, &after)).ok()) {
          return err;
        }
        Value* args[] = {tensor_value(in), tensor_value(out)};
        return call(n, args, 2, after);
      }
    }
  }

  // The [rows, 2] fp32 tensor of value y's per-row scale and zero point, which its convert node writes and
  // the dynamically quantized nodes reading y take.
  Error row_quantization(uint32_t y, uint64_t rows, Tensor** out) {
    Tensor* params = nullptr;
    Error err = alloc(&params, 1);
    if (!err.ok()) return err;
    Result<void*> memory = context_.allocate(sat_mul(rows == 0 ? 1 : rows, 8), "XNNPACK row quantization");
    if (!memory.ok()) return memory.error;
    params->dtype = ScalarType::kFloat;
    params->dim = 2;
    params->sizes[0] = static_cast<int64_t>(rows);
    params->sizes[1] = 2;
    params->data = memory.value;
    row_params_[y] = params;
    *out = params;
    return Error();
  }

  // convert.f32_qd8: int8 rows, each with the scale and zero point it gets at run time (a [rows, 2]
  // fp32 tensor the reading node takes beside it). Rows are the value's last num_nonbatch_dims dims.
  Error dynamic_quantization(uint32_t n, const GraphNode& node, Tensor* in, Tensor* out, const Step& after) {
    const uint32_t y = node.outputs[0];
    const GraphValue& value = graph_.values[y];
    const QuantParams& q = value.quant;
    if (q.kind != QuantKind::kPerTokenDynamic || value.dtype != Datatype::kQdint8) {
      return unsupported(n, "value %u is not dynamically quantized per row", static_cast<unsigned>(y));
    }
    uint64_t row = 1;
    for (int32_t d = value.rank - q.num_nonbatch_dims; d < value.rank; ++d) {
      row = sat_mul(row, static_cast<uint64_t>(value.dims[d]));
    }
    if (row == 0) return unsupported(n, "dynamically quantizes empty rows");
    Tensor* params = nullptr;
    Error err = row_quantization(y, value.numel() / row, &params);
    if (!err.ok()) return err;
    if (!(err = track(params, y, ShapeForm::kRowParams)).ok()) return err;
    Value* args[] = {tensor_value(in), tensor_value(out), tensor_value(params)};
    return call(n, args, 3, after);
  }

  Error convolution(uint32_t n, const GraphNode& node, Value* min, Value* max) {
    const uint32_t* g = node.geometry;  // top, right, bottom, left, kh, kw, sh, sw, dh, dw, gic, goc, groups
    if (g[0] != g[2] || g[1] != g[3]) {
      return unsupported(n, "asymmetric padding (%u/%u, %u/%u)", static_cast<unsigned>(g[0]),
                         static_cast<unsigned>(g[2]), static_cast<unsigned>(g[3]), static_cast<unsigned>(g[1]));
    }
    const GraphValue& filter = graph_.values[node.inputs[1]];
    const bool depthwise = node.type == NodeType::kDepthwiseConv2d;
    const int64_t kh = g[4], kw = g[5], groups = g[12];
    // Two u32 fields: their product fits u64, and a filter dim (a u32) never matches one past that.
    const uint64_t channels = uint64_t{g[12]} * g[11];
    if (channels > UINT32_MAX) return unsupported(n, "its filter's shape does not match its geometry");
    const int64_t out_channels = static_cast<int64_t>(channels), in_per_group = depthwise ? 1 : g[10];
    // Filters: OHWI [O, kh, kw, I/g] for a convolution, [1, kh, kw, O] for a depthwise one.
    const int64_t want[4] = {depthwise ? 1 : out_channels, kh, kw, depthwise ? out_channels : in_per_group};
    if (filter.rank != 4 || memcmp(filter.dims, want, sizeof want) != 0 || groups == 0) {
      return unsupported(n, "its filter's shape does not match its geometry");
    }
    Tensor* weight = nullptr;
    const int64_t taps = kh * kw;
    // An int8 depthwise filter stays as XNNPACK has it, [kh * kw][O]: its kernels read each tap's channels.
    const bool int8_depthwise = depthwise && is_qs8(node.inputs[0]);
    Error err = depthwise ? pack(node.inputs[1], n, out_channels * taps,
                                 [&](int64_t i) { return int8_depthwise ? i : (i % taps) * out_channels + i / taps; },
                                 &weight)
                          : pack(node.inputs[1], n, out_channels * in_per_group * taps,
                                 [&](int64_t i) {
                                   const int64_t o = i / (in_per_group * taps), c = (i / taps) % in_per_group;
                                   const int64_t t = i % taps;
                                   return (o * taps + t) * in_per_group + c;
                                 },
                                 &weight);
    if (!err.ok()) return err;
    weight->dim = 4;
    weight->sizes[0] = out_channels;
    weight->sizes[1] = in_per_group;
    weight->sizes[2] = kh;
    weight->sizes[3] = kw;
    Tensor *in = nullptr, *out = nullptr;
    Value* bias_value = nullptr;
    Step after{};
    if (!(err = reader(node.inputs[0], true, n, &in)).ok() || !(err = bias(node.inputs[2], n, &bias_value)).ok() ||
        !(err = writer(node.outputs[0], true, n, &out, &after)).ok()) {
      return err;
    }
    const int64_t stride[2] = {g[6], g[7]}, padding[2] = {g[0], g[3]}, dilation[2] = {g[8], g[9]};
    if (is_qs8(node.inputs[0])) {
      if (!kLowersInt8Convolution) return unlowered(n);
      Int8Io q;
      Tensor *scales = nullptr, *work = nullptr;
      if (!(err = int8_io(n, node, node.inputs[0], node.outputs[0], &q)).ok() ||
          !(err = multipliers(node.inputs[1], n, out_channels, depthwise ? 3 : 0, q.si, q.so, &scales)).ok()) {
        return err;
      }
      qs8::ConvShape shape{};
      if (!(err = int8_conv_shape(n, node, in_per_group, &shape)).ok()) return err;
      if (depthwise) {
        const int64_t words = qs8::depthwise_scratch_words(shape, out_channels);
        if (!(err = scratch(sat_mul(static_cast<uint64_t>(words), 4), &work)).ok()) return err;
      } else {
        const int64_t per_group = out_channels / groups;
        if (!(err = int8_gemm_filter(n, node, weight, groups, per_group, in_per_group, taps, q.zi, &bias_value)).ok() ||
            !(err = scratch(static_cast<uint64_t>(qs8::conv_scratch_bytes(shape)), &work)).ok()) {
          return err;
        }
      }
      Value* args[] = {tensor_value(in),    tensor_value(weight), bias_value,           int_list(stride, 2),
                       int_list(padding, 2), int_list(dilation, 2), int_value(groups),   tensor_value(scales),
                       int_value(q.zi),     int_value(q.zo),      int_value(q.lo),      int_value(q.hi),
                       tensor_value(out),   tensor_value(work)};
      return call(n, args, 14, after);
    }
    Value* args[] = {tensor_value(in), tensor_value(weight), bias_value, int_list(stride, 2), int_list(padding, 2),
                     int_list(dilation, 2), scalar(Value::from_int(groups)), min, max, tensor_value(out)};
    return call(n, args, 10, after);
  }

  // A fully connected node's input and output features (*i, *o), checked against its input, filter and
  // output shapes (every dtype's lowering reads them so).
  Error fully_connected_features(uint32_t n, const GraphNode& node, int64_t* i, int64_t* o) {
    const GraphValue& x = graph_.values[node.inputs[0]];
    const GraphValue& filter = graph_.values[node.inputs[1]];
    const GraphValue& y = graph_.values[node.outputs[0]];
    const bool transposed = node.flags & 1;  // XNN_FLAG_TRANSPOSE_WEIGHTS: the filter is [I, O]
    if (filter.rank != 2 || x.rank < 1 || y.rank < 1) {
      return unsupported(n, "a fully connected node of unexpected ranks");
    }
    *o = transposed ? filter.dims[1] : filter.dims[0];
    *i = transposed ? filter.dims[0] : filter.dims[1];
    if (*i == 0 || *o == 0) return unsupported(n, "a fully connected node with no input or output features");
    const uint64_t rows = x.numel() / static_cast<uint64_t>(*i);
    if (x.dims[x.rank - 1] != *i || y.dims[y.rank - 1] != *o || rows != y.numel() / static_cast<uint64_t>(*o)) {
      return unsupported(n, "its filter's shape does not match its input and output");
    }
    return Error();
  }

  Error fully_connected(uint32_t n, const GraphNode& node, Value* min, Value* max) {
    const GraphValue& x = graph_.values[node.inputs[0]];
    const GraphValue& filter = graph_.values[node.inputs[1]];
    const bool transposed = node.flags & 1;  // XNN_FLAG_TRANSPOSE_WEIGHTS: the filter is [I, O]
    int64_t i = 0, o = 0;
    Error checked = fully_connected_features(n, node, &i, &o);
    if (!checked.ok()) return checked;
    Tensor* weight = nullptr;
    const bool dynamic = graph_.values[node.inputs[0]].dtype == Datatype::kQdint8;
    const bool four_bit = filter.dtype == Datatype::kQcint4 || filter.dtype == Datatype::kQbint4;
    const bool int8 = is_qs8(node.inputs[0]) || dynamic;
    if ((dynamic && !kLowersDynamicFullyConnected) || (int8 && !dynamic && !kLowersInt8FullyConnected) ||
        (four_bit && !kLowersFourBitFullyConnected)) {
      return unlowered(n);
    }
    // fp32 GEMMs take the filter [I, O]; int8 dot products take it [O, I].
    auto as_stored = [](int64_t k) { return k; };
    auto from_io = [&](int64_t k) { return (k % i) * o + k / i; };  // [O, I] from [I, O]
    auto from_oi = [&](int64_t k) { return (k % o) * i + k / o; };  // [I, O] from [O, I]
    Error err = four_bit           ? unpack_int4(node.inputs[1], n, o, i, transposed, &weight)
                : transposed != int8 ? pack(node.inputs[1], n, i * o, as_stored, &weight)
                : int8               ? pack(node.inputs[1], n, i * o, from_io, &weight)
                                     : pack(node.inputs[1], n, i * o, from_oi, &weight);
    if (!err.ok()) return err;
    weight->dim = 2;
    weight->sizes[0] = int8 ? o : i;
    weight->sizes[1] = int8 ? i : o;
    Tensor *in = nullptr, *out = nullptr;
    Value* bias_value = nullptr;
    Step after{};
    if (!(err = reader(node.inputs[0], false, n, &in)).ok() || !(err = bias(node.inputs[2], n, &bias_value)).ok() ||
        !(err = writer(node.outputs[0], false, n, &out, &after)).ok()) {
      return err;
    }
    // [..., I] rows as one [M, I] matrix, and the output likewise.
    Tensor *rows = nullptr, *out_rows = nullptr;
    if (!(err = alloc(&rows, 1)).ok() || !(err = alloc(&out_rows, 1)).ok()) return err;
    *rows = *in;
    *out_rows = *out;
    rows->dim = out_rows->dim = 2;
    rows->sizes[0] = out_rows->sizes[0] = static_cast<int64_t>(x.numel() / static_cast<uint64_t>(i));
    rows->sizes[1] = i;
    out_rows->sizes[1] = o;
    if (!(err = bind_like(rows, node.inputs[0])).ok() || !(err = bind_like(out_rows, node.outputs[0])).ok() ||
        !(err = track(rows, node.inputs[0], ShapeForm::kRows)).ok() ||
        !(err = track(out_rows, node.outputs[0], ShapeForm::kRows)).ok()) {
      return err;
    }
    if (dynamic) {
      Tensor *scales = nullptr, *work = nullptr;
      Tensor* params = row_params_[node.inputs[0]];
      if (params == nullptr || params->sizes[0] != rows->sizes[0]) {
        return unsupported(n, "its dynamically quantized input does not come from a convert node");
      }
      const bool blocks = filter.quant.kind == QuantKind::kPerChannelGroup;
      if (!(err = blocks ? block_scales(node.inputs[1], n, o, i, &scales)
                         : multipliers(node.inputs[1], n, o, transposed ? 1 : 0, 1.0f, 1.0f, &scales))
               .ok() ||
          !(err = scratch(sat_mul(static_cast<uint64_t>(i), 2), &work)).ok()) {
        return err;
      }
      Value* args[] = {tensor_value(rows), tensor_value(params), tensor_value(weight), bias_value, tensor_value(scales),
                       min, max, tensor_value(out_rows), tensor_value(work)};
      return call(n, args, 9, after);
    }
    if (int8) {
      Int8Io q;
      Tensor *scales = nullptr, *work = nullptr;
      if (i > (int64_t{1} << 28)) return unsupported(n, "an int8 fully connected node too wide for its micro-kernels");
      if (!(err = int8_io(n, node, node.inputs[0], node.outputs[0], &q)).ok() ||
          !(err = multipliers(node.inputs[1], n, o, transposed ? 1 : 0, q.si, q.so, &scales)).ok() ||
          !(err = int8_gemm_filter(n, node, weight, 1, o, i, 1, q.zi, &bias_value)).ok() ||
          !(err = scratch(static_cast<uint64_t>(qs8::fully_connected_scratch_bytes(i)), &work)).ok()) {
        return err;
      }
      Value* args[] = {tensor_value(rows), tensor_value(weight), bias_value, tensor_value(scales), int_value(q.zi),
                       int_value(q.zo), int_value(q.lo), int_value(q.hi), tensor_value(out_rows), tensor_value(work)};
      return call(n, args, 10, after);
    }
    Value* args[] = {tensor_value(rows), tensor_value(weight), bias_value, min, max, tensor_value(out_rows)};
    return call(n, args, 6, after);
  }

  Error pooling(uint32_t n, const GraphNode& node, Value* min, Value* max) {
    const uint32_t* g = node.geometry;  // top, right, bottom, left, ph, pw, sh, sw, dh, dw
    const bool is_max = node.type == NodeType::kMaxPooling2d;
    const GraphValue& x = graph_.values[node.inputs[0]];
    const GraphValue& y = graph_.values[node.outputs[0]];
    if (x.rank != 4 || y.rank != 4) return unsupported(n, "pools a rank-%d value", static_cast<int>(x.rank));
    const int64_t dh = is_max && g[8] ? g[8] : 1, dw = is_max && g[9] ? g[9] : 1;
    // Padding beyond top/left at the bottom/right is ATen's ceil mode: the max pooling kernels take their
    // windows from the output's size and cut them to the image.
    if ((g[2] != g[0] || g[1] != g[3]) && (!is_max || g[2] < g[0] || g[1] < g[3])) {
      return unsupported(n, "asymmetric padding (%u/%u, %u/%u)", static_cast<unsigned>(g[0]),
                         static_cast<unsigned>(g[2]), static_cast<unsigned>(g[3]), static_cast<unsigned>(g[1]));
    }
    if (g[6] == 0 || g[7] == 0 || g[4] == 0 || g[5] == 0) return unsupported(n, "a zero pooling size or stride");
    Tensor *in = nullptr, *out = nullptr;
    Step after{};
    Error err;
    if (!(err = reader(node.inputs[0], true, n,
                       &in)).ok() || !(err = writer(node.outputs[0], true, n, &out, &after)).ok()) {
      return err;
    }
    const int64_t kernel[2] = {g[4], g[5]}, stride[2] = {g[6], g[7]}, padding[2] = {g[0], g[3]}, dilation[2] = {dh, dw};
    if (!is_max) {
      Value* args[] = {tensor_value(in), int_list(kernel, 2), int_list(stride, 2), int_list(padding, 2), min, max,
                       tensor_value(out)};
      return call(n, args, 7, after);
    }
    if (is_qs8(node.inputs[0])) {
      if (!kLowersInt8Pooling) return unlowered(n);
      Int8Io q;
      if (!(err = int8_io(n, node, node.inputs[0], node.outputs[0], &q)).ok()) return err;
      if (q.si != q.so || q.zi != q.zo) return unsupported(n, "an int8 max pooling that changes the quantization");
      Value* args[] = {tensor_value(in), int_list(kernel, 2), int_list(stride, 2), int_list(padding, 2),
                       int_list(dilation, 2), int_value(q.lo), int_value(q.hi), tensor_value(out)};
      return call(n, args, 8, after);
    }
    // No indices: XNNPACK's node keeps none.
    Value* args[] = {tensor_value(in), int_list(kernel, 2), int_list(stride, 2), int_list(padding, 2),
                     int_list(dilation, 2), min, max, tensor_value(out)};
    return call(n, args, 8, after);
  }

  Error concatenate(uint32_t n, const GraphNode& node) {
    const uint32_t y = node.outputs[0];
    const bool cf = channels_first_[y];
    const int32_t rank = graph_.values[y].rank;
    const int64_t axis = node.list[0][0];
    if (axis >= rank) {
      return unsupported(n, "concatenates along dim %lld of %d", static_cast<long long>(axis), static_cast<int>(rank));
    }
    Tensor** parts = nullptr;
    Error err = alloc(&parts, static_cast<uint64_t>(node.num_inputs));
    if (!err.ok()) return err;
    const QuantParams& yq = graph_.values[y].quant;
    for (int i = 0; i < node.num_inputs; ++i) {
      if (graph_.values[node.inputs[i]].rank != rank) return unsupported(n, "concatenates values of different ranks");
      const QuantParams& q = graph_.values[node.inputs[i]].quant;
      if (q.kind != yq.kind || q.scale != yq.scale || q.zero_point != yq.zero_point) {
        return unsupported(n, "concatenates values of different quantizations");
      }
      if (!(err = reader(node.inputs[i], cf, n, &parts[i])).ok()) return err;
    }
    Tensor* out = nullptr;
    Step after{};
    if (!(err = writer(y, cf, n, &out, &after)).ok()) return err;
    const uint8_t* order = storage_order(y);
    int64_t dim = axis;
    for (int32_t k = 0; k < rank; ++k) {
      if (order[k] == axis) dim = k;
    }
    Value* list = scalar(Value::from_tensor_list(Span<Tensor* const>(parts, static_cast<size_t>(node.num_inputs))));
    Value* args[] = {list, scalar(Value::from_int(dim)), tensor_value(out)};
    return call(n, args, 3, after);
  }

  Error transpose(uint32_t n, const GraphNode& node) {
    const uint32_t x = node.inputs[0], y = node.outputs[0];
    const int32_t rank = graph_.values[y].rank;
    if (node.list_size != rank || graph_.values[x].rank != rank) {
      return unsupported(n, "a permutation of %d dims for rank %d", static_cast<int>(node.list_size),
                         static_cast<int>(rank));
    }
    bool used[kMaxRank] = {};
    for (int32_t d = 0; d < rank; ++d) {
      if (node.list[0][d] >= rank || used[node.list[0][d]]) return unsupported(n, "its permutation is not one");
      used[node.list[0][d]] = true;
      if (graph_.values[y].dims[d] != graph_.values[x].dims[node.list[0][d]]) {
        return unsupported(n, "its output shape is not its input's permuted");
      }
    }
    Tensor *in = nullptr, *out = nullptr;
    Step after{};
    Error err;
    if (!(err = define(x)).ok()) return err;
    in = &tensors_[x];
    // Storage dim k of the output holds XNNPACK output dim so[k], which is input dim perm[so[k]],
    // stored at the input's storage position of that dim.
    const uint8_t* si = storage_order(x);
    const uint8_t* so = storage_order(y);
    int64_t perm[kMaxRank];
    bool identity = true;
    for (int32_t k = 0; k < rank; ++k) {
      const int64_t source = node.list[0][so[k]];
      for (int32_t j = 0; j < rank; ++j) {
        if (si[j] == source) perm[k] = j;
      }
      identity = identity && perm[k] == k;
    }
    // A transpose the layouts already made (NCHW in, an NHWC image stored NCHW out) moves nothing.
    if (identity && !(err = alias(y, in, x)).ok()) return err;
    if (!(err = writer(y, channels_first_[y], n, &out, &after)).ok()) return err;
    Value* args[] = {tensor_value(in), int_list(perm, rank), tensor_value(out)};
    return call(n, args, 3, after);
  }

  Error batch_matmul(uint32_t n, const GraphNode& node) {
    if (node.flags != 0) {
      return unsupported(n, "batch matrix multiply with flags 0x%x", static_cast<unsigned>(node.flags));
    }
    const GraphValue& a = graph_.values[node.inputs[0]];
    const GraphValue& b = graph_.values[node.inputs[1]];
    const GraphValue& y = graph_.values[node.outputs[0]];
    if (a.rank < 3 || a.rank != b.rank || a.rank != y.rank) {
      return unsupported(n, "batch matrix multiply of ranks %d and %d", static_cast<int>(a.rank),
                         static_cast<int>(b.rank));
    }
    Tensor* views[3];
    const GraphValue* values[3] = {&a, &b, &y};
    Tensor *in_a = nullptr, *in_b = nullptr, *out = nullptr;
    Step after{};
    Error err;
    if (!(err = reader(node.inputs[0], false, n,
                       &in_a)).ok() || !(err = reader(node.inputs[1], false, n, &in_b)).ok() ||
        !(err = writer(node.outputs[0], false, n, &out, &after)).ok()) {
      return err;
    }
    Tensor* sources[3] = {in_a, in_b, out};
    const uint32_t ids[3] = {node.inputs[0], node.inputs[1], node.outputs[0]};
    for (int i = 0; i < 3; ++i) {
      if (!(err = alloc(&views[i], 1)).ok()) return err;
      *views[i] = *sources[i];
      const GraphValue& v = *values[i];
      int64_t batch = 1;
      for (int32_t d = 0; d + 2 < v.rank; ++d) {
        if (v.dims[d] != a.dims[d]) return unsupported(n, "batch matrix multiply with broadcast batch dims");
        batch *= v.dims[d];
      }
      views[i]->dim = 3;
      views[i]->sizes[0] = batch;
      views[i]->sizes[1] = v.dims[v.rank - 2];
      views[i]->sizes[2] = v.dims[v.rank - 1];
      if (!(err = bind_like(views[i], ids[i])).ok() || !(err = track(views[i], ids[i], ShapeForm::kMatrices)).ok()) {
        return err;
      }
    }
    Value* args[] = {tensor_value(views[0]), tensor_value(views[1]), tensor_value(views[2])};
    return call(n, args, 3, after);
  }

  // A deconvolution (XNNPACK's conv_transpose2d): its filter [groups * O/g, kh, kw, I/g] packed as ATen's
  // transposed one, [groups * I/g, O/g, kh, kw]; its adjustment is ATen's output_padding.
  Error deconvolution(uint32_t n, const GraphNode& node, Value* min, Value* max) {
    // top, right, bottom, left, kh, kw, sh, sw, dh, dw, gic, goc, groups, adjustment h, w
    const uint32_t* g = node.geometry;
    if (g[0] != g[2] || g[1] != g[3]) {
      return unsupported(n, "asymmetric padding (%u/%u, %u/%u)", static_cast<unsigned>(g[0]),
                         static_cast<unsigned>(g[2]), static_cast<unsigned>(g[3]), static_cast<unsigned>(g[1]));
    }
    const GraphValue& x = graph_.values[node.inputs[0]];
    const GraphValue& y = graph_.values[node.outputs[0]];
    const GraphValue& filter = graph_.values[node.inputs[1]];
    const int64_t kh = g[4], kw = g[5], sh = g[6], sw = g[7], dh = g[8], dw = g[9];
    const int64_t gic = g[10], goc = g[11], groups = g[12], ah = g[13], aw = g[14];
    if (x.rank != 4 || y.rank != 4) {
      return unsupported(n, "a deconvolution of a rank-%d value", static_cast<int>(x.rank));
    }
    if (kh == 0 || kw == 0 || sh == 0 || sw == 0 || dh == 0 || dw == 0 || groups == 0 || gic == 0 || goc == 0) {
      return unsupported(n, "a zero kernel size, stride, dilation or group");
    }
    // ATen's limit on output_padding (XNNPACK's is tighter: below the stride).
    if ((ah >= sh && ah >= dh) || (aw >= sw && aw >= dw)) {
      return unsupported(n, "adjustment %lld x %lld for stride %lld x %lld", static_cast<long long>(ah),
                         static_cast<long long>(aw), static_cast<long long>(sh), static_cast<long long>(sw));
    }
    // u32 fields: their products fit u64, and a filter or value dim (a u32) never matches one past that.
    if (uint64_t{g[12]} * g[11] > UINT32_MAX || uint64_t{g[12]} * g[10] > UINT32_MAX) {
      return unsupported(n, "its filter's shape does not match its geometry");
    }
    const int64_t want[4] = {groups * goc, kh, kw, gic};
    if (filter.rank != 4 || memcmp(filter.dims, want, sizeof want) != 0) {
      return unsupported(n, "its filter's shape does not match its geometry");
    }
    if (x.dims[3] != groups * gic || y.dims[3] != groups * goc || y.dims[0] != x.dims[0]) {
      return unsupported(n, "its channels do not match its geometry");
    }
    // The output's size plus both paddings, in saturating u64 (a saturated one matches no u32 dim).
    auto extent = [](int64_t in, int64_t stride, int64_t dilation, int64_t kernel, int64_t adjust) {
      return sat_add(sat_mul(static_cast<uint64_t>(in - 1), static_cast<uint64_t>(stride)),
                     sat_add(sat_mul(static_cast<uint64_t>(dilation), static_cast<uint64_t>(kernel - 1)),
                             static_cast<uint64_t>(adjust) + 1));
    };
    if (x.dims[1] == 0 || x.dims[2] == 0 ||
        extent(x.dims[1], sh, dh, kh, ah) != static_cast<uint64_t>(y.dims[1]) + 2 * uint64_t{g[0]} ||
        extent(x.dims[2], sw, dw, kw, aw) != static_cast<uint64_t>(y.dims[2]) + 2 * uint64_t{g[1]}) {
      return unsupported(n, "its output's size does not match its geometry");
    }
    const bool int8 = is_qs8(node.inputs[0]), half = x.dtype == Datatype::kFp16;
    if (x.dtype != Datatype::kFp32 && !int8 && !half) {
      return unsupported(n, "a %s deconvolution", datatype_name(x.dtype));
    }
    if ((int8 && !kLowersInt8Deconvolution) || (half && !kLowersHalfWeights)) return unlowered(n);
    const int64_t taps = kh * kw;
    auto source = [&](int64_t i) {
      const int64_t ci = i / (goc * taps), o = (i / taps) % goc, t = i % taps;
      return ((ci / gic * goc + o) * taps + t) * gic + ci % gic;
    };
    Tensor* weight = nullptr;
    Error err = half ? pack_half(node.inputs[1], n, groups * gic * goc * taps, source, &weight)
                     : pack(node.inputs[1], n, groups * gic * goc * taps, source, &weight);
    if (!err.ok()) return err;
    weight->dim = 4;
    weight->sizes[0] = groups * gic;
    weight->sizes[1] = goc;
    weight->sizes[2] = kh;
    weight->sizes[3] = kw;
    Tensor *in = nullptr, *out = nullptr;
    Value* bias_value = nullptr;
    Step after{};
    err = half ? half_bias(node.inputs[2], n, groups * goc, &bias_value) : bias(node.inputs[2], n, &bias_value);
    if (!err.ok() || !(err = reader(node.inputs[0], true, n, &in)).ok() ||
        !(err = writer(node.outputs[0], true, n, &out, &after)).ok()) {
      return err;
    }
    const int64_t stride[2] = {sh, sw}, padding[2] = {g[0], g[3]}, dilation[2] = {dh, dw}, adjustment[2] = {ah, aw};
    if (int8) {
      Int8Io q;
      Tensor* scales = nullptr;
      // Per-channel filter scales run along XNNPACK's dim 0, the output channels.
      if (!(err = int8_io(n, node, node.inputs[0], node.outputs[0], &q)).ok() ||
          !(err = multipliers(node.inputs[1], n, groups * goc, 0, q.si, q.so, &scales)).ok()) {
        return err;
      }
      Value* args[] = {tensor_value(in),         tensor_value(weight),  bias_value,       int_list(stride, 2),
                       int_list(padding, 2),     int_list(dilation, 2), int_list(adjustment, 2), int_value(groups),
                       tensor_value(scales),     int_value(q.zi),       int_value(q.zo),  int_value(q.lo),
                       int_value(q.hi),          tensor_value(out)};
      return call(n, args, 14, after);
    }
    Value* args[] = {tensor_value(in),      tensor_value(weight),  bias_value,        int_list(stride, 2),
                     int_list(padding, 2),  int_list(dilation, 2), int_list(adjustment, 2), int_value(groups),
                     min,                   max,                   tensor_value(out)};
    return call(n, args, 11, after);
  }

  // A bilinear resize of an NHWC image (stored NCHW) to the node's fixed size.
  Error resize_bilinear(uint32_t n, const GraphNode& node) {
    constexpr uint32_t kAlignCorners = 0x8, kTensorflowLegacy = 0x4;  // XNN_FLAG_ALIGN_CORNERS, _TENSORFLOW_LEGACY_MODE
    if ((node.flags & ~kAlignCorners) != 0) {
      return unsupported(n, "a bilinear resize with flags 0x%x%s", static_cast<unsigned>(node.flags),
                         node.flags & kTensorflowLegacy ? " (TensorFlow's legacy mode)" : "");
    }
    const GraphValue& x = graph_.values[node.inputs[0]];
    const GraphValue& y = graph_.values[node.outputs[0]];
    if (x.rank != 4 || y.rank != 4) return unsupported(n, "resizes a rank-%d value", static_cast<int>(x.rank));
    if (y.dims[0] != x.dims[0] || y.dims[3] != x.dims[3] || y.dims[1] != node.list[0][0] ||
        y.dims[2] != node.list[0][1] || node.list[0][0] == 0 || node.list[0][1] == 0 || x.dims[1] == 0 ||
        x.dims[2] == 0) {
      return unsupported(n, "its output's shape is not its input's resized to %lld x %lld",
                         static_cast<long long>(node.list[0][0]), static_cast<long long>(node.list[0][1]));
    }
    if ((x.dtype != Datatype::kFp32 && x.dtype != Datatype::kFp16) || y.dtype != x.dtype) {
      return unsupported(n, "a %s bilinear resize", datatype_name(x.dtype));
    }
    Tensor *in = nullptr, *out = nullptr;
    Step after{};
    Error err;
    if (!(err = reader(node.inputs[0], true, n, &in)).ok() ||
        !(err = writer(node.outputs[0], true, n, &out, &after)).ok()) {
      return err;
    }
    Value* args[] = {tensor_value(in), int_list(node.list[0], 2),
                     scalar(Value::from_bool((node.flags & kAlignCorners) != 0)), tensor_value(out)};
    return call(n, args, 4, after);
  }

  // PReLU: the slope broadcast against the input, both presented at the output's rank and layout.
  Error prelu(uint32_t n, const GraphNode& node) {
    const uint32_t y = node.outputs[0];
    const GraphValue& x = graph_.values[node.inputs[0]];
    const GraphValue& slope = graph_.values[node.inputs[1]];
    const GraphValue& out_value = graph_.values[y];
    if (x.rank != out_value.rank || slope.rank > x.rank ||
        memcmp(x.dims, out_value.dims, sizeof(int64_t) * static_cast<size_t>(x.rank)) != 0) {
      return unsupported(n, "a PReLU whose output is not its input's shape");
    }
    // The slope broadcasts from the trailing dims (XNNPACK's rule): each of its dims is 1 or the input's.
    for (int32_t d = 0; d < slope.rank; ++d) {
      const int64_t against = x.dims[x.rank - slope.rank + d];
      if (slope.dims[d] != 1 && slope.dims[d] != against) {
        return unsupported(n, "a PReLU slope that does not broadcast against its input");
      }
    }
    if ((x.dtype != Datatype::kFp32 && x.dtype != Datatype::kFp16) || slope.dtype != x.dtype ||
        out_value.dtype != x.dtype) {
      return unsupported(n, "a %s PReLU", datatype_name(x.dtype));
    }
    const bool cf = channels_first_[y];
    const int32_t rank = out_value.rank;
    const uint8_t* order = cf ? kChannelsFirst : kIdentity;
    Tensor *in = nullptr, *s = nullptr, *out = nullptr;
    Step after{};
    Error err;
    if (!(err = present(node.inputs[0], order, rank, n, true, &in)).ok() ||
        !(err = present(node.inputs[1], order, rank, n, true, &s)).ok() ||
        !(err = writer(y, cf, n, &out, &after)).ok()) {
      return err;
    }
    Value* args[] = {tensor_value(in), tensor_value(s), tensor_value(out)};
    return call(n, args, 3, after);
  }

  // Whether a node moving values from x to y keeps them: the same dtype and quantization (per tensor).
  bool same_quantization(uint32_t x, uint32_t y) const {
    const GraphValue& a = graph_.values[x];
    const GraphValue& b = graph_.values[y];
    const bool per_tensor = a.quant.kind == QuantKind::kNone || a.quant.kind == QuantKind::kPerTensor;
    return per_tensor && a.dtype == b.dtype && a.quant.kind == b.quant.kind && a.quant.scale == b.quant.scale &&
           a.quant.zero_point == b.quant.zero_point;
  }

  // A convolution XNNPACK runs as a GEMM over pixels: 1x1, unit stride, no padding, one group.
  static bool is_pointwise(const GraphNode& node) {
    const uint32_t* g = node.geometry;
    return node.type == NodeType::kConv2d && g[4] == 1 && g[5] == 1 && g[6] == 1 && g[7] == 1 && g[0] == 0 &&
           g[1] == 0 && g[2] == 0 && g[3] == 0 && g[12] == 1;
  }

  // Whether every node reading value v is a pointwise convolution (and some node does): a table made in one
  // pass over the nodes on first use.
  bool pointwise_only(uint32_t v) {
    enum : uint8_t { kUnread = 0, kPointwise = 1, kOther = 2 };
    if (pointwise_readers_ == nullptr) {
      if (!alloc(&pointwise_readers_, graph_.num_values).ok()) return false;
      for (uint32_t i = 0; i < graph_.num_nodes; ++i) {
        const GraphNode& node = graph_.nodes[i];
        for (int k = 0; k < node.num_inputs; ++k) {
          if (node.inputs[k] == kInvalidId) continue;
          uint8_t& seen = pointwise_readers_[node.inputs[k]];
          seen = k == 0 && is_pointwise(node) && seen != kOther ? kPointwise : kOther;
        }
      }
    }
    return pointwise_readers_[v] == kPointwise;
  }

  // convert.f32_qd8 for pointwise convolutions: each pixel (a row of channels, NHWC) gets its own scale and
  // zero point, as XNNPACK quantizes a GEMM's rows. The qd8 value is stored NHWC, whatever its declared dims.
  Error pixel_quantization(uint32_t n, const GraphNode& node) {
    const uint32_t y = node.outputs[0];
    const GraphValue& source = graph_.values[node.inputs[0]];
    const GraphValue& value = graph_.values[y];
    if (value.quant.kind != QuantKind::kPerTokenDynamic || source.dtype != Datatype::kFp32 || source.rank != 4 ||
        value.numel() != source.numel() || source.dims[3] == 0) {
      return unsupported(n, "value %u is not an image quantized dynamically", static_cast<unsigned>(y));
    }
    if (ready_[y]) return unsupported(n, "value %u is laid out before its convert", static_cast<unsigned>(y));
    channels_first_[y] = false;
    Tensor *in = nullptr, *out = nullptr;
    Step after{};
    Error err;
    if (!(err = reader(node.inputs[0], false, n, &in)).ok() || !(err = writer(y, false, n, &out, &after)).ok()) {
      return err;
    }
    Tensor* params = nullptr;
    if (!(err = row_quantization(y, source.numel() / static_cast<uint64_t>(source.dims[3]), &params)).ok() ||
        !(err = track(params, node.inputs[0], ShapeForm::kRowCount)).ok()) {
      return err;
    }
    Value* args[] = {tensor_value(in), tensor_value(out), tensor_value(params)};
    return call(n, args, 3, after);
  }

  // A pointwise dynamically quantized convolution over pixels quantized one by one: the dynamic convolution
  // kernel on [pixels, C, 1, 1] (the NHWC image's rows as 1x1 images, each with its own parameters).
  Error pointwise_convolution(uint32_t n, const GraphNode& node, Value* min, Value* max) {
    const uint32_t v = node.inputs[0];
    const GraphValue& x = graph_.values[v];
    const GraphValue& y = graph_.values[node.outputs[0]];
    Tensor* params = row_params_[v];
    const int64_t c = x.dims[3], o = y.dims[3];
    const int64_t pixels = c == 0 ? 0 : static_cast<int64_t>(x.numel() / static_cast<uint64_t>(c));
    if (params == nullptr || channels_first_[v] || params->sizes[0] != pixels || y.numel() != x.numel() / c * o) {
      return unsupported(n, "its dynamically quantized input is not quantized per pixel by a convert node");
    }
    const GraphValue& filter = graph_.values[node.inputs[1]];
    if (filter.dtype != Datatype::kQcint8) {
      return unsupported(n, "its filter (value %u) is not per-channel int8", static_cast<unsigned>(node.inputs[1]));
    }
    Tensor *weight = nullptr, *scales = nullptr;
    Error err = pack(node.inputs[1], n, o * c, [](int64_t i) { return i; }, &weight);
    if (!err.ok() || !(err = multipliers(node.inputs[1], n, o, 0, 1.0f, 1.0f, &scales)).ok()) return err;
    weight->dim = 4;
    weight->sizes[0] = o;
    weight->sizes[1] = c;
    weight->sizes[2] = weight->sizes[3] = 1;
    Tensor *in = nullptr, *out = nullptr;
    Value* bias_value = nullptr;
    Step after{};
    if (!(err = bias(node.inputs[2], n, &bias_value)).ok() || !(err = reader(v, false, n, &in)).ok() ||
        !(err = writer(node.outputs[0], false, n, &out, &after)).ok()) {
      return err;
    }
    Tensor *rows = nullptr, *out_rows = nullptr;
    if (!(err = alloc(&rows, 1)).ok() || !(err = alloc(&out_rows, 1)).ok()) return err;
    *rows = *in;
    *out_rows = *out;
    rows->dim = out_rows->dim = 4;
    rows->sizes[0] = out_rows->sizes[0] = pixels;
    rows->sizes[1] = c;
    out_rows->sizes[1] = o;
    rows->sizes[2] = rows->sizes[3] = out_rows->sizes[2] = out_rows->sizes[3] = 1;
    if (!(err = bind_like(out_rows, node.outputs[0])).ok() || !(err = track(rows, v, ShapeForm::kRows)).ok() ||
        !(err = track(out_rows, node.outputs[0], ShapeForm::kRows)).ok()) {
      return err;
    }
    const int64_t ones[2] = {1, 1}, zeros[2] = {0, 0};
    Value* args[] = {tensor_value(rows),  tensor_value(params), tensor_value(weight), bias_value,
                     tensor_value(scales), int_list(ones, 2),  int_list(zeros, 2),   int_list(ones, 2),
                     int_value(1),        min,                  max,                  tensor_value(out_rows)};
    return call(n, args, 12, after);
  }

  // ---- fp16 --------------------------------------------------------------------------------------------
  static bool has_filter(NodeType t) {
    return t == NodeType::kConv2d || t == NodeType::kDepthwiseConv2d || t == NodeType::kFullyConnected ||
           t == NodeType::kConvTranspose2d;
  }

  // A constant fp32 or fp16 value as a new Half tensor: dst[i] = src[source(i)]. ExecuTorch keeps an fp16
  // program's convolution filters and biases in fp32; XNNPACK converts them to fp16 when it packs them.
  template <typename Index>
  Error pack_half(uint32_t v, uint32_t node, int64_t count, Index source, Tensor** out) {
    const GraphValue& value = graph_.values[v];
    if (value.constant == nullptr) {
      return unsupported(node, "its weights (value %u) are not constant", static_cast<unsigned>(v));
    }
    if (value.dtype != Datatype::kFp32 && value.dtype != Datatype::kFp16) {
      return unsupported(node, "its weights (value %u) are %s", static_cast<unsigned>(v), datatype_name(value.dtype));
    }
    const bool wide = value.dtype == Datatype::kFp32;
    Result<void*> memory = context_.allocate(sat_mul(static_cast<uint64_t>(count), 2), "packed XNNPACK weights");
    if (!memory.ok()) return memory.error;
    Half* dst = static_cast<Half*>(memory.value);
    for (int64_t i = 0; i < count; ++i) {
      const int64_t at = source(i);
      if (wide) {
        float f;
        memcpy(&f, value.constant + 4 * at, 4);
        dst[i] = Half(f);
      } else {
        uint16_t bits;
        memcpy(&bits, value.constant + 2 * at, 2);
        dst[i] = Half::from_bits(bits);
      }
    }
    Tensor* t = nullptr;
    Error err = alloc(&t, 1);
    if (!err.ok()) return err;
    t->dtype = ScalarType::kHalf;
    t->data = dst;
    *out = t;
    return Error();
  }

  Error half_bias(uint32_t v, uint32_t node, int64_t outputs, Value** out) {
    if (v == kInvalidId) {
      *out = none();
      return Error();
    }
    if (graph_.values[v].numel() != static_cast<uint64_t>(outputs)) {
      return unsupported(node, "its bias (value %u) is not one per output channel", static_cast<unsigned>(v));
    }
    Tensor* t = nullptr;
    Error err = pack_half(v, node, outputs, [](int64_t i) { return i; }, &t);
    if (!err.ok()) return err;
    t->dim = 1;
    t->sizes[0] = outputs;
    *out = tensor_value(t);
    return Error();
  }

  // An fp16 convolution, depthwise convolution, deconvolution or fully connected node: the f32 lowering's
  // geometry, its filter and bias packed as Half, the same kernels (ATen's run Half).
  Error half_weighted(uint32_t n, const GraphNode& node, Value* min, Value* max) {
    const GraphValue& filter = graph_.values[node.inputs[1]];
    const GraphValue& y = graph_.values[node.outputs[0]];
    if (y.dtype != Datatype::kFp16) return unsupported(n, "an fp16 input with a %s output", datatype_name(y.dtype));
    Tensor *in = nullptr, *out = nullptr, *weight = nullptr;
    Value* bias_value = nullptr;
    Step after{};
    Error err;
    if (node.type == NodeType::kFullyConnected) {
      const bool transposed = node.flags & 1;  // XNN_FLAG_TRANSPOSE_WEIGHTS: the filter is [I, O]
      int64_t i = 0, o = 0;
      if (!(err = fully_connected_features(n, node, &i, &o)).ok()) return err;
      const uint64_t rows = graph_.values[node.inputs[0]].numel() / static_cast<uint64_t>(i);
      // The GEMM takes the filter [I, O].
      err = transposed ? pack_half(node.inputs[1], n, i * o, [](int64_t k) { return k; }, &weight)
                       : pack_half(node.inputs[1], n, i * o, [&](int64_t k) { return (k % o) * i + k / o; }, &weight);
      if (!err.ok() || !(err = half_bias(node.inputs[2], n, o, &bias_value)).ok()) return err;
      weight->dim = 2;
      weight->sizes[0] = i;
      weight->sizes[1] = o;
      if (!(err = reader(node.inputs[0], false, n, &in)).ok() ||
          !(err = writer(node.outputs[0], false, n, &out, &after)).ok()) {
        return err;
      }
      Tensor *in_rows = nullptr, *out_rows = nullptr;
      if (!(err = alloc(&in_rows, 1)).ok() || !(err = alloc(&out_rows, 1)).ok()) return err;
      *in_rows = *in;
      *out_rows = *out;
      in_rows->dim = out_rows->dim = 2;
      in_rows->sizes[0] = out_rows->sizes[0] = static_cast<int64_t>(rows);
      in_rows->sizes[1] = i;
      out_rows->sizes[1] = o;
      if (!(err = bind_like(in_rows, node.inputs[0])).ok() || !(err = bind_like(out_rows, node.outputs[0])).ok() ||
          !(err = track(in_rows, node.inputs[0], ShapeForm::kRows)).ok() ||
          !(err = track(out_rows, node.outputs[0], ShapeForm::kRows)).ok()) {
        return err;
      }
      Value* args[] = {tensor_value(in_rows), tensor_value(weight), bias_value, min, max, tensor_value(out_rows)};
      return call(n, args, 6, after);
    }
    if (node.type == NodeType::kConvTranspose2d) return deconvolution(n, node, min, max);
    const uint32_t* g = node.geometry;  // top, right, bottom, left, kh, kw, sh, sw, dh, dw, gic, goc, groups
    if (g[0] != g[2] || g[1] != g[3]) {
      return unsupported(n, "asymmetric padding (%u/%u, %u/%u)", static_cast<unsigned>(g[0]),
                         static_cast<unsigned>(g[2]), static_cast<unsigned>(g[3]), static_cast<unsigned>(g[1]));
    }
    const bool depthwise = node.type == NodeType::kDepthwiseConv2d;
    const int64_t kh = g[4], kw = g[5], groups = g[12];
    if (uint64_t{g[12]} * g[11] > UINT32_MAX) return unsupported(n, "its filter's shape does not match its geometry");
    const int64_t out_channels = static_cast<int64_t>(g[12]) * g[11], in_per_group = depthwise ? 1 : g[10];
    // Filters: OHWI [O, kh, kw, I/g] for a convolution, [1, kh, kw, O] for a depthwise one.
    const int64_t want[4] = {depthwise ? 1 : out_channels, kh, kw, depthwise ? out_channels : in_per_group};
    if (filter.rank != 4 || memcmp(filter.dims, want, sizeof want) != 0 || groups == 0) {
      return unsupported(n, "its filter's shape does not match its geometry");
    }
    const int64_t taps = kh * kw;
    err = depthwise ? pack_half(node.inputs[1], n, out_channels * taps,
                                [&](int64_t i) { return (i % taps) * out_channels + i / taps; }, &weight)
                    : pack_half(node.inputs[1], n, out_channels * in_per_group * taps,
                                [&](int64_t i) {
                                  const int64_t o = i / (in_per_group * taps), c = (i / taps) % in_per_group;
                                  return (o * taps + i % taps) * in_per_group + c;
                                },
                                &weight);
    if (!err.ok() || !(err = half_bias(node.inputs[2], n, out_channels, &bias_value)).ok()) return err;
    weight->dim = 4;
    weight->sizes[0] = out_channels;
    weight->sizes[1] = in_per_group;
    weight->sizes[2] = kh;
    weight->sizes[3] = kw;
    if (!(err = reader(node.inputs[0], true, n, &in)).ok() ||
        !(err = writer(node.outputs[0], true, n, &out, &after)).ok()) {
      return err;
    }
    const int64_t stride[2] = {g[6], g[7]}, padding[2] = {g[0], g[3]}, dilation[2] = {g[8], g[9]};
    Value* args[] = {tensor_value(in), tensor_value(weight), bias_value, int_list(stride, 2), int_list(padding, 2),
                     int_list(dilation, 2), scalar(Value::from_int(groups)), min, max, tensor_value(out)};
    return call(n, args, 10, after);
  }

  // A dynamically quantized (qd8) convolution, depthwise convolution or deconvolution: int8 images with
  // one scale and zero point per image (the convert node's row parameters), a per-channel int8 filter
  // packed as the f32 kinds pack theirs, its scales per output channel, an fp32 bias and output.
  Error dynamic_convolution(uint32_t n, const GraphNode& node, Value* min, Value* max) {
    // top, right, bottom, left, kh, kw, sh, sw, dh, dw, gic, goc, groups, adjustment h, w
    const uint32_t* g = node.geometry;
    const bool transposed = node.type == NodeType::kConvTranspose2d;
    const bool depthwise = node.type == NodeType::kDepthwiseConv2d;
    if (g[0] != g[2] || g[1] != g[3]) {
      return unsupported(n, "asymmetric padding (%u/%u, %u/%u)", static_cast<unsigned>(g[0]),
                         static_cast<unsigned>(g[2]), static_cast<unsigned>(g[3]), static_cast<unsigned>(g[1]));
    }
    // The qd8 image holds its convert's dims (parse_graph gives it them, as XNNPACK's shapes propagate), and
    // its row parameters once that convert is lowered.
    if (row_params_[node.inputs[0]] == nullptr) {
      return unsupported(n, "its dynamically quantized input does not come from a convert node");
    }
    const GraphValue& x = graph_.values[node.inputs[0]];
    const GraphValue& y = graph_.values[node.outputs[0]];
    const GraphValue& filter = graph_.values[node.inputs[1]];
    if (x.rank != 4 || y.rank != 4 || y.dtype != Datatype::kFp32) {
      return unsupported(n, "a dynamically quantized convolution of a rank-%d value into %s", static_cast<int>(x.rank),
                         datatype_name(y.dtype));
    }
    if (uint64_t{g[12]} * g[11] > UINT32_MAX || uint64_t{g[12]} * g[10] > UINT32_MAX) {
      return unsupported(n, "its filter's shape does not match its geometry");
    }
    const int64_t kh = g[4], kw = g[5], sh = g[6], sw = g[7], dh = g[8], dw = g[9], groups = g[12];
    const int64_t gic = depthwise ? 1 : g[10], goc = g[11], ah = transposed ? g[13] : 0, aw = transposed ? g[14] : 0;
    const int64_t in_channels = groups * gic, out_channels = groups * goc;
    if (kh == 0 || kw == 0 || sh == 0 || sw == 0 || dh == 0 || dw == 0 || groups == 0 || gic == 0 || goc == 0) {
      return unsupported(n, "a zero kernel size, stride, dilation or group");
    }
    // XNNPACK runs a pointwise one as a GEMM over pixels, each quantized on its own (pixel_quantization).
    const bool pointwise = is_pointwise(node);
    if (kh == 1 && kw == 1 && !transposed && !pointwise) {
      return unsupported(n, "a dynamically quantized 1x1 convolution with stride, padding or groups");
    }
    // Filters: [O, kh, kw, I/g] (convolution and deconvolution alike), [1, kh, kw, O] depthwise.
    const int64_t want[4] = {depthwise ? 1 : out_channels, kh, kw, depthwise ? out_channels : gic};
    if (filter.rank != 4 || memcmp(filter.dims, want, sizeof want) != 0) {
      return unsupported(n, "its filter's shape does not match its geometry");
    }
    if (x.dims[3] != in_channels || y.dims[3] != out_channels || y.dims[0] != x.dims[0] || x.dims[1] == 0 ||
        x.dims[2] == 0) {
      return unsupported(n, "its channels do not match its geometry");
    }
    if (transposed && ((ah >= sh && ah >= dh) || (aw >= sw && aw >= dw))) {
      return unsupported(n, "adjustment %lld x %lld for stride %lld x %lld", static_cast<long long>(ah),
                         static_cast<long long>(aw), static_cast<long long>(sh), static_cast<long long>(sw));
    }
    // Both sides of the output size's equation, in saturating u64 (a saturated one matches no u32 dim).
    auto fits = [&](int64_t in, int64_t out, int64_t stride, int64_t dilation, int64_t kernel, int64_t pad,
                    int64_t adjust) {
      const uint64_t reach = sat_mul(static_cast<uint64_t>(dilation), static_cast<uint64_t>(kernel - 1));
      if (transposed) {
        const uint64_t span = sat_add(sat_mul(static_cast<uint64_t>(in - 1), static_cast<uint64_t>(stride)),
                                      sat_add(reach, static_cast<uint64_t>(adjust) + 1));
        return span == static_cast<uint64_t>(out) + 2 * static_cast<uint64_t>(pad);
      }
      const uint64_t padded = static_cast<uint64_t>(in) + 2 * static_cast<uint64_t>(pad);
      return out >= 1 && padded > reach && (padded - reach - 1) / static_cast<uint64_t>(stride) + 1 ==
                                                 static_cast<uint64_t>(out);
    };
    if (!fits(x.dims[1], y.dims[1], sh, dh, kh, g[0], ah) || !fits(x.dims[2], y.dims[2], sw, dw, kw, g[1], aw)) {
      return unsupported(n, "its output's size does not match its geometry");
    }
    Tensor* params = row_params_[node.inputs[0]];
    const QuantParams& q = graph_.values[node.inputs[0]].quant;
    if (pointwise) return pointwise_convolution(n, node, min, max);
    if (params == nullptr || q.kind != QuantKind::kPerTokenDynamic || q.num_nonbatch_dims != 3 ||
        params->sizes[0] != x.dims[0]) {
      return unsupported(n, "its dynamically quantized input is not quantized per image by a convert node");
    }
    const int64_t taps = kh * kw;
    Tensor *weight = nullptr, *scales = nullptr;
    Error err;
    if (transposed) {
      err = pack(node.inputs[1], n, in_channels * goc * taps,
                 [&](int64_t i) {
                   const int64_t ci = i / (goc * taps), o = (i / taps) % goc, t = i % taps;
                   return ((ci / gic * goc + o) * taps + t) * gic + ci % gic;
                 },
                 &weight);
    } else if (depthwise) {
      err = pack(node.inputs[1], n, out_channels * taps,
                 [&](int64_t i) { return (i % taps) * out_channels + i / taps; }, &weight);
    } else {
      err = pack(node.inputs[1], n, out_channels * gic * taps,
                 [&](int64_t i) { return ((i / (gic * taps)) * taps + i % taps) * gic + (i / taps) % gic; }, &weight);
    }
    if (!err.ok()) return err;
    if (filter.dtype != Datatype::kQcint8 || weight->dtype != ScalarType::kChar) {
      return unsupported(n, "its filter (value %u) is not per-channel int8", static_cast<unsigned>(node.inputs[1]));
    }
    weight->dim = 4;
    weight->sizes[0] = transposed ? in_channels : out_channels;
    weight->sizes[1] = transposed ? goc : gic;
    weight->sizes[2] = kh;
    weight->sizes[3] = kw;
    if (!(err = multipliers(node.inputs[1], n, out_channels, depthwise ? 3 : 0, 1.0f, 1.0f, &scales)).ok()) return err;
    Tensor *in = nullptr, *out = nullptr;
    Value* bias_value = nullptr;
    Step after{};
    const bool fp32_bias = node.inputs[2] == kInvalidId ||
                           (graph_.values[node.inputs[2]].dtype == Datatype::kFp32 &&
                            graph_.values[node.inputs[2]].numel() == static_cast<uint64_t>(out_channels));
    if (!fp32_bias) {
      return unsupported(n, "its bias is not fp32, one per output channel");
    }
    if (!(err = bias(node.inputs[2], n, &bias_value)).ok() || !(err = reader(node.inputs[0], true, n, &in)).ok() ||
        !(err = writer(node.outputs[0], true, n, &out, &after)).ok()) {
      return err;
    }
    // The convert wrote the image in its own storage, which must be the NCHW the kernels read.
    if (!channels_first_[node.inputs[0]]) return unsupported(n, "its quantized image is not stored channels-first");
    const int64_t stride[2] = {sh, sw}, padding[2] = {g[0], g[3]}, dilation[2] = {dh, dw}, adjustment[2] = {ah, aw};
    if (transposed) {
      Value* args[] = {tensor_value(in),    tensor_value(params), tensor_value(weight),    bias_value,
                       tensor_value(scales), int_list(stride, 2), int_list(padding, 2),    int_list(dilation, 2),
                       int_list(adjustment, 2), int_value(groups), min,                     max,
                       tensor_value(out)};
      return call(n, args, 13, after);
    }
    Value* args[] = {tensor_value(in),      tensor_value(params),  tensor_value(weight), bias_value,
                     tensor_value(scales),  int_list(stride, 2),   int_list(padding, 2), int_list(dilation, 2),
                     int_value(groups),     min,                   max,                  tensor_value(out)};
    return call(n, args, 12, after);
  }

  BackendInitContext& context_;
  const Graph& graph_;
  Plan& plan_;
  const KernelDef** kernels_ = nullptr;
  bool* channels_first_ = nullptr;
  bool* ready_ = nullptr;    // defined: its tensor has its memory
  bool* written_ = nullptr;  // some node writes it
  uint32_t* bound_ = nullptr;  // the external id whose memory it is (its own, or one it aliases)
  Tensor** row_params_ = nullptr;  // a dynamically quantized (qd8) value's per-row scale and zero point
  uint8_t* pointwise_readers_ = nullptr;  // pointwise_only()'s table, made on first use
  Tensor* tensors_ = nullptr;
  uint64_t max_steps_ = 0, max_bindings_ = 0;
  uint8_t* chunk_ = nullptr;
  uint64_t chunk_left_ = 0;
};

void relayout(const Step& step) {
  const Tensor& from = *step.from;
  Tensor& to = *step.to;
  const size_t element = element_size(from.dtype);
  int64_t from_strides[4];
  from_strides[3] = 1;
  for (int d = 2; d >= 0; --d) from_strides[d] = from_strides[d + 1] * from.sizes[d + 1];
  int64_t stride[4];
  for (int k = 0; k < 4; ++k) stride[k] = from_strides[step.perm[k]];
  const uint8_t* src = static_cast<const uint8_t*>(from.data);
  uint8_t* dst = static_cast<uint8_t*>(to.data);
  for (int64_t i0 = 0; i0 < to.sizes[0]; ++i0) {
    for (int64_t i1 = 0; i1 < to.sizes[1]; ++i1) {
      for (int64_t i2 = 0; i2 < to.sizes[2]; ++i2) {
        const int64_t base = i0 * stride[0] + i1 * stride[1] + i2 * stride[2];
        if (element == 4) {
          const float* s = reinterpret_cast<const float*>(src) + base;
          float* d = reinterpret_cast<float*>(dst);
          for (int64_t i3 = 0; i3 < to.sizes[3]; ++i3) d[i3] = s[i3 * stride[3]];
        } else if (element == 1) {  // int8 images: a byte copy, not a memcpy call per element
          const uint8_t* s = src + base;
          for (int64_t i3 = 0; i3 < to.sizes[3]; ++i3) dst[i3] = s[i3 * stride[3]];
        } else {
          for (int64_t i3 = 0; i3 < to.sizes[3]; ++i3) {
            memcpy(dst + i3 * static_cast<int64_t>(element),
                   src + (base + i3 * stride[3]) * static_cast<int64_t>(element), element);
          }
        }
        dst += to.sizes[3] * static_cast<int64_t>(element);
      }
    }
  }
}

}  // namespace

Error compile_plan(BackendInitContext& context, const Graph& graph, Plan* plan) {
  Compiler compiler(context, graph, plan);
  return compiler.compile();
}

Error run_plan(const Plan& plan, const BackendExecutionContext& context, Args args) {
  const Graph& graph = *plan.graph;
  const uint32_t externals = graph.num_inputs + graph.num_outputs;
  if (args.size() != externals) {
    return Error::make(ErrorCode::kInvalidArgument,
                       "the call passes %zu values, the XNNPACK graph has %u inputs and %u outputs", args.size(),
                       static_cast<unsigned>(graph.num_inputs), static_cast<unsigned>(graph.num_outputs));
  }
  for (uint32_t e = 0; e < externals; ++e) {
    const GraphValue& value = graph.values[graph.external_values[e]];
    if (!args[e]->is_tensor()) {
      return Error::make(ErrorCode::kInvalidArgument, "delegate value %u is not a tensor", static_cast<unsigned>(e));
    }
    Tensor& t = *args[e]->as_tensor;
    const bool handled =
        value.dtype == Datatype::kFp32 || value.dtype == Datatype::kQint8 || value.dtype == Datatype::kFp16;
    if (t.dtype != Compiler::scalar_type(value.dtype) || !handled) {
      return Error::make(ErrorCode::kInvalidArgument,
                         "delegate value %u is a %s tensor, the XNNPACK graph has a %s one", static_cast<unsigned>(e),
                         scalar_type_name(t.dtype), datatype_name(value.dtype));
    }
    if (e >= graph.num_inputs && ((context.constant_args >> e) & 1)) {
      return Error::make(ErrorCode::kInvalidArgument, "delegate output %u is the program's constant data",
                         static_cast<unsigned>(e - graph.num_inputs));
    }
  }
  // The inputs' shapes (XNNPACK reads a call's tensors in their memory order): every value's dims
  // follow them, within their bounds.
  Error shaped = reshape_plan(plan, args);
  if (!shaped.ok()) return shaped;
  // Outputs take the shapes the plan derived, as ExecuTorch resizes them; the exporter may give a
  // scalar rank 1: an output of another rank fits its value when the dims larger than 1 agree.
  for (uint32_t e = graph.num_inputs; e < externals; ++e) {
    const uint32_t v = graph.external_values[e];
    const GraphValue& value = graph.values[v];
    const int64_t* dims = plan.shapes.dims[v].d;
    Tensor& t = *args[e]->as_tensor;
    int64_t logical[kMaxDims];
    if (t.dim == value.rank) {
      for (int32_t j = 0; j < value.rank; ++j) logical[t.dim_order[j]] = dims[j];
      Error err = resize(t, logical, value.rank);
      if (!err.ok()) {
        return Error::make(err.code(), "delegate output %u: %s", static_cast<unsigned>(e - graph.num_inputs),
                           err.message());
      }
      continue;
    }
    int32_t a = 0, b = 0;
    bool fits = true;
    while (fits) {
      while (a < t.dim && t.sizes[t.dim_order[a]] == 1) ++a;
      while (b < value.rank && dims[b] == 1) ++b;
      if (a == t.dim || b == value.rank) {
        fits = a == t.dim && b == value.rank;
        break;
      }
      fits = t.sizes[t.dim_order[a++]] == dims[b++];
    }
    if (!fits) {
      char got[64], want[64];
      format_shape(got, sizeof got, t.sizes, t.dim);
      format_shape(want, sizeof want, dims, value.rank);
      return Error::make(ErrorCode::kInvalidArgument,
                         "delegate value %u has shape %s, its XNNPACK graph was built for %s (in memory order)",
                         static_cast<unsigned>(e), got, want);
    }
  }
  for (uint32_t b = 0; b < plan.num_bindings; ++b) {
    plan.bindings[b].tensor->data = args[plan.bindings[b].external_id]->as_tensor->data;
  }
  for (uint32_t s = 0; s < plan.num_steps; ++s) {
    const Step& step = plan.steps[s];
    if (step.kernel == nullptr) {
      relayout(step);
      continue;
    }
    Error err = invoke(*context.registry, context.trace, *step.kernel, nullptr, Args(step.args, step.num_args),
                       step.callees, context.threads);
    if (!err.ok()) {
      return Error::make(err.code(), "XNNPACK node %u (%s): %s", static_cast<unsigned>(step.node), step.kernel->op,
                         err.message());
    }
  }
  return Error();
}

}  // namespace sb::xnnpack
