// The XNNPACK delegate's payload, read and checked: what ExecuTorch 1.5's
// XNNPACK preprocess writes (backends/xnnpack/serialization/schema.fbs).
//
// The payload is a 30-byte header, then an XNNGraph flatbuffer (identifier
// XN00 or XN01), then the constant data the graph's ConstantDataOffsets point
// into (or keys of the program's named data, where ExecuTorch 1.5 keeps the
// weights). The graph lists values (tensors: datatype, dims in XNNPACK's
// order, NHWC for images, an optional constant, quantization parameters,
// whether the delegate call passes it in or out) and nodes over them.
//
// parse_graph() reads all of it once, at init, into plain structs in the
// backend's init memory and checks every offset, id, rank and count, so the
// planner and the kernels never see a bad one: each problem is one error line.
#pragma once

#include <cstddef>
#include <cstdint>

#include "sb/backend.h"
#include "sb/error.h"
#include "sb/span.h"

namespace sb::xnnpack {

// schema.fbs XNNDatatype, in its numbering.
enum class Datatype : uint8_t {
  kInvalid = 0,
  kFp32 = 1,
  kFp16 = 2,
  kQint8 = 3,
  kQuint8 = 4,
  kQint32 = 5,
  kQcint8 = 6,
  kQcint32 = 7,
  kQcint4 = 8,
  kQdint8 = 9,
  kQbint4 = 10,
  kQpint8 = 11,
  kInt32 = 12,
  kPfp32 = 13,
  kBf16 = 14,
};
constexpr uint8_t kNumDatatypes = 15;

// XNNPACK's short name for a datatype, as node-kind names use it ("f32",
// "qs8", "qc8", "qd8", ...).
const char* datatype_name(Datatype dtype);

// schema.fbs XNodeUnion, in its numbering.
enum class NodeType : uint8_t {
  kNone = 0,
  kAdd,
  kFullyConnected,
  kSoftmax,
  kSigmoid,
  kStaticTranspose,
  kClamp,
  kConv2d,
  kDiv,
  kStaticResizeBilinear2D,
  kStaticConstantPad,
  kAvgPooling2d,
  kMinimum,
  kDepthwiseConv2d,
  kMaxPooling2d,
  kMultiply,
  kSubtract,
  kFloor,
  kConvert,
  kGlobalAvgPooling2d,
  kStaticReshape,
  kArgMaxPooling2d,
  kSquareRoot,
  kCeiling,
  kHardswish,
  kLeakyReLU,
  kMaximum,
  kNegate,
  kSquare,
  kELU,
  kAbs,
  kPReLU,
  kConcatenate2,
  kConcatenate3,
  kConcatenate4,
  kStaticSlice,
  kScaledDotProductAttention,
  kBatchMatrixMultiply,
  kConcatenate5,
  kConvTranspose2d,
  kReciprocalSquareRoot,
  kLog,
  kGelu,
  kTanh,
  kExp,
  kSin,
  kCopy,
  kCos,
};
constexpr uint8_t kNumNodeTypes = 48;

inline constexpr const char* kNodeTypeNames[kNumNodeTypes] = {
    nullptr, "add", "fully_connected", "softmax", "sigmoid", "static_transpose", "clamp", "conv2d", "div",
    "static_resize_bilinear2d", "static_constant_pad", "avg_pooling2d", "minimum", "depthwise_conv2d",
    "max_pooling2d", "multiply", "subtract", "floor", "convert", "global_avg_pooling2d", "static_reshape",
    "argmax_pooling2d", "square_root", "ceiling", "hardswish", "leaky_relu", "maximum", "negate", "square", "elu",
    "abs", "prelu", "concatenate2", "concatenate3", "concatenate4", "static_slice", "scaled_dot_product_attention",
    "batch_matrix_multiply", "concatenate5", "conv_transpose2d", "reciprocal_square_root", "log", "gelu", "tanh",
    "exp", "sin", "copy", "cos"};

// The node kind's name, as a selectable unit spells it ("conv2d",
// "fully_connected", "static_transpose"); nullptr for kNone. A constant
// expression, so code can ask at compile time whether a kind is selected.
constexpr const char* node_type_name(NodeType type) {
  return static_cast<uint8_t>(type) < kNumNodeTypes ? kNodeTypeNames[static_cast<uint8_t>(type)] : nullptr;
}

enum class QuantKind : uint8_t { kNone, kPerChannel, kPerTensor, kPerTokenDynamic, kPerChannelGroup };

struct QuantParams {
  QuantKind kind = QuantKind::kNone;
  float scale = 0;          // per tensor
  int32_t zero_point = 0;   // per tensor
  const uint8_t* scales = nullptr;  // per channel / group: little-endian floats (or bf16 from a scale buffer)
  uint32_t num_scales = 0;
  bool scales_bf16 = false;  // a group quantization's scale buffer holds bf16
  int32_t channel_dim = 0;
  int32_t group_size = 0;
  int32_t num_nonbatch_dims = 0;  // per-token dynamic
};

constexpr uint32_t kExternalInput = 1;   // XNN_VALUE_FLAG_EXTERNAL_INPUT
constexpr uint32_t kExternalOutput = 2;  // XNN_VALUE_FLAG_EXTERNAL_OUTPUT
constexpr uint32_t kInvalidId = 0xFFFFFFFFu;  // XNN_INVALID_VALUE_ID: "no bias"
constexpr int kMaxRank = 6;  // XNN_MAX_TENSOR_DIMS

struct GraphValue {
  Datatype dtype = Datatype::kInvalid;
  int32_t rank = 0;
  int64_t dims[kMaxRank] = {};  // XNNPACK's order
  uint32_t flags = 0;           // kExternalInput | kExternalOutput
  uint32_t external_id = kInvalidId;
  const uint8_t* constant = nullptr;  // its data, for a constant; unaligned
  uint64_t constant_bytes = 0;
  QuantParams quant;
  uint64_t numel() const;
};

constexpr int kMaxNodeInputs = 5;  // Concatenate5

struct GraphNode {
  NodeType type = NodeType::kNone;
  uint32_t debug_handle = 0;
  uint32_t flags = 0;
  int32_t num_inputs = 0;
  uint32_t inputs[kMaxNodeInputs] = {};  // value indices; kInvalidId for an absent bias
  int32_t num_outputs = 0;
  uint32_t outputs[2] = {};
  float output_min = 0, output_max = 0;  // -inf, +inf when the node has none
  // Geometry of convolutions and poolings, in schema order: padding top,
  // right, bottom, left; kernel/pooling height, width; stride height,
  // width; dilation height, width; then for convolutions group input and
  // output channels, groups, adjustment height, width.
  uint32_t geometry[15] = {};
  // perm (transpose), new_shape (reshape), pre/post paddings (pad),
  // offsets/sizes (slice), new height/width (resize), axis (concatenate).
  int32_t list_size = 0;
  int64_t list[2][kMaxRank] = {};
  float scalar = 0;  // pad value, ELU alpha, leaky ReLU slope
};

struct Graph {
  GraphValue* values = nullptr;
  uint32_t num_values = 0;
  GraphNode* nodes = nullptr;
  uint32_t num_nodes = 0;
  // The delegate call's values, by external id: inputs sort first, as
  // ExecuTorch's XNNPACK runtime orders them.
  uint32_t* external_values = nullptr;  // external id -> value index
  uint32_t num_inputs = 0, num_outputs = 0;
};

// Reads `payload` into `graph`, allocating through `context`; every flaw
// is one error line (invalid program) naming what was wrong.
Error parse_graph(BackendInitContext& context, Span<const uint8_t> payload, Graph* graph);

// The node's selectable kind and dtype, "conv2d.f32" or
// "fully_connected.qd8_qc4w", into buf (the op name of its kernel is
// "xnnpack::" and this).
void node_kind(const Graph& graph, const GraphNode& node, char* buf, size_t cap);

}  // namespace sb::xnnpack
