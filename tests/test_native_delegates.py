"""Delegated programs in the core (native/core: sb/backend.h), on real XNNPACK-delegated
programs exported by executorch's own exporter (tests/delegated_programs.py).

- A runtime without the backend fails at load with one line naming the backend and
  every missing op.
- With a test backend (native/tests/delegate_test.cpp: it reads the XNNPACK payload's
  header, flatbuffer and named constants) every DelegateCall resolves at load: the
  payload bytes (inline or in a segment), the compile specs and the named data reach
  init(), and execute() gets the call's values, without touching the heap.
- Corrupt delegate tables, segments and named data each end in one error line, under
  ASan and UBSan too.
- A runtime built without SB_DELEGATES links none of the backend machinery.
"""

from __future__ import annotations

import re
import struct
import subprocess
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from bot.build import cmake
from tests import delegated_programs as dp

# The ops the fixtures run outside their delegates.
OPS = "aten::cumsum.out"
DELEGATES = cmake.Flavour("delegates", {"SB_DELEGATES": "ON", "SELECT_OPS_LIST": OPS})
SANITIZED = cmake.Flavour(
    "delegates-sanitized",
    {"SB_DELEGATES": "ON", "SB_SANITIZE": "ON", "SELECT_OPS_LIST": OPS},
    build_type="RelWithDebInfo",
)
# A runtime whose selection names the backend (SB_BACKENDS): the generated registration registers it.
SELECTED = cmake.Flavour(
    "delegates-selected",
    {
        "SB_BACKENDS": "sb_test::payload_inspector",
        "SB_BACKEND_SOURCES": str(cmake.REPO_ROOT / "native" / "tests" / "payload_inspector.cpp"),
        "SELECT_OPS_LIST": OPS,
    },
)
# A selective runtime of programs without delegates: SB_DELEGATES off, and no cumsum either.
NO_DELEGATES = cmake.Flavour("no-delegates", {"SELECT_OPS_LIST": "aten::add.out"})
SANITIZER_REPORT = ("AddressSanitizer", "UndefinedBehaviorSanitizer", "runtime error:", "LeakSanitizer")
# Symbols of the backend machinery (core/src/backend.cpp, Method::Loader's delegate steps).
MACHINERY = (
    "OpRegistry::add_backend",
    "init_delegate",
    "NamedData::",
    "load_delegates",
    "allocate_for_backend",
    "BackendInitContext",
)


@pytest.fixture(scope="module")
def programs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return dp.export(tmp_path_factory.mktemp("delegated"))


@pytest.fixture(scope="module")
def delegates_build() -> Path:
    return cmake.build(DELEGATES, targets=("delegate_test",))


@pytest.fixture(scope="module")
def no_delegates_build() -> Path:
    return cmake.build(NO_DELEGATES, targets=("executor_runner", "runtime_size_probe", "core_size_probe"))


def run(binary: Path, *args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(binary), *map(str, args)], capture_output=True, text=True, timeout=300)


def one_error_line(proc: subprocess.CompletedProcess[str]) -> str:
    assert proc.returncode == 1, proc.stdout + proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), proc.stderr
    return lines[0]


def parse_fields(line: str) -> dict[str, str]:
    return dict(part.split("=", 1) for part in line.split()[1:])


# --- without the backend -------------------------------------------------------------


def test_exports_are_real_xnnpack_programs(programs: dict[str, Path]) -> None:
    for name in dp.MODELS:
        want = dp.expected(programs[name].read_bytes())
        assert want.delegates and all(d.backend == "XnnpackBackend" for d in want.delegates), name
        assert want.named_data, f"{name}: executorch 1.5 keeps XNNPACK weights in named data"
    locations = {name: dp.expected(programs[name].read_bytes()).delegates[0].location for name in dp.MODELS}
    assert locations == {
        "linear": "SEGMENT",
        "linear_inline": "INLINE",
        "conv_cumsum": "SEGMENT",
        "two_delegates": "SEGMENT",
    }
    assert len(dp.expected(programs["two_delegates"].read_bytes()).delegates) == 2


