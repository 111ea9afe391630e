"""XNNPACK delegate payloads, read in pure Python (no torch, no executorch): the graph each delegate
holds, and the node kinds it needs as ops ("xnnpack::conv2d.f32"), named exactly as the runtime's
XnnpackBackend names them (native/backends/xnnpack/graph.cpp, node_kind) so a selection made here
registers what the runtime looks up.

The payload is ExecuTorch 1.5's XNNPACK preprocess output: a 30-byte header (magic XH00 at bytes
4..8), then an XNNGraph flatbuffer (backends/xnnpack/serialization/schema.fbs, identifier XN01) and
the constant data. Payloads sit inline in the program or in its segments (program.fbs).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from bot.safety.limits import DEFAULT_LIMITS
from bot.safety.safe_files import UnsafeFileError, read_bytes
from bot.selection import pte
from bot.selection.pte import FlatReader, PteError, Table

BACKEND_ID = "XnnpackBackend"
OP_NAMESPACE = "xnnpack"
XNN_HEADER_MAGIC = b"XH00"
XNN_IDENTIFIER = b"XN01"
XNN_INVALID_VALUE_ID = 0xFFFFFFFF

# XNNDatatype (schema.fbs), without the "xnn_datatype_" prefix.
XNN_DATATYPES = (
    "invalid", "fp32", "fp16", "qint8", "quint8", "qint32", "qcint8", "qcint32",
    "qcint4", "qdint8", "qbint4", "qpint8", "int32", "pfp32", "bf16",
)  # fmt: skip

# XNodeUnion members in schema.fbs order (union type 1 is the first), each with its
# table's layout: field numbers of the inputs, the filter, the bias, the outputs and the flags.


class Layout(NamedTuple):
    inputs: tuple[int, ...]
    filter: int | None
    bias: int | None
    outputs: tuple[int, ...]
    flags: int


_2X1 = Layout((0, 1), None, None, (2,), 3)
_1X1 = Layout((0,), None, None, (1,), 2)
_CONV = Layout((15,), 16, 17, (18,), 19)
_POOL = Layout((10,), None, None, (11,), 12)
_CAT = Layout((1, 2, 3, 4, 7), None, None, (5,), 6)


def _after(params: int) -> Layout:
    """A one-input, one-output table whose input, output and flags follow `params` parameters."""
    return Layout((params,), None, None, (params + 1,), params + 2)


NODE_LAYOUTS: tuple[tuple[str, Layout], ...] = (
    ("XNNAdd", _2X1),
    ("XNNFullyConnected", Layout((0,), 1, 2, (3,), 4)),
    ("XNNSoftmax", _1X1),
    ("XNNSigmoid", _1X1),
    ("XNNStaticTranspose", _after(2)),
    ("XNNClamp", _1X1),
    ("XNNConv2d", _CONV),
    ("XNNDiv", _2X1),
    ("XNNStaticResizeBilinear2D", _after(2)),
    ("XNNStaticConstantPad", _after(3)),
    ("XNNAvgPooling2d", _POOL),
    ("XNNMinimum", _2X1),
    ("XNNDepthwiseConv2d", _CONV),
    ("XNNMaxPooling2d", _POOL),
    ("XNNMultiply", _2X1),
    ("XNNSubtract", _2X1),
    ("XNNFloor", _1X1),
    ("XNNConvert", _1X1),
    ("XNNGlobalAvgPooling2d", _1X1),
    ("XNNStaticReshape", _after(2)),
    ("XNNArgMaxPooling2d", Layout((6,), None, None, (7, 8), 9)),
    ("XNNSquareRoot", _1X1),
    ("XNNCeiling", _1X1),
    ("XNNHardswish", _1X1),
    ("XNNLeakyReLU", _after(1)),
    ("XNNMaximum", _2X1),
    ("XNNNegate", _1X1),
    ("XNNSquare", _1X1),
    ("XNNELU", _after(1)),
    ("XNNAbs", _1X1),
    ("XNNPReLU", _2X1),
    ("XNNConcatenate2", _CAT),
    ("XNNConcatenate3", _CAT),
    ("XNNConcatenate4", _CAT),
    ("XNNStaticSlice", _after(3)),
    ("XNNScaledDotProductAttention", Layout((0, 1, 2, 3, 4), None, None, (5,), 6)),
    ("XNNBatchMatrixMultiply", _2X1),
    ("XNNConcatenate5", _CAT),
    ("XNNConvTranspose2d", _CONV),
    ("XNNReciprocalSquareRoot", _1X1),
    ("XNNLog", _1X1),
    ("XNNGelu", _1X1),
    ("XNNTanh", _1X1),
    ("XNNExp", _1X1),
    ("XNNSin", _1X1),
    ("XNNCopy", _1X1),
    ("XNNCos", _1X1),
)
QUANT_PARAMS = ("none", "PerChannelQuant", "PerTensorQuant", "PerTokenDynamicQuant", "PerChannelGroupQuant")


class XnnPayloadError(ValueError):
    pass


@dataclass(frozen=True)
class XnnValue:
    id: int
    datatype: str
    dims: tuple[int, ...]
    constant: bool  # its data is in the payload (weights, biases, scalars)
    quant: str  # the XNNQuantParams member, "none" for a plain tensor
    scale: float | None = None  # PerTensorQuant's scale (one quantization step)

    def describe(self) -> str:
        return f"{self.datatype} (const)" if self.constant else self.datatype


@dataclass(frozen=True)
class XnnNode:
    kind: str
    inputs: tuple[int, ...]
    filter: int | None
    bias: int | None
    outputs: tuple[int, ...]
    flags: int
    output_min_max: tuple[float, float] | None  # OutputMinMax: a fused clamp (or a clamp node's own bounds)

    def extras(self) -> str:
        """The output bounds and the flags, when the node has them."""
        parts = []
        if self.output_min_max is not None:
            low, high = self.output_min_max
            parts.append(f"[{low:g}, {high:g}]")
        if self.flags:
            parts.append(f"flags 0x{self.flags:x}")
        return ", ".join(parts)


@dataclass(frozen=True)
class XnnGraph:
    version: str
    nodes: tuple[XnnNode, ...]
    values: dict[int, XnnValue]
    input_ids: tuple[int, ...]
    output_ids: tuple[int, ...]
    named_constants: int  # ConstantDataOffset entries naming a key of the program's named data
    inline_constants: int  # entries at an offset into the payload's own constant data
    constant_bytes: int  # the payload's own constant data (XNNHeader)

    def signature(self, node: XnnNode) -> tuple[str, str, str, str, str, str]:
        """(kind, inputs, filter, bias, output, extras) with each operand's datatype."""

        def dtype(value_id: int | None) -> str:
            if value_id is None:
                return ""
            if value_id == XNN_INVALID_VALUE_ID:
                return "none"
            value = self.values.get(value_id)
            return value.describe() if value is not None else f"?{value_id}"

        inputs = ", ".join(dtype(i) for i in node.inputs if i != XNN_INVALID_VALUE_ID)
        outputs = ", ".join(dtype(i) for i in node.outputs)
        return node.kind, inputs, dtype(node.filter), dtype(node.bias), outputs, node.extras()


