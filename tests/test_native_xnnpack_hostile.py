"""Hostile XNNPACK payloads (native/backends/xnnpack): real delegated programs
(models/delegated) with bytes patched inside a delegate's payload, each ending in one
"error: " line and a non-zero exit, on the all-ops runtime and under ASan and UBSan;
and xnnpack_payload_fuzzer, seeded with the programs' payloads (their named constants
moved into the payload's own constant data, so the seeds parse deeply), finds nothing
in a short session."""

from __future__ import annotations

import shutil
import struct
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from bot.build import cmake
from bot.selection.pte import FlatReader, Table
from bot.selection.xnnpack import NODE_LAYOUTS
from tests import crafted_programs
from tests.conftest import REPO_ROOT
from tests.test_runtime_sanitized import FUZZ, SANITIZED, SANITIZER_REPORT, fuzzer_report, run_fuzzer

DELEGATED = REPO_ROOT / "models" / "delegated"
F32 = DELEGATED / "mobilenet_v2_xnn_f32.pte"  # runs on our runtime today
LSTM = DELEGATED / "lstm_tagger_xnn_f32.pte"  # delegate 1: a fully connected node, values 0 -> 3
QS8 = DELEGATED / "resnet_xnn_qs8.pte"  # per-tensor and per-channel (scale buffer) quantization
HEADER = 30  # XNNHeader
FUZZER = "xnnpack_payload_fuzzer"
PAYLOAD_FUZZ_RUNS = 120_000  # about 20 s: a payload alone inits at some 6,000 a second


# --- where things are in a .pte -------------------------------------------------------


def segment_base(data: bytes) -> int:
    return int(struct.unpack_from("<Q", data, 24)[0])  # the extended header's segment_base_offset


def segment_field(data: bytes, index: int, field: int) -> int:
    """Position of segment `index`'s offset (field 0) or size (field 1) in the program, when stored."""
    r = FlatReader(data)
    pos = r.field_pos(r.tables(r.root(), 4)[index], field)
    assert pos is not None
    return pos


def segment_span(data: bytes, index: int) -> tuple[int, int]:
    """(start in the file, size) of segment `index`."""
    r = FlatReader(data)
    segment = r.tables(r.root(), 4)[index]
    offset, size = r.scalar(segment, 0, "Q"), r.scalar(segment, 1, "Q")
    return segment_base(data) + int(offset), int(size)


def payload_segment(data: bytes, delegate: int = 0) -> int:
    """The segment holding delegate `delegate`'s payload (program.fbs BackendDelegate.processed)."""
    r = FlatReader(data)
    plan = r.tables(r.root(), 1)[0]
    processed = r.table(r.tables(plan, 7)[delegate], 1)
    assert processed is not None and r.scalar(processed, 0, "b") == 1, "the payload is not in a segment"
    return int(r.scalar(processed, 1, "I"))


def payload_span(data: bytes, delegate: int = 0) -> tuple[int, int]:
    """(start in the file, size) of delegate `delegate`'s payload."""
    return segment_span(data, payload_segment(data, delegate))


def named_data(data: bytes) -> dict[str, bytes]:
    """The program's named data: key -> bytes (program.fbs NamedData: key, segment_index)."""
    r = FlatReader(data)
    found = {}
    for entry in r.tables(r.root(), 7):
        start, size = segment_span(data, int(r.scalar(entry, 1, "I")))
        found[r.string(entry, 0)] = data[start : start + size]
    return found


class Graph:
    """The XNNGraph flatbuffer of a payload at `start` of the file; positions are the file's."""

    def __init__(self, data: bytes, start: int) -> None:
        self.at = start + int(struct.unpack_from("<I", data, start + 10)[0])
        size = int(struct.unpack_from("<I", data, start + 14)[0])
        self.r = FlatReader(data[self.at : self.at + size])
        self.root = self.r.root()

    def pos(self, table: Table, field: int) -> int:
        found = self.r.field_pos(table, field)
        assert found is not None, f"field {field} is absent: nothing to patch"
        return self.at + found

    def nodes(self) -> list[Table]:
        return self.r.tables(self.root, 1)

    def values(self) -> list[Table]:
        return self.r.tables(self.root, 2)

    def constants(self) -> list[Table]:
        return self.r.tables(self.root, 8)

    def tensor(self, xvalue: Table) -> Table:
        body = self.r.table(xvalue, 1)
        assert body is not None
        if self.r.scalar(xvalue, 0, "B") == 2:  # XNNQuantizedTensorValue: tensor_value, quant_params
            body = self.r.table(body, 0)
            assert body is not None
        return body

    def quant(self, kind: int) -> Table:
        """The quant_params table of the first value quantized by `kind` (1 per channel, 2 per tensor)."""
        for xvalue in self.values():
            body = self.r.table(xvalue, 1)
            if self.r.scalar(xvalue, 0, "B") == 2 and body is not None and self.r.scalar(body, 1, "B") == kind:
                params = self.r.table(body, 2)
                assert params is not None
                return params
        raise AssertionError(f"no value is quantized by kind {kind}")