def test_missing_ops_and_backend_in_one_line(programs: dict[str, Path], no_delegates_build: Path) -> None:
    runner = cmake.runner_path(no_delegates_build)
    line = one_error_line(run(runner, "--model", programs["conv_cumsum"]))
    assert line == "error: missing operator aten::cumsum.out and backend XnnpackBackend (needed by conv_cumsum)"
    # Two delegates of one backend: the backend is named once.
    line = one_error_line(run(runner, "--model", programs["two_delegates"]))
    assert line == "error: missing operator aten::cumsum.out and backend XnnpackBackend (needed by two_delegates)"
    line = one_error_line(run(runner, "--model", programs["linear"]))
    assert line == "error: missing backend XnnpackBackend (needed by linear)"


def test_test_binary_without_its_backend(programs: dict[str, Path], delegates_build: Path) -> None:
    line = one_error_line(run(delegates_build / "delegate_test", "--no-backend", programs["linear"]))
    assert line == "error: missing backend XnnpackBackend (needed by model)"


# --- with the test backend -----------------------------------------------------------


@pytest.mark.parametrize("name", dp.MODELS)
def test_delegate_calls_resolve_and_run(
    name: str, programs: dict[str, Path], delegates_build: Path, tmp_path: Path
) -> None:
    data = programs[name].read_bytes()
    want = dp.expected(data)
    proc = run(delegates_build / "delegate_test", "--output-dir", tmp_path, programs[name])
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    inits = [parse_fields(line) for line in lines if line.startswith("init ")]
    assert [int(f["delegate"]) for f in inits] == list(range(len(want.delegates)))

    used_keys: set[str] = set()
    for fields, delegate in zip(inits, want.delegates, strict=True):
        header = delegate.header
        assert fields["backend"] == "XnnpackBackend" and fields["method"] == "forward"
        # The payload init() got is the one ExecuTorch's deserializer reads, byte count and header alike.
        assert int(fields["payload"]) == len(delegate.payload)
        assert fields["header"] == "30"
        assert fields["flatbuffer"] == f"{header.flatbuffer_offset}+{header.flatbuffer_size}"
        assert fields["constants"] == f"{header.constant_data_offset}+{header.constant_data_size}"
        assert fields["identifier"] == "XN01"
        assert delegate.payload[header.flatbuffer_offset + 4 : header.flatbuffer_offset + 8] == b"XN01"
        specs = ",".join(f"{key}:{size}" for key, size in delegate.compile_specs)
        assert fields["specs"] == specs
        # Every named constant of the graph came from the program's named data, at its size.
        named = dict(item.split(":") for item in fields["named"].split(",") if item)
        assert named, "the XNNPACK graph names its weights"
        for key, size in named.items():
            assert want.named_data[key] == int(size), key
        used_keys |= set(named)
    assert used_keys == set(want.named_data)

    # execute() got each call's values: the graph's inputs then outputs.
    calls = [parse_fields(line) for line in lines if line.startswith("execute ")]
    assert [int(c["delegate"]) for c in calls] == [index for index, _ in want.delegate_calls]
    for call, (_, args) in zip(calls, want.delegate_calls, strict=True):
        shapes = [f"float32[{','.join(map(str, want.values[a].val.sizes))}]" for a in args]
        assert call["args"] == ",".join(shapes)
    assert "allocations_during_execute=0" in lines

    # The test backend fills output k with 0.25 * (k + 1); kernels outside the delegate ran on it.
    out = np.load(tmp_path / "output0.npy")
    if name == "conv_cumsum":
        assert np.allclose(out[0, :, 0, 0], [0.25, 0.5, 0.75, 1.0])
    elif name == "two_delegates":
        assert np.allclose(out, 0.25)  # the second delegate wrote the output
    else:
        assert np.allclose(out, 0.25)