def _read_value(r: FlatReader, xvalue: Table) -> XnnValue:
    kind = int(r.scalar(xvalue, 0, "B"))
    body = r.table(xvalue, 1)
    if body is None or kind not in (1, 2):
        raise XnnPayloadError(f"XValue at offset {xvalue.pos} has union type {kind}")
    quant = "none"
    scale = None
    if kind == 2:  # XNNQuantizedTensorValue: tensor_value, quant_params (type), quant_params
        quant_kind = int(r.scalar(body, 1, "B"))
        quant = QUANT_PARAMS[quant_kind] if quant_kind < len(QUANT_PARAMS) else f"unknown({quant_kind})"
        params = r.table(body, 2)
        if quant == "PerTensorQuant" and params is not None:
            scale = _f32(r, params, 0)
        tensor = r.table(body, 0)
        if tensor is None:
            raise XnnPayloadError(f"quantized XValue at offset {xvalue.pos} has no tensor_value")
    else:
        tensor = body
    datatype = int(r.scalar(tensor, 0, "h"))
    return XnnValue(
        id=int(r.scalar(tensor, 6, "I")),
        datatype=XNN_DATATYPES[datatype] if 0 <= datatype < len(XNN_DATATYPES) else f"unknown({datatype})",
        dims=r.ints(tensor, 2, "I"),
        constant=int(r.scalar(tensor, 3, "I")) != 0,
        quant=quant,
        scale=scale,
    )