def graph_of(data: bytes, delegate: int = 0) -> Graph:
    return Graph(data, payload_span(data, delegate)[0])


# --- the hostile payloads -------------------------------------------------------------


def pack(data: bytes, pos: int, fmt: str, value: float) -> bytes:
    out = bytearray(data)
    struct.pack_into("<" + fmt, out, pos, value)
    return bytes(out)


def header_field(pos: int, fmt: str, value: Callable[[int], int]) -> Callable[[bytes], bytes]:
    """Header field at `pos` of the payload set to value(payload size)."""

    def build(data: bytes) -> bytes:
        start, size = payload_span(data)
        return pack(data, start + pos, fmt, value(size))

    return build


def node_kind(kind: int) -> Callable[[bytes], bytes]:
    def build(data: bytes) -> bytes:
        g = graph_of(data)
        return pack(data, g.pos(g.nodes()[0], 0), "B", kind)

    return build


def node_id(output: bool) -> Callable[[bytes], bytes]:
    """The first node whose first input (or output) is stored (not the default id 0) names a
    value past the graph's."""

    def build(data: bytes) -> bytes:
        g = graph_of(data)
        for node in g.nodes():
            layout = NODE_LAYOUTS[int(g.r.scalar(node, 0, "B")) - 1][1]
            body = g.r.table(node, 1)
            assert body is not None
            pos = g.r.field_pos(body, layout.outputs[0] if output else layout.inputs[0])
            if pos is not None:
                return pack(data, g.at + pos, "I", len(g.values()) + 7)
        raise AssertionError("every node reads value 0")

    return build


def per_tensor_scale(scale: float) -> Callable[[bytes], bytes]:
    def build(data: bytes) -> bytes:
        g = graph_of(data)
        return pack(data, g.pos(g.quant(2), 0), "f", scale)  # PerTensorQuant: scale, zero_point

    return build


def per_channel_scale(scale: float) -> Callable[[bytes], bytes]:
    """Channel 0's scale, in the scale buffer (a named constant) ExecuTorch 1.5 writes."""

    def build(data: bytes) -> bytes:
        g = graph_of(data)
        params = g.quant(1)  # PerChannelQuant: scale, channel_dim, scale_buffer_idx, num_scales
        buffer = int(g.r.scalar(params, 2, "I"))
        assert buffer != 0, "the scales are inline"
        key = g.r.string(g.constants()[buffer], 2)
        r = FlatReader(data)
        for entry in r.tables(r.root(), 7):
            if r.string(entry, 0) == key:
                start, _ = segment_span(data, int(r.scalar(entry, 1, "I")))
                return pack(data, start, "f", scale)
        raise AssertionError(f"no named data {key}")

    return build


def dims(value: Callable[[int], int], count: int | None = None) -> Callable[[bytes], bytes]:
    """The first `count` dims (all by default) of the first rank >= 2 value set to value(dim)."""

    def build(data: bytes) -> bytes:
        g = graph_of(data)
        for xvalue in g.values():
            start, length = g.r.vector(g.tensor(xvalue), 2, 4)
            if length >= 2:
                for d in range(length if count is None else count):
                    old = int(struct.unpack_from("<I", g.r.data, start + 4 * d)[0])
                    data = pack(data, g.at + start + 4 * d, "I", value(old))
                return data
        raise AssertionError("no value of rank 2 or more")

    return build


def value_dims(delegate: int, changes: dict[int, dict[int, int]]) -> Callable[[bytes], bytes]:
    """Dims of delegate `delegate`'s values changed: {value id: {dim: new size}}."""

    def build(data: bytes) -> bytes:
        g = graph_of(data, delegate)
        for xvalue in g.values():
            tensor = g.tensor(xvalue)
            start, _ = g.r.vector(tensor, 2, 4)
            for d, size in changes.get(int(g.r.scalar(tensor, 6, "I")), {}).items():
                data = pack(data, g.at + start + 4 * d, "I", size)
        return data

    return build


def node_fields(kind: int, changes: dict[int, int]) -> Callable[[bytes], bytes]:
    """The first node of union type `kind` with its table's fields changed: {field: value}."""

    def build(data: bytes) -> bytes:
        g = graph_of(data)
        node = next(node for node in g.nodes() if g.r.scalar(node, 0, "B") == kind)
        body = g.r.table(node, 1)
        assert body is not None
        for field, value in changes.items():
            data = pack(data, g.pos(body, field), "I", value)
        return data

    return build


