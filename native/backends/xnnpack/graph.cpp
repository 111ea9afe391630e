#include "graph.h"

#include <cinttypes>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <new>

#include "sb/checked.h"
#include "sb/flatbuffer.h"

namespace sb::xnnpack {
namespace {

// schema.fbs field numbers (a union takes two: its type, then its table).
namespace xgraph {
constexpr int kXNodes = 1, kXValues = 2, kNumExterns = 3, kConstantBuffer = 6, kConstantData = 8;
}
namespace xnode {
constexpr int kUnionType = 0, kUnion = 1, kDebugHandle = 2, kOutputMinMax = 3;
}
namespace xvalue {
constexpr int kUnionType = 0, kUnion = 1;
constexpr uint8_t kTensor = 1, kQuantizedTensor = 2;
}
namespace tensor_value {
constexpr int kDatatype = 0, kDims = 2, kConstantBufferIdx = 3, kExternalId = 4, kFlags = 5, kIdOut = 6,
              kDqDatatype = 7;
}
namespace quantized_value {
constexpr int kTensorValue = 0, kParamsType = 1, kParams = 2;
}
namespace constant_data {
constexpr int kOffset = 0, kSize = 1, kNamedKey = 2;
}

constexpr size_t kHeaderBytes = 30;  // XNNHeader: 4 bytes, "XH00", u16 length, u32 x3, u64
constexpr uint32_t kMaxValues = 1u << 20;
constexpr uint32_t kMaxNodes = 1u << 20;
constexpr uint32_t kMaxExterns = 4096;  // as ExecuTorch's runtime bounds num_externs
constexpr uint64_t kMaxElements = uint64_t{1} << 40;

Error bad(const char* format, ...) __attribute__((format(printf, 1, 2)));
Error bad(const char* format, ...) {
  char message[160];
  va_list ap;
  va_start(ap, format);
  vsnprintf(message, sizeof message, format, ap);
  va_end(ap);
  return Error::make(ErrorCode::kInvalidProgram, "invalid XNNPACK payload: %s", message);
}

uint64_t read_le(const uint8_t* p, int bytes) {
  uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

// Bytes a value of `count` elements of `dtype` holds (4-bit types pack two a byte).
uint64_t storage_bytes(Datatype dtype, uint64_t count) {
  switch (dtype) {
    case Datatype::kFp32:
    case Datatype::kQint32:
    case Datatype::kQcint32:
    case Datatype::kInt32:
    case Datatype::kPfp32:
      return sat_mul(count, 4);
    case Datatype::kFp16:
    case Datatype::kBf16:
      return sat_mul(count, 2);
    case Datatype::kQcint4:
    case Datatype::kQbint4:
      return count / 2 + count % 2;
    default:
      return count;
  }
}

// The payload's regions, from its header (or the whole payload as the graph,
// the format before the header existed).
struct Regions {
  const uint8_t* graph;
  uint64_t graph_bytes;
  const uint8_t* constants;
  uint64_t constant_bytes;
};

Result<Regions> regions(Span<const uint8_t> payload) {
  const uint8_t* p = payload.data();
  if (payload.size() >= 8 && memcmp(p + 4, "XH00", 4) == 0) {
    if (payload.size() < kHeaderBytes) return bad("the %zu-byte payload is shorter than its header", payload.size());
    const uint64_t length = read_le(p + 8, 2), graph_at = read_le(p + 10, 4), graph_bytes = read_le(p + 14, 4);
    const uint64_t constants_at = read_le(p + 18, 4), constant_bytes = read_le(p + 22, 8);
    if (length < kHeaderBytes) {
      return bad("header length %llu is below %zu", static_cast<unsigned long long>(length), kHeaderBytes);
    }
    if (sat_add(graph_at, graph_bytes) > payload.size() || sat_add(constants_at, constant_bytes) > payload.size()) {
      return bad("the header's regions lie past the %zu-byte payload", payload.size());
    }
    return Regions{p + graph_at, graph_bytes, p + constants_at, constant_bytes};
  }
  return Regions{p, payload.size(), nullptr, 0};
}

class Parser {
 public:
  Parser(BackendInitContext& context, const Regions& regions, Graph* graph)
      : context_(context), regions_(regions), r_(regions.graph, regions.graph_bytes), graph_(*graph) {}

  Error parse() {
    if (regions_.graph_bytes < 8 ||
        (memcmp(regions_.graph + 4, "XN01", 4) != 0 && memcmp(regions_.graph + 4, "XN00", 4) != 0)) {
      return bad("the graph is not an XNNGraph flatbuffer (identifier XN00 or XN01)");
    }
    root_ = r_.root();
    const fb::Vector values = r_.vector(root_, xgraph::kXValues, 4);
    const fb::Vector nodes = r_.vector(root_, xgraph::kXNodes, 4);
    const uint32_t num_externs = r_.scalar<uint32_t>(root_, xgraph::kNumExterns, 0);
    if (r_.failed() || !root_.present) return bad("the graph's tables lie out of bounds");
    if (values.length > kMaxValues || nodes.length > kMaxNodes) {
      return bad("more values or nodes than a graph can hold");
    }
    if (num_externs > kMaxExterns) {
      return bad("%u external values (at most %u)", static_cast<unsigned>(num_externs),
                 static_cast<unsigned>(kMaxExterns));
    }

    Error err;
    if (!(err = allocate(&graph_.values, values.length, "the XNNPACK values")).ok()) return err;
    if (!(err = allocate(&graph_.nodes, nodes.length, "the XNNPACK nodes")).ok()) return err;
    if (!(err = allocate(&graph_.external_values, num_externs, "the XNNPACK externals")).ok()) return err;
    graph_.num_values = values.length;
    graph_.num_nodes = nodes.length;
    for (uint32_t i = 0; i < num_externs; ++i) graph_.external_values[i] = kInvalidId;
    num_externs_ = num_externs;

    bool* seen = nullptr;
    if (!(err = allocate(&seen, values.length, "the XNNPACK value ids")).ok()) return err;
    for (uint32_t i = 0; i < values.length; ++i) {
      if (!(err = read_value(r_.table_element(values, i), i, seen)).ok()) return err;
    }
    if (!(err = check_externals()).ok()) return err;
    for (uint32_t i = 0; i < nodes.length; ++i) {
      if (!(err = read_node(r_.table_element(nodes, i), i)).ok()) return err;
      take_converted_dims(graph_.nodes[i]);
    }
    return Error();
  }

 private:
  // ExecuTorch 1.5 may declare a dynamically quantized (qd8) image NCHW while the convert writing it reads
  // an NHWC one. XNNPACK takes the value's shape from its convert (shapes propagate at run time); so does
  // this graph: the value gets the input's dims, in which every reader's geometry then holds.
  void take_converted_dims(const GraphNode& node) {
    if (node.type != NodeType::kConvert) return;
    const GraphValue& x = graph_.values[node.inputs[0]];
    GraphValue& y = graph_.values[node.outputs[0]];
    const bool channels_first = x.rank == 4 && y.rank == 4 && y.dims[0] == x.dims[0] && y.dims[1] == x.dims[3] &&
                                y.dims[2] == x.dims[1] && y.dims[3] == x.dims[2];
    if (y.dtype == Datatype::kQdint8 && y.flags == 0 && channels_first) {
      for (int32_t d = 0; d < 4; ++d) y.dims[d] = x.dims[d];
    }
  }

  template <typename T>
  Error allocate(T** out, uint64_t count, const char* what) {
    *out = nullptr;
    if (count == 0) return Error();
    Result<void*> memory = context_.allocate(sat_mul(count, sizeof(T)), what);
    if (!memory.ok()) return memory.error;
    *out = static_cast<T*>(memory.value);
    for (uint64_t i = 0; i < count; ++i) new (&(*out)[i]) T();
    return Error();
  }

  Error read_value(const fb::Table& xvalue, uint32_t index, bool* seen) {
    const uint8_t kind = r_.scalar<uint8_t>(xvalue, xvalue::kUnionType, 0);
    const fb::Table body = r_.table(xvalue, xvalue::kUnion);
    if (r_.failed() || !body.present) return bad("value %u lies out of bounds", static_cast<unsigned>(index));
    fb::Table tensor = body;
    QuantParams quant;
    if (kind == xvalue::kQuantizedTensor) {
      tensor = r_.table(body, quantized_value::kTensorValue);
      Error err = read_quant(body, index, &quant);
      if (!err.ok()) return err;
    } else if (kind != xvalue::kTensor) {
      return bad("value %u has unknown kind %u", static_cast<unsigned>(index), static_cast<unsigned>(kind));
    }
    const int16_t dtype = r_.scalar<int16_t>(tensor, tensor_value::kDatatype, 0);
    const fb::Vector dims = r_.vector(tensor, tensor_value::kDims, 4);
    const uint32_t buffer = r_.scalar<uint32_t>(tensor, tensor_value::kConstantBufferIdx, 0);
    const uint32_t external_id = r_.scalar<uint32_t>(tensor, tensor_value::kExternalId, 0);
    const uint32_t flags = r_.scalar<uint32_t>(tensor, tensor_value::kFlags, 0);
    const uint32_t id = r_.scalar<uint32_t>(tensor, tensor_value::kIdOut, 0);
    const int16_t dq_dtype = r_.scalar<int16_t>(tensor, tensor_value::kDqDatatype, 0);
    if (r_.failed() || !tensor.present) return bad("value %u lies out of bounds", static_cast<unsigned>(index));
    // Values are numbered as ExecuTorch's serializer defines them: each id once.
    if (id >= graph_.num_values || seen[id]) {
      return bad("value %u has id %u, out of range or repeated", static_cast<unsigned>(index),
                 static_cast<unsigned>(id));
    }
    seen[id] = true;
    GraphValue& v = graph_.values[id];
    if (dtype <= 0 || dtype >= kNumDatatypes) {
      return bad("value %u has unknown datatype %d", static_cast<unsigned>(id), static_cast<int>(dtype));
    }
    if (dq_dtype != 0) {
      return bad("value %u is quantized by dq_datatype, a format older than ExecuTorch 1.0", static_cast<unsigned>(id));
    }
    if (dims.length > kMaxRank) {
      return bad("value %u has %u dims (at most %d)", static_cast<unsigned>(id), static_cast<unsigned>(dims.length),
                 static_cast<int>(kMaxRank));
    }
    if ((flags & ~(kExternalInput | kExternalOutput)) != 0 || flags == (kExternalInput | kExternalOutput)) {
      return bad("value %u has flags 0x%x", static_cast<unsigned>(id), static_cast<unsigned>(flags));
    }
    v.dtype = static_cast<Datatype>(dtype);
    v.rank = static_cast<int32_t>(dims.length);
    // The bound counts a zero dim as 1: a tensor with none of its elements still
    // has dims the planner multiplies together (filter taps, channels by groups).
    uint64_t numel = 1, extent = 1;
    for (uint32_t d = 0; d < dims.length; ++d) {
      v.dims[d] = r_.element<uint32_t>(dims, d);
      numel = sat_mul(numel, static_cast<uint64_t>(v.dims[d]));
      extent = sat_mul(extent, v.dims[d] == 0 ? 1 : static_cast<uint64_t>(v.dims[d]));
    }
    if (extent > kMaxElements) {
      return bad("value %u has more elements than a tensor can hold", static_cast<unsigned>(id));
    }
    v.flags = flags;
    v.quant = quant;
    if (flags != 0) {
      if (external_id >= num_externs_ || graph_.external_values[external_id] != kInvalidId) {
        return bad("value %u has external id %u, out of range or repeated", static_cast<unsigned>(id),
                   static_cast<unsigned>(external_id));
      }
      graph_.external_values[external_id] = id;
      v.external_id = external_id;
      (flags & kExternalInput ? graph_.num_inputs : graph_.num_outputs) += 1;
    }
    if (buffer != 0) {
      if (flags != 0) return bad("value %u is both constant and external", static_cast<unsigned>(id));
      Error err = constant(buffer, id, &v.constant, &v.constant_bytes);
      if (!err.ok()) return err;
      if (v.constant_bytes < storage_bytes(v.dtype, numel)) {
        return bad("constant value %u holds %llu bytes, its %llu elements need %llu", static_cast<unsigned>(id),
                   static_cast<unsigned long long>(v.constant_bytes), static_cast<unsigned long long>(numel),
                   static_cast<unsigned long long>(storage_bytes(v.dtype, numel)));
      }
    }
    return check_quant(v, id);
  }

  Error read_quant(const fb::Table& body, uint32_t index, QuantParams* q) {
    const uint8_t type = r_.scalar<uint8_t>(body, quantized_value::kParamsType, 0);
    const fb::Table params = r_.table(body, quantized_value::kParams);
    if (r_.failed() || !params.present) {
      return bad("value %u's quantization lies out of bounds", static_cast<unsigned>(index));
    }
    switch (type) {
      case 1: {  // PerChannelQuant: scale, channel_dim, scale_buffer_idx, num_scales
        q->kind = QuantKind::kPerChannel;
        return read_scales(params, 0, 1, 2, 3, index, q);
      }
      case 2:  // PerTensorQuant: scale, zero_point
        q->kind = QuantKind::kPerTensor;
        q->scale = r_.scalar<float>(params, 0, 0.0f);
        q->zero_point = r_.scalar<int32_t>(params, 1, 0);
        break;
      case 3:  // PerTokenDynamicQuant: num_nonbatch_dims
        q->kind = QuantKind::kPerTokenDynamic;
        q->num_nonbatch_dims = r_.scalar<int32_t>(params, 0, 0);
        break;
      case 4: {  // PerChannelGroupQuant: scale, channel_dim, group_size, (deprecated), scale_buffer_idx, num_scales
        q->kind = QuantKind::kPerChannelGroup;
        q->group_size = r_.scalar<int32_t>(params, 2, 0);
        return read_scales(params, 0, 1, 4, 5, index, q);
      }
      default:
        return bad("value %u has unknown quantization kind %u", static_cast<unsigned>(index),
                   static_cast<unsigned>(type));
    }
    if (r_.failed()) return bad("value %u's quantization lies out of bounds", static_cast<unsigned>(index));
    return Error();
  }

  // Per-channel scales: inline floats, or a constant buffer (bf16 for groups).
  Error read_scales(const fb::Table& params, int scale_field, int dim_field, int buffer_field, int count_field,
                    uint32_t index, QuantParams* q) {
    const fb::Vector scales = r_.vector(params, scale_field, 4);
    q->channel_dim = r_.scalar<int32_t>(params, dim_field, 0);
    const uint32_t buffer = r_.scalar<uint32_t>(params, buffer_field, 0);
    const uint32_t count = r_.scalar<uint32_t>(params, count_field, 0);
    if (r_.failed()) return bad("value %u's quantization lies out of bounds", static_cast<unsigned>(index));
    if (buffer == 0) {
      q->scales = r_.bytes(scales);
      q->num_scales = scales.length;
      return Error();
    }
    uint64_t bytes = 0;
    Error err = constant(buffer, index, &q->scales, &bytes);
    if (!err.ok()) return err;
    q->scales_bf16 = q->kind == QuantKind::kPerChannelGroup;
    if (sat_mul(count, q->scales_bf16 ? 2 : 4) > bytes) {
      return bad("value %u's scale buffer is shorter than its %u scales", static_cast<unsigned>(index),
                 static_cast<unsigned>(count));
    }
    q->num_scales = count;
    return Error();
  }

  // Quantization parameters a kernel can use: finite positive scales, one
  // scale per channel or group, channel dims in range.
  Error check_quant(const GraphValue& v, uint32_t id) {
    const QuantParams& q = v.quant;
    if (q.kind == QuantKind::kPerTensor && !(q.scale > 0 && std::isfinite(q.scale))) {
      return bad("value %u has quantization scale %g", static_cast<unsigned>(id), static_cast<double>(q.scale));
    }
    if (q.kind == QuantKind::kPerTensor && (q.zero_point < -128 || q.zero_point > 255)) {
      return bad("value %u has zero point %d", static_cast<unsigned>(id), static_cast<int>(q.zero_point));
    }
    if (q.kind == QuantKind::kPerChannel || q.kind == QuantKind::kPerChannelGroup) {
      if (q.channel_dim < 0 || q.channel_dim >= v.rank) {
        return bad("value %u quantizes along dim %d of %d", static_cast<unsigned>(id), static_cast<int>(q.channel_dim),
                   static_cast<int>(v.rank));
      }
      uint64_t expected = static_cast<uint64_t>(v.dims[q.channel_dim]);
      if (q.kind == QuantKind::kPerChannelGroup) {
        if (v.rank != 2 || q.group_size <= 0 || v.dims[1] % q.group_size != 0) {
          return bad("value %u has group size %d", static_cast<unsigned>(id), static_cast<int>(q.group_size));
        }
        expected = static_cast<uint64_t>(v.dims[0]) * static_cast<uint64_t>(v.dims[1] / q.group_size);
      }
      if (q.num_scales != expected) {
        return bad("value %u has %u scales, its channels need %llu", static_cast<unsigned>(id),
                   static_cast<unsigned>(q.num_scales), static_cast<unsigned long long>(expected));
      }
      for (uint32_t i = 0; i < q.num_scales && !q.scales_bf16; ++i) {
        float s;
        memcpy(&s, q.scales + 4 * i, 4);
        if (!(s > 0 && std::isfinite(s))) {
          return bad("value %u has quantization scale %g (channel %u)", static_cast<unsigned>(id),
                     static_cast<double>(s), static_cast<unsigned>(i));
        }
      }
    }
    if (q.kind == QuantKind::kPerTokenDynamic && (q.num_nonbatch_dims < 1 || q.num_nonbatch_dims > v.rank)) {
      return bad("value %u has %d non-batch dims", static_cast<unsigned>(id), static_cast<int>(q.num_nonbatch_dims));
    }
    return Error();
  }

  // Constant `index`: at an offset of the payload's constant data, under a
  // key of the program's named data, or (the older format) inside the graph.
  Error constant(uint32_t index, uint32_t value, const uint8_t** data, uint64_t* bytes) {
    const fb::Vector offsets = r_.vector(root_, xgraph::kConstantData, 4);
    if (offsets.length == 0) {
      const fb::Vector buffers = r_.vector(root_, xgraph::kConstantBuffer, 4);
      if (index >= buffers.length) {
        return bad("value %u names constant %u of %u", static_cast<unsigned>(value), static_cast<unsigned>(index),
                   static_cast<unsigned>(buffers.length));
      }
      const fb::Vector storage = r_.vector(r_.table_element(buffers, index), 0, 1);
      if (r_.failed()) return bad("constant %u lies out of bounds", static_cast<unsigned>(index));
      *data = r_.bytes(storage);
      *bytes = storage.length;
      return Error();
    }
    if (index >= offsets.length) {
      return bad("value %u names constant %u of %u", static_cast<unsigned>(value), static_cast<unsigned>(index),
                 static_cast<unsigned>(offsets.length));
    }
    const fb::Table entry = r_.table_element(offsets, index);
    const uint64_t offset = r_.scalar<uint64_t>(entry, constant_data::kOffset, 0);
    const uint64_t size = r_.scalar<uint64_t>(entry, constant_data::kSize, 0);
    const fb::String key = r_.string(entry, constant_data::kNamedKey);
    if (r_.failed()) return bad("constant %u lies out of bounds", static_cast<unsigned>(index));
    if (key.length > 0) {
      Result<Span<const uint8_t>> named = context_.named_data().get(Span<const char>(key.data, key.length));
      if (!named.ok()) return named.error;
      if (named.value.size() < size) {
        return bad("named data for constant %u is shorter than its %llu bytes", static_cast<unsigned>(index),
                   static_cast<unsigned long long>(size));
      }
      *data = named.value.data();
      *bytes = size;
      return Error();
    }
    if (sat_add(offset, size) > regions_.constant_bytes) {
      return bad("constant %u (%llu bytes at %llu) lies past the %llu bytes of constant data",
                 static_cast<unsigned>(index), static_cast<unsigned long long>(size),
                 static_cast<unsigned long long>(offset), static_cast<unsigned long long>(regions_.constant_bytes));
    }
    *data = regions_.constants + offset;
    *bytes = size;
    return Error();
  }

  Error check_externals() {
    if (graph_.num_inputs + graph_.num_outputs != num_externs_) {
      return bad("%u external values are declared, %u are flagged", static_cast<unsigned>(num_externs_),
                 static_cast<unsigned>(graph_.num_inputs + graph_.num_outputs));
    }
    // Inputs take the first external ids, outputs the rest (the delegate
    // call passes its inputs, then its outputs).
    for (uint32_t e = 0; e < num_externs_; ++e) {
      const bool input = graph_.values[graph_.external_values[e]].flags & kExternalInput;
      if (input != (e < graph_.num_inputs)) return bad("external id %u is out of order", static_cast<unsigned>(e));
    }
    return Error();
  }

  // Value id `id` of node `n`: present (or, where allowed, kInvalidId).
  Error value_id(uint32_t id, uint32_t n, bool optional, uint32_t* out) {
    if (id == kInvalidId && optional) {
      *out = id;
      return Error();
    }
    if (id >= graph_.num_values) {
      return bad("node %u refers to value %u of %u", static_cast<unsigned>(n), static_cast<unsigned>(id),
                 static_cast<unsigned>(graph_.num_values));
    }
    *out = id;
    return Error();
  }

  Error ids(const fb::Table& t, uint32_t n, const int* input_fields, int num_inputs, const int* output_fields,
            int num_outputs, int optional_input, GraphNode* node) {
    Error err;
    for (int i = 0; i < num_inputs; ++i) {
      const uint32_t id = r_.scalar<uint32_t>(t, input_fields[i], 0);
      if (!(err = value_id(id, n, i == optional_input, &node->inputs[i])).ok()) return err;
    }
    for (int i = 0; i < num_outputs; ++i) {
      const uint32_t id = r_.scalar<uint32_t>(t, output_fields[i], 0);
      if (!(err = value_id(id, n, false, &node->outputs[i])).ok()) return err;
      if (graph_.values[id].constant != nullptr) {
        return bad("node %u writes constant value %u", static_cast<unsigned>(n), static_cast<unsigned>(id));
      }
    }
    node->num_inputs = num_inputs;
    node->num_outputs = num_outputs;
    return Error();
  }

  Error list(const fb::Table& t, int field, int slot, uint32_t n, GraphNode* node) {
    const fb::Vector v = r_.vector(t, field, 4);
    if (r_.failed()) return bad("node %u lies out of bounds", static_cast<unsigned>(n));
    if (v.length > kMaxRank || (slot == 1 && v.length != static_cast<uint32_t>(node->list_size))) {
      return bad("node %u has a list of %u dims", static_cast<unsigned>(n), static_cast<unsigned>(v.length));
    }
    node->list_size = static_cast<int32_t>(v.length);
    for (uint32_t i = 0; i < v.length; ++i) node->list[slot][i] = r_.element<uint32_t>(v, i);
    return Error();
  }

  Error read_node(const fb::Table& xnode, uint32_t n) {
    GraphNode& node = graph_.nodes[n];
    const uint8_t type = r_.scalar<uint8_t>(xnode, xnode::kUnionType, 0);
    const fb::Table t = r_.table(xnode, xnode::kUnion);
    node.debug_handle = r_.scalar<uint32_t>(xnode, xnode::kDebugHandle, 0);
    const fb::Table min_max = r_.table(xnode, xnode::kOutputMinMax);
    node.output_min = min_max.present ? r_.scalar<float>(min_max, 0, 0.0f) : -INFINITY;
    node.output_max = min_max.present ? r_.scalar<float>(min_max, 1, 0.0f) : INFINITY;
    if (r_.failed() || !t.present) return bad("node %u lies out of bounds", static_cast<unsigned>(n));
    if (type == 0 || type >= kNumNodeTypes) {
      return bad("node %u has unknown kind %u", static_cast<unsigned>(n), static_cast<unsigned>(type));
    }
    if (std::isnan(node.output_min) || std::isnan(node.output_max) || node.output_min > node.output_max) {
      return bad("node %u clamps its output to [%g, %g]", static_cast<unsigned>(n),
                 static_cast<double>(node.output_min), static_cast<double>(node.output_max));
    }
    node.type = static_cast<NodeType>(type);
    static constexpr int k0[] = {0}, k1[] = {1}, k2[] = {2}, k3[] = {3}, k4[] = {4}, k01[] = {0, 1};
    Error err;
    switch (node.type) {
      // _XNNNode2x1: input1, input2, output, flags
      case NodeType::kAdd: case NodeType::kSubtract: case NodeType::kMultiply: case NodeType::kDiv:
      case NodeType::kMinimum: case NodeType::kMaximum: case NodeType::kPReLU: case NodeType::kBatchMatrixMultiply:
        err = ids(t, n, k01, 2, k2, 1, -1, &node);
        node.flags = r_.scalar<uint32_t>(t, 3, 0);
        break;
      // XNNFullyConnected: input1, filter, bias, output, flags
      case NodeType::kFullyConnected: {
        static constexpr int in[] = {0, 1, 2};
        err = ids(t, n, in, 3, k3, 1, 2, &node);
        node.flags = r_.scalar<uint32_t>(t, 4, 0);
        break;
      }
      // _XNNNodeConv: 15 geometry fields, input1, filter, bias, output, flags
      case NodeType::kConv2d: case NodeType::kDepthwiseConv2d: case NodeType::kConvTranspose2d: {
        static constexpr int in[] = {15, 16, 17}, out[] = {18};
        for (int g = 0; g < 15; ++g) node.geometry[g] = r_.scalar<uint32_t>(t, g, 0);
        err = ids(t, n, in, 3, out, 1, 2, &node);
        node.flags = r_.scalar<uint32_t>(t, 19, 0);
        break;
      }
      // _XNNPooling2D: 10 geometry fields, input, output, flags
      case NodeType::kAvgPooling2d: case NodeType::kMaxPooling2d: {
        static constexpr int in[] = {10}, out[] = {11};
        for (int g = 0; g < 10; ++g) node.geometry[g] = r_.scalar<uint32_t>(t, g, 0);
        err = ids(t, n, in, 1, out, 1, -1, &node);
        node.flags = r_.scalar<uint32_t>(t, 12, 0);
        break;
      }
      // XNNArgMaxPooling2d: 4 paddings, pooling height, width, input, value, index, flags
      case NodeType::kArgMaxPooling2d: {
        static constexpr int in[] = {6}, out[] = {7, 8};
        for (int g = 0; g < 6; ++g) node.geometry[g] = r_.scalar<uint32_t>(t, g, 0);
        err = ids(t, n, in, 1, out, 2, -1, &node);
        node.flags = r_.scalar<uint32_t>(t, 9, 0);
        break;
      }
      // XNNStaticTranspose / XNNStaticReshape: num_dims, list, input, output, flags
      case NodeType::kStaticTranspose: case NodeType::kStaticReshape:
        if ((err = list(t, 1, 0, n, &node)).ok()) err = ids(t, n, k2, 1, k3, 1, -1, &node);
        node.flags = r_.scalar<uint32_t>(t, 4, 0);
        break;
      // XNNStaticSlice: num_dims, offsets, sizes, input, output, flags
      case NodeType::kStaticSlice:
        if ((err = list(t, 1, 0, n, &node)).ok() && (err = list(t, 2, 1, n, &node)).ok()) {
          err = ids(t, n, k3, 1, k4, 1, -1, &node);
        }
        node.flags = r_.scalar<uint32_t>(t, 5, 0);
        break;
      // XNNStaticConstantPad: pre, post, padding value, input, output, flags
      case NodeType::kStaticConstantPad:
        if ((err = list(t, 0, 0, n, &node)).ok() && (err = list(t, 1, 1, n, &node)).ok()) {
          err = ids(t, n, k3, 1, k4, 1, -1, &node);
        }
        node.scalar = r_.scalar<float>(t, 2, 0.0f);
        node.flags = r_.scalar<uint32_t>(t, 5, 0);
        break;
      // XNNStaticResizeBilinear2D: new height, new width, input, output, flags
      case NodeType::kStaticResizeBilinear2D:
        node.list_size = 2;
        node.list[0][0] = r_.scalar<uint32_t>(t, 0, 0);
        node.list[0][1] = r_.scalar<uint32_t>(t, 1, 0);
        err = ids(t, n, k2, 1, k3, 1, -1, &node);
        node.flags = r_.scalar<uint32_t>(t, 4, 0);
        break;
      // _XNNCat: axis, input1..4, output, flags, input5
      case NodeType::kConcatenate2: case NodeType::kConcatenate3: case NodeType::kConcatenate4:
      case NodeType::kConcatenate5: {
        static constexpr int in[] = {1, 2, 3, 4, 7}, out[] = {5};
        const int first = static_cast<int>(NodeType::kConcatenate2);
        const int count = node.type == NodeType::kConcatenate5 ? 5 : static_cast<int>(type) - first + 2;
        node.list_size = 1;
        node.list[0][0] = r_.scalar<uint32_t>(t, 0, 0);
        err = ids(t, n, in, count, out, 1, -1, &node);
        node.flags = r_.scalar<uint32_t>(t, 6, 0);
        break;
      }
      // XNNELU / XNNLeakyReLU: a float, input, output, flags
      case NodeType::kELU: case NodeType::kLeakyReLU:
        node.scalar = r_.scalar<float>(t, 0, 0.0f);
        err = ids(t, n, k1, 1, k2, 1, -1, &node);
        node.flags = r_.scalar<uint32_t>(t, 3, 0);
        break;
      // XNNScaledDotProductAttention: query, key, value, scale, mask, output, flags
      case NodeType::kScaledDotProductAttention: {
        static constexpr int in[] = {0, 1, 2, 3, 4}, out[] = {5};
        err = ids(t, n, in, 5, out, 1, -1, &node);
        node.flags = r_.scalar<uint32_t>(t, 6, 0);
        break;
      }
      // _XNNNode1x1: input, output, flags
      default:
        err = ids(t, n, k0, 1, k1, 1, -1, &node);
        node.flags = r_.scalar<uint32_t>(t, 2, 0);
        break;
    }
    if (!err.ok()) return err;
    if (r_.failed()) return bad("node %u lies out of bounds", static_cast<unsigned>(n));
    return Error();
  }

  BackendInitContext& context_;
  const Regions& regions_;
  fb::Reader r_;
  Graph& graph_;
  fb::Table root_;
  uint32_t num_externs_ = 0;
};

constexpr const char* kDatatypeNames[kNumDatatypes] = {"invalid", "f32", "f16", "qs8", "qu8", "qs32", "qc8", "qc32",
                                                      "qc4", "qd8", "qb4", "qp8", "s32", "pf32", "bf16"};

}  // namespace

uint64_t GraphValue::numel() const {
  uint64_t n = 1;
  for (int32_t d = 0; d < rank; ++d) n = sat_mul(n, static_cast<uint64_t>(dims[d]));
  return n;
}

const char* datatype_name(Datatype dtype) {
  return static_cast<uint8_t>(dtype) < kNumDatatypes ? kDatatypeNames[static_cast<uint8_t>(dtype)] : "invalid";
}

Error parse_graph(BackendInitContext& context, Span<const uint8_t> payload, Graph* graph) {
  Result<Regions> found = regions(payload);
  if (!found.ok()) return found.error;
  Parser parser(context, found.value, graph);
  return parser.parse();
}

void node_kind(const Graph& graph, const GraphNode& node, char* buf, size_t cap) {
  const GraphValue& in = graph.values[node.inputs[0]];
  const GraphValue& out = graph.values[node.outputs[0]];
  const char* name = node_type_name(node.type);
  switch (node.type) {
    case NodeType::kConvert:
      snprintf(buf, cap, "%s.%s_%s", name, datatype_name(in.dtype), datatype_name(out.dtype));
      return;
    case NodeType::kConv2d: case NodeType::kDepthwiseConv2d: case NodeType::kConvTranspose2d:
    case NodeType::kFullyConnected: {
      const GraphValue& filter = graph.values[node.inputs[1]];
      if (filter.dtype != in.dtype) {
        snprintf(buf, cap, "%s.%s_%sw", name, datatype_name(in.dtype), datatype_name(filter.dtype));
        return;
      }
      break;
    }
    default:
      break;
  }
  snprintf(buf, cap, "%s.%s", name, datatype_name(in.dtype));
}

}  // namespace sb::xnnpack