def _read_node(r: FlatReader, xnode: Table) -> XnnNode:
    kind = int(r.scalar(xnode, 0, "B"))
    body = r.table(xnode, 1)
    if body is None or not 1 <= kind <= len(NODE_LAYOUTS):
        raise XnnPayloadError(f"XNode at offset {xnode.pos} has union type {kind}")
    name, layout = NODE_LAYOUTS[kind - 1]

    def uint(number: int) -> int:
        return int(r.scalar(body, number, "I"))

    clamp = r.table(xnode, 3)  # OutputMinMax: output_min, output_max (floats)
    return XnnNode(
        name,
        tuple(uint(n) for n in layout.inputs),
        None if layout.filter is None else uint(layout.filter),
        None if layout.bias is None else uint(layout.bias),
        tuple(uint(n) for n in layout.outputs),
        uint(layout.flags),
        None if clamp is None else (_f32(r, clamp, 0), _f32(r, clamp, 1)),
    )


def _f32(r: FlatReader, table: Table, field: int) -> float:
    pos = r.field_pos(table, field)
    return 0.0 if pos is None else float(struct.unpack_from("<f", r.data, pos)[0])


def read_xnn_payload(payload: bytes) -> XnnGraph:
    """The XNNGraph of a processed XNNPACK payload: a 30-byte XNNHeader (magic XH00 at
    bytes 4..8), then the flatbuffer (identifier XN01) and the constant data."""
    if len(payload) < 30 or payload[4:8] != XNN_HEADER_MAGIC:
        raise XnnPayloadError("not an XNNPACK payload: no XH00 header")
    head = FlatReader(payload)
    header_length, fb_offset, fb_size = head.u16(8), head.u32(10), head.u32(14)
    if header_length != 30 or fb_offset + fb_size > len(payload):
        raise XnnPayloadError(f"XNNHeader of length {header_length} puts the flatbuffer past the payload")
    data = payload[fb_offset : fb_offset + fb_size]
    if data[4:8] != XNN_IDENTIFIER:
        raise XnnPayloadError(f"XNNGraph identifier is {data[4:8]!r}, expected {XNN_IDENTIFIER!r}")
    r = FlatReader(data)
    root = r.root()
    values = r.read_tables(root, 2, lambda v: _read_value(r, v))
    constants = r.tables(root, 8)[1:]  # ConstantDataOffset: offset, size, named_key; entry 0 is reserved
    named = sum(1 for entry in constants if r.string(entry, 2))
    return XnnGraph(
        version=r.string(root, 0),
        nodes=r.read_tables(root, 1, lambda n: _read_node(r, n)),
        values={value.id: value for value in values},
        input_ids=r.ints(root, 4, "I"),
        output_ids=r.ints(root, 5, "I"),
        named_constants=named,
        inline_constants=len(constants) - named,
        constant_bytes=head.i64(22),
    )


# Node kinds as selectable units spell them, in XNodeUnion order (graph.cpp kNodeTypeNames).
NODE_KIND_NAMES = (
    "add", "fully_connected", "softmax", "sigmoid", "static_transpose", "clamp", "conv2d", "div",
    "static_resize_bilinear2d", "static_constant_pad", "avg_pooling2d", "minimum", "depthwise_conv2d",
    "max_pooling2d", "multiply", "subtract", "floor", "convert", "global_avg_pooling2d", "static_reshape",
    "argmax_pooling2d", "square_root", "ceiling", "hardswish", "leaky_relu", "maximum", "negate", "square", "elu",
    "abs", "prelu", "concatenate2", "concatenate3", "concatenate4", "static_slice", "scaled_dot_product_attention",
    "batch_matrix_multiply", "concatenate5", "conv_transpose2d", "reciprocal_square_root", "log", "gelu", "tanh",
    "exp", "sin", "copy", "cos",
)  # fmt: skip
# XNNPACK's short datatype names (graph.cpp kDatatypeNames), by XNN_DATATYPES index.
SHORT_DATATYPES = (
    "invalid", "f32", "f16", "qs8", "qu8", "qs32", "qc8", "qc32", "qc4", "qd8", "qb4", "qp8", "s32", "pf32", "bf16",
)  # fmt: skip
WEIGHTED = ("XNNConv2d", "XNNDepthwiseConv2d", "XNNConvTranspose2d", "XNNFullyConnected")