def test_backend_selected_like_ops(programs: dict[str, Path], tmp_path: Path) -> None:
    """SB_BACKENDS: the generated registration registers the backend, so executor_runner itself runs
    the delegated program (delegate, then our cumsum kernel on its output)."""
    build = cmake.build(SELECTED, targets=("executor_runner",))
    registration = (build / "sb_selected_kernels" / "register_kernels.cpp").read_text()
    assert "registry.add_backend(::sb_test::payload_inspector)" in registration
    proc = run(cmake.runner_path(build), "--model", programs["conv_cumsum"], "--output-dir", tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("init delegate=0 backend=XnnpackBackend ")
    assert np.allclose(np.load(tmp_path / "output0.npy")[0, :, 0, 0], [0.25, 0.5, 0.75, 1.0])


def test_compile_specs_reach_init(programs: dict[str, Path], delegates_build: Path, tmp_path: Path) -> None:
    """Specs as ExecuTorch's serializer writes them (the partitioner emits none for these models)."""
    from tests import crafted_programs as crafted

    pte = crafted._serializer().deserialize_pte_binary(programs["linear"].read_bytes())
    schema = crafted._schema()
    pte.program.execution_plan[0].delegates[0].compile_specs = [
        schema.CompileSpec("threads", b"\x01\x00\x00\x00"),
        schema.CompileSpec("profile", b"on"),
    ]
    model = tmp_path / "specs.pte"
    model.write_bytes(crafted.serialize(pte))
    proc = run(delegates_build / "delegate_test", model)
    assert proc.returncode == 0, proc.stderr
    init = parse_fields(next(line for line in proc.stdout.splitlines() if line.startswith("init ")))
    assert init["specs"] == "threads:4,profile:2"


def test_init_memory_counts_against_the_budget(programs: dict[str, Path], delegates_build: Path) -> None:
    proc = run(delegates_build / "delegate_test", programs["linear"])
    used = int(re.search(r"memory_bytes=(\d+)", proc.stdout).group(1))
    # The inspector's state is allocated in init(): a budget just below what the method uses refuses it.
    line = one_error_line(run(delegates_build / "delegate_test", "--max-memory", str(used - 1), programs["linear"]))
    assert "over the memory budget" in line
    assert run(delegates_build / "delegate_test", "--max-memory", str(used), programs["linear"]).returncode == 0


# --- corruption ----------------------------------------------------------------------


def _rewrite(name: str, change: Callable[[object], None]) -> Callable[[dict[str, Path]], bytes]:
    def build(programs: dict[str, Path]) -> bytes:
        from tests import crafted_programs as crafted

        pte = crafted._serializer().deserialize_pte_binary(programs[name].read_bytes())
        change(pte.program.execution_plan[0])
        return crafted.serialize(pte)

    return build


def _patch(name: str, path: str, fmt: str, value: int) -> Callable[[dict[str, Path]], bytes]:
    def build(programs: dict[str, Path]) -> bytes:
        data = bytearray(programs[name].read_bytes())
        struct.pack_into(fmt, data, dp.field_pos(bytes(data), path), value)
        return bytes(data)

    return build


def _set_delegate_index(plan: object, index: int) -> None:
    plan.chains[0].instructions[0].instr_args.delegate_index = index  # type: ignore[attr-defined]


def _set_inline_index(plan: object, index: int) -> None:
    plan.delegates[0].processed.index = index  # type: ignore[attr-defined]


def _truncated(name: str) -> Callable[[dict[str, Path]], bytes]:
    """Cut just after the flatbuffer's segment base: every segment lies past the end."""

    def build(programs: dict[str, Path]) -> bytes:
        data = programs[name].read_bytes()
        segment_base = struct.unpack_from("<Q", data, 24)[0]
        return data[: segment_base + 16]

    return build


def _renamed_key(name: str) -> Callable[[dict[str, Path]], bytes]:
    """A named data key the payload uses no longer exists."""

    def build(programs: dict[str, Path]) -> bytes:
        data = bytearray(programs[name].read_bytes())
        start, length = dp.named_key_pos(bytes(data), 0)
        data[start : start + length] = b"z" * length
        return bytes(data)

    return build


# name: (program, the error line's expected text)
CORRUPTIONS: dict[str, tuple[Callable[[dict[str, Path]], bytes], str]] = {
    "delegate_index_out_of_range": (
        _rewrite("linear", lambda plan: _set_delegate_index(plan, 3)),
        "invalid program: instruction 0 calls delegate 3, which does not exist (1 delegates)",
    ),
    "delegate_index_negative": (
        _rewrite("linear", lambda plan: _set_delegate_index(plan, -2)),
        "invalid program: instruction 0 calls delegate -2, which does not exist (1 delegates)",
    ),
    "inline_index_out_of_range": (
        _rewrite("linear_inline", lambda plan: _set_inline_index(plan, 5)),
        "invalid program: inline delegate data 5 out of range (1 entries)",
    ),
    "segments_past_the_end": (
        _truncated("linear"),
        "lies past the end of the",
    ),
    "segment_size_wraps": (
        _patch("linear", "segment.1.size", "<Q", (1 << 64) - 1),  # segment 1: the payload
        "invalid program: segment 1 of the XnnpackBackend delegate (18446744073709551615 bytes at offset 0) lies "
        "past the end of the",
    ),
    "segment_offset_past_the_end": (
        _patch("linear", "segment.2.offset", "<Q", 1 << 40),  # segment 2: the first named weight
        "delegate 0 (XnnpackBackend): invalid program: segment 2 of named data (128 bytes at offset 1099511627776) "
        "lies past the end of the",
    ),
    "named_data_segment_out_of_range": (
        _patch("linear", "named.1.segment", "<I", 99),
        "delegate 0 (XnnpackBackend): invalid program: named data names segment 99, out of range (4 segments)",
    ),
    "named_data_key_missing": (
        _renamed_key("linear"),
        "delegate 0 (XnnpackBackend): invalid program: no named data",
    ),
    "payload_location_unknown": (
        _patch("linear", "delegate.0.location", "<b", 7),
        "invalid program: a delegate's payload has unknown location 7",
    ),
}


@pytest.mark.parametrize("name", sorted(CORRUPTIONS))
def test_corrupt_delegates_fail_in_one_line(
    name: str, programs: dict[str, Path], delegates_build: Path, tmp_path: Path
) -> None:
    build, text = CORRUPTIONS[name]
    model = tmp_path / "corrupt.pte"
    model.write_bytes(build(programs))
    line = one_error_line(run(delegates_build / "delegate_test", model))
    assert text in line, line


@pytest.mark.parametrize("name", sorted(CORRUPTIONS))
def test_corrupt_delegates_under_sanitizers(name: str, programs: dict[str, Path], tmp_path: Path) -> None:
    binary = cmake.build(SANITIZED, targets=("delegate_test",)) / "delegate_test"
    build, text = CORRUPTIONS[name]
    model = tmp_path / "corrupt.pte"
    model.write_bytes(build(programs))
    proc = run(binary, model)
    assert not any(marker in proc.stderr for marker in SANITIZER_REPORT), proc.stderr[-3000:]
    assert text in one_error_line(proc)


def test_delegated_programs_under_sanitizers(programs: dict[str, Path], tmp_path: Path) -> None:
    binary = cmake.build(SANITIZED, targets=("delegate_test",)) / "delegate_test"
    for name in dp.MODELS:
        proc = run(binary, "--output-dir", tmp_path / name, programs[name])
        assert not any(marker in proc.stderr for marker in SANITIZER_REPORT), proc.stderr[-3000:]
        assert proc.returncode == 0, proc.stderr


# --- size ----------------------------------------------------------------------------


def test_no_backend_machinery_without_delegates(no_delegates_build: Path) -> None:
    for probe in ("runtime_size_probe", "core_size_probe", "executor_runner"):
        symbols = subprocess.run(
            ["nm", "-C", str(no_delegates_build / probe)], capture_output=True, text=True, check=True
        )
        linked = [name for name in MACHINERY if name in symbols.stdout]
        assert not linked, f"{probe} links {linked}"