def named_key(change: Callable[[bytes, Graph, Table], bytes]) -> Callable[[bytes], bytes]:
    """change(data, graph, constant 1) (ConstantDataOffset: offset, size, named_key)."""

    def build(data: bytes) -> bytes:
        g = graph_of(data)
        return change(data, g, g.constants()[1])

    return build


def rename_key(data: bytes, g: Graph, entry: Table) -> bytes:
    start, length = g.r.vector(entry, 2, 1)
    return data[: g.at + start] + b"z" * length + data[g.at + start + length :]


def offset_past_constants(data: bytes, g: Graph, entry: Table) -> bytes:
    """No key (length 0): the constant is at its offset in the payload's (empty) constant data."""
    start, _ = g.r.vector(entry, 2, 1)
    data = pack(data, g.at + start - 4, "I", 0)
    return pack(data, g.pos(entry, 0), "Q", 1 << 40)


def segment_size(size: Callable[[int], int]) -> Callable[[bytes], bytes]:
    """The payload's segment cut to size(its size): the program says the payload is shorter."""

    def build(data: bytes) -> bytes:
        index = payload_segment(data)
        return pack(data, segment_field(data, index, 1), "Q", size(segment_span(data, index)[1]))

    return build


def truncated_file(data: bytes) -> bytes:
    start, size = payload_span(data)
    return data[: start + size // 2]


NO_FEATURES = "no input or output features"
# name: (program, the hostile bytes, text the error line holds)
CASES: dict[str, tuple[Path, Callable[[bytes], bytes], str]] = {
    "header_graph_past_payload": (F32, header_field(14, "I", lambda size: size), "lie past the"),
    "header_graph_offset_wraps": (F32, header_field(10, "I", lambda size: 0xFFFFFFF0), "lie past the"),
    "header_constants_past_payload": (F32, header_field(22, "Q", lambda size: (1 << 64) - 8), "lie past the"),
    "header_length_short": (F32, header_field(8, "H", lambda size: 4), "header length 4"),
    "node_kind_out_of_range": (F32, node_kind(200), "node 0 has unknown kind 200"),
    "node_kind_none": (F32, node_kind(0), "node 0 has unknown kind 0"),
    "node_input_out_of_bounds": (F32, node_id(output=False), "refers to value"),
    "node_output_out_of_bounds": (F32, node_id(output=True), "refers to value"),
    "per_tensor_scale_zero": (QS8, per_tensor_scale(0.0), "quantization scale 0"),
    "per_tensor_scale_nan": (QS8, per_tensor_scale(float("nan")), "quantization scale nan"),
    "per_channel_scale_zero": (QS8, per_channel_scale(0.0), "quantization scale 0 (channel 0)"),
    "dims_overflow": (F32, dims(lambda d: 0xFFFFFFFF), "more elements than a tensor can hold"),
    "one_dim_huge": (F32, dims(lambda d: 0xFFFFFFFF, count=1), "more elements than a tensor can hold"),
    "dim_zero": (F32, dims(lambda d: 0, count=1), "XNNPACK node 0"),
    # Dims a tensor can hold, which the planner divides or multiplies by.
    "fully_connected_zero_width": (LSTM, value_dims(1, {0: {2: 0}, 1: {1: 0}}), NO_FEATURES),
    "fully_connected_zero_outputs": (LSTM, value_dims(1, {1: {0: 0}, 2: {0: 0}, 3: {2: 0}}), NO_FEATURES),
    "zero_and_huge_dims": (F32, value_dims(0, {2: {0: 0, 1: 0xFFFFFFFF, 2: 0xFFFFFFFF}}), "more elements"),
    # Convolution geometry (_XNNNodeConv: groups is field 12, group output channels 11).
    "conv_groups_overflow": (F32, node_fields(7, {11: 0xFFFFFFFF, 12: 0xFFFFFFFF}), "does not match its geometry"),
    "named_key_missing": (F32, named_key(rename_key), "no named data 'zzzz"),
    "constant_offset_past_constant_data": (F32, named_key(offset_past_constants), "bytes of constant data"),
    "segment_shorter_than_header": (F32, segment_size(lambda size: HEADER - 2), "shorter than its header"),
    "segment_cut_in_graph": (F32, segment_size(lambda size: size // 2), "lie past the"),
    "file_cut_in_payload": (F32, truncated_file, "lies past the end of the"),
}


def run(runner: Path, model: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(runner), "--model", str(model)], capture_output=True, text=True, timeout=120)


def check_one_line(proc: subprocess.CompletedProcess[str], text: str) -> None:
    assert not any(marker in proc.stderr for marker in SANITIZER_REPORT), proc.stderr[-3000:]
    assert proc.returncode == 1, (proc.returncode, proc.stderr[-3000:])
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), proc.stderr[-3000:]
    assert text in lines[0], lines[0]


def hostile(name: str, tmp_path: Path) -> Path:
    program, build, _ = CASES[name]
    data = program.read_bytes()
    patched = build(data)
    assert patched != data
    model = tmp_path / f"{name}.pte"
    model.write_bytes(patched)
    return model


@pytest.fixture(scope="module")
def sanitized() -> Path:
    return cmake.runner_path(cmake.build(SANITIZED))


def test_unpatched_programs_load(runner: Path, sanitized: Path) -> None:
    """The control: the unpatched f32 and int8 programs run."""
    for binary in (runner, sanitized):
        for program in (F32, QS8):
            proc = run(binary, program)
            assert proc.returncode == 0, proc.stderr
            assert not any(marker in proc.stderr for marker in SANITIZER_REPORT), proc.stderr[-3000:]


@pytest.mark.parametrize("name", sorted(CASES))
def test_hostile_payload_fails_in_one_line(name: str, runner: Path, sanitized: Path, tmp_path: Path) -> None:
    model = hostile(name, tmp_path)
    text = CASES[name][2]
    check_one_line(run(runner, model), text)
    check_one_line(run(sanitized, model), text)


def test_a_program_cannot_call_a_node_kind(runner: Path, sanitized: Path, tmp_path: Path) -> None:
    """Node kinds trust the plan that calls them (it checked their shapes at init): a program that names
    one as an operator (a zoo program whose first operator is renamed xnnpack::static_slice.f32) is
    refused at load, in one line."""
    pte_file = crafted_programs.zoo_program("resnet")
    operator = pte_file.program.execution_plan[0].operators[0]
    operator.name, operator.overload = "xnnpack::static_slice", "f32"
    model = tmp_path / "calls_a_node_kind.pte"
    model.write_bytes(crafted_programs.serialize(pte_file))
    for binary in (runner, sanitized):
        check_one_line(run(binary, model), "operator 0 (xnnpack::static_slice.f32) is a node kind of XnnpackBackend")


# --- the fuzz target -------------------------------------------------------------------


def inline_constants(data: bytes, delegate: int) -> bytes:
    """Delegate `delegate`'s payload with every named constant moved into the payload's own
    constant data: each ConstantDataOffset keeps its fields (offset, size, named_key) where
    they are, its offset now points into the constant data and its key is emptied (length 0),
    so xnnpack_payload_fuzzer, which has no program and so no named data, parses it all."""
    start, size = payload_span(data, delegate)
    payload = bytearray(data[start : start + size])
    g = Graph(bytes(payload), 0)
    graph_end = g.at + len(g.r.data)
    named = named_data(data)
    constants = bytearray()
    for entry in g.constants()[1:]:  # entry 0 is reserved
        key_at, key_length = g.r.vector(entry, 2, 1)
        if key_length == 0:
            continue
        blob = named[g.r.string(entry, 2)]
        constants += bytes(-len(constants) % 16)
        struct.pack_into("<Q", payload, g.pos(entry, 0), len(constants))
        struct.pack_into("<I", payload, g.at + key_at - 4, 0)
        constants += blob
    constants_at = graph_end + (-graph_end % 16)
    struct.pack_into("<I", payload, 18, constants_at)
    struct.pack_into("<Q", payload, 22, len(constants))
    return bytes(payload[:graph_end]) + bytes(constants_at - graph_end) + bytes(constants)


def seeds(out: Path) -> list[Path]:
    written = []
    for program in sorted(DELEGATED.glob("*.pte")):
        data = program.read_bytes()
        r = FlatReader(data)
        for delegate in range(len(r.tables(r.tables(r.root(), 1)[0], 7))):
            seed = out / f"{program.stem}.{delegate}"
            seed.write_bytes(inline_constants(data, delegate))
            written.append(seed)
    return written


@pytest.fixture(scope="module")
def payload_fuzzer() -> Path:
    assert shutil.which("clang++"), "clang++ is needed for the fuzz targets: run scripts/setup.sh"
    return cmake.build(FUZZ, targets=(FUZZER,)) / FUZZER


def test_seeds_parse_deeply(payload_fuzzer: Path, tmp_path: Path) -> None:
    """Every seed gets past the payload checks and its plan compiles: its init succeeds (the whole graph
    and its constants read)."""
    written = seeds(tmp_path)
    outcomes = [line.removeprefix("init: ") for line in fuzzer_report(payload_fuzzer, written, ("init: ",))]
    assert len(outcomes) == len(written), outcomes
    assert outcomes == ["ok"] * len(outcomes), [o for o in outcomes if o != "ok"]


def test_short_payload_fuzz_session(payload_fuzzer: Path, tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    assert len(seeds(corpus)) > 14
    run_fuzzer(payload_fuzzer, corpus, PAYLOAD_FUZZ_RUNS, tmp_path)