def _short(graph: XnnGraph, value_id: int) -> str:
    value = graph.values.get(value_id)
    if value is None or value.datatype not in XNN_DATATYPES:
        return "invalid"
    return SHORT_DATATYPES[XNN_DATATYPES.index(value.datatype)]


def node_kind(graph: XnnGraph, node: XnnNode) -> str:
    """The node's op: "xnnpack::<kind>.<dtype>", the dtype its first input's ("f32"), with the filter's
    when it differs ("fully_connected.qd8_qc4w"), or the conversion's ("convert.f32_qd8")."""
    name = NODE_KIND_NAMES[[n for n, _ in NODE_LAYOUTS].index(node.kind)]
    first = _short(graph, node.inputs[0])
    if node.kind == "XNNConvert":
        dtype = f"{first}_{_short(graph, node.outputs[0])}"
    elif node.kind in WEIGHTED and node.filter is not None and _short(graph, node.filter) != first:
        dtype = f"{first}_{_short(graph, node.filter)}w"
    else:
        dtype = first
    return f"{OP_NAMESPACE}::{name}.{dtype}"


def node_kinds(graph: XnnGraph) -> list[str]:
    """The graph's node kinds as ops, in first-use order."""
    return list(dict.fromkeys(node_kind(graph, node) for node in graph.nodes))


# program.fbs: Program.backend_delegate_data (3), .segments (4); ExecutionPlan.delegates (7);
# BackendDelegate.id (0), .processed (1); BackendDelegateDataReference.location (0: INLINE, 1: SEGMENT), .index (1).
_INLINE, _SEGMENT = 0, 1


def delegate_payloads(
    path: Path, method: str = "forward", limit: int = DEFAULT_LIMITS.model_bytes
) -> list[tuple[str, bytes]]:
    """(backend id, processed payload) of each delegate of `method`, read from the file within `limit`
    bytes. Raises PteError (one line) for a file whose delegate table or segments are out of bounds."""
    try:
        data = read_bytes(Path(path), limit, "a model")
    except UnsafeFileError as exc:
        raise PteError(str(exc)) from None
    r = FlatReader(data)
    segment_base = 0
    if len(data) >= pte.HEADER_END and data[8:12] == pte.HEADER_MAGIC:
        segment_base = int(struct.unpack_from("<Q", data, 24)[0])
    try:
        root = r.root()
        plans = [p for p in r.tables(root, 1) if r.string(p, 0) == method]
        if not plans:
            raise PteError(f"program has no method '{method}'")
        inline = r.tables(root, 3)
        segments = r.tables(root, 4)
        found = []
        for delegate in r.tables(plans[0], 7):
            backend = r.string(delegate, 0)
            ref = r.table(delegate, 1)
            location = int(r.scalar(ref, 0, "b")) if ref is not None else _INLINE
            index = int(r.scalar(ref, 1, "I")) if ref is not None else 0
            if location == _INLINE and index < len(inline):
                start, length = r.vector(inline[index], 0, 1)
                found.append((backend, data[start : start + length]))
            elif location == _SEGMENT and index < len(segments):
                offset = segment_base + int(r.scalar(segments[index], 0, "Q"))
                size = int(r.scalar(segments[index], 1, "Q"))
                if segment_base == 0 or offset + size > len(data):
                    raise PteError(f"the {backend} delegate's segment lies past the end of the file")
                found.append((backend, data[offset : offset + size]))
            else:
                raise PteError(f"the {backend} delegate's payload reference is out of range")
        return found
    except (struct.error, IndexError, RecursionError) as exc:
        raise PteError(f"corrupt delegate table ({exc.__class__.__name__})") from None


def program_node_kinds(path: Path, method: str = "forward", limit: int = DEFAULT_LIMITS.model_bytes) -> list[str]:
    """The node kinds of every XNNPACK delegate of `method`, as ops; a bad payload raises PteError."""
    kinds: dict[str, None] = {}
    for backend, payload in delegate_payloads(path, method, limit):
        if backend != BACKEND_ID:
            continue
        try:
            graph = read_xnn_payload(payload)
        except XnnPayloadError as exc:
            raise PteError(f"the XnnpackBackend delegate's payload: {exc}") from None
        except (struct.error, IndexError, RecursionError) as exc:
            raise PteError(f"the XnnpackBackend delegate's payload is corrupt ({exc.__class__.__name__})") from None
        kinds.update(dict.fromkeys(node_kinds(graph)))
    return list(kinds)
