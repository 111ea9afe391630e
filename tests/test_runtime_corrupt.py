"""Corrupt or unsupported programs fail at load with one clear line and a non-zero exit."""

from __future__ import annotations

import os
import random
import struct
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from bot.selection import pte
from tests.conftest import ZOO_DIR

MODEL = ZOO_DIR / "resnet.pte"


def run(runner: Path, model: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(runner), "--model", str(model)], capture_output=True, text=True, timeout=60)


def assert_clean_failure(proc: subprocess.CompletedProcess[str], expected: str) -> None:
    assert proc.returncode == 1, (proc.returncode, proc.stderr)
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("error: ")
    assert expected in lines[0], lines[0]


def patch(data: bytes, pos: int, fmt: str, value: int) -> bytes:
    out = bytearray(data)
    struct.pack_into("<" + fmt, out, pos, value)
    return bytes(out)


def plan_table(data: bytes) -> tuple[pte.FlatReader, pte.Table]:
    r = pte.FlatReader(data)
    return r, r.tables(r.root(), 1)[0]


def first_kernel_call_with_op_index(data: bytes) -> int:
    r, plan = plan_table(data)
    for ins in r.tables(r.tables(plan, 5)[0], 2):
        args = r.table(ins, 1)
        pos = r.field_pos(args, 0) if args else None
        if pos is not None:
            return pos
    raise AssertionError("no KernelCall with a stored op_index")


def out_of_range_op_index(data: bytes) -> bytes:
    return patch(data, first_kernel_call_with_op_index(data), "i", 0x7FFF0000)


def out_of_range_argument(data: bytes) -> bytes:
    r, plan = plan_table(data)
    args = r.table(r.tables(r.tables(plan, 5)[0], 2)[0], 1)
    start, _ = r.vector(args, 1, 4)
    return patch(data, start, "i", 10_000_000)


def output_into_constant(data: bytes) -> bytes:
    """The first convolution writes its output (and return value) into its own weight."""
    r, plan = plan_table(data)
    args = r.table(r.tables(r.tables(plan, 5)[0], 2)[0], 1)
    start, length = r.vector(args, 1, 4)
    weight = struct.unpack_from("<i", data, start + 4)[0]
    for slot in (length - 2, length - 1):
        data = patch(data, start + 4 * slot, "i", weight)
    return data


def tensors_with_field(data: bytes, field: int) -> list[int]:
    program = pte.parse(data)
    r = pte.FlatReader(data)
    found = []
    for value in program.plan().values:
        if value.kind == "Tensor" and value.table is not None:
            holder = r.table(value.table, 6) if field >= 100 else value.table
            pos = r.field_pos(holder, field % 100) if holder else None
            if pos is not None:
                found.append(pos)
    return found


def out_of_range_memory_offset(data: bytes) -> bytes:
    # field 101 = allocation_info.memory_offset_low
    return patch(data, tensors_with_field(data, 101)[-1], "I", 0xFFFFFF00)


def out_of_range_memory_id(data: bytes) -> bytes:
    return patch(data, tensors_with_field(data, 100)[-1], "I", 77)


def out_of_range_constant_index(data: bytes) -> bytes:
    # field 5 = data_buffer_idx (constants only)
    return patch(data, tensors_with_field(data, 5)[0], "I", 0x00FFFFFF)


def out_of_range_root(data: bytes) -> bytes:
    return patch(data, 0, "I", len(data) + 4096)


def huge_values_vector(data: bytes) -> bytes:
    r, plan = plan_table(data)
    start, _ = r.vector(plan, 2, 4)
    return patch(data, start - 4, "I", 0x3FFFFFFF)


def unknown_operator(data: bytes) -> bytes:
    return data.replace(b"aten::relu", b"aten::relX", 1)


CORRUPTIONS: dict[str, tuple[Callable[[bytes], bytes], str]] = {
    "truncated": (lambda d: d[: len(d) // 3], "truncated"),
    "truncated_to_header": (lambda d: d[:40], "invalid program"),
    "wrong_magic": (lambda d: d[:4] + b"XX12" + d[8:], "not an ExecuTorch program"),
    "empty": (lambda d: b"", "too small"),
    "root_offset": (out_of_range_root, "out of bounds"),
    "op_index": (out_of_range_op_index, "calls operator"),
    "argument_index": (out_of_range_argument, "refers to a value out of range"),
    "memory_offset": (out_of_range_memory_offset, "overruns planned buffer"),
    "memory_id": (out_of_range_memory_id, "not planned"),
    "constant_index": (out_of_range_constant_index, "constant"),
    "values_length": (huge_values_vector, "out of bounds"),
    "unsupported_op": (unknown_operator, "missing operator aten::relX.out (needed by corrupt)"),
    "output_into_constant": (output_into_constant, "would write into constant data"),
}


@pytest.mark.parametrize("name", sorted(CORRUPTIONS))
def test_corrupt_program_fails_cleanly(name: str, runner: Path, tmp_path: Path) -> None:
    corrupt, expected = CORRUPTIONS[name]
    model = tmp_path / "corrupt.pte"
    model.write_bytes(corrupt(MODEL.read_bytes()))
    assert_clean_failure(run(runner, model), expected)


def test_bit_flips_never_crash(runner: Path, tmp_path: Path) -> None:
    """Flip single bits across the flatbuffer: each run either succeeds or fails with one error line."""
    data = MODEL.read_bytes()
    program_size = struct.unpack_from("<Q", data, 16)[0]  # extended header: flatbuffer part only
    rng = random.Random(20261123)
    failures = 0
    for i in range(120):
        flipped = bytearray(data)
        pos = rng.randrange(program_size)
        flipped[pos] ^= 1 << rng.randrange(8)
        model = tmp_path / f"flip{i}.pte"
        model.write_bytes(bytes(flipped))
        proc = run(runner, model)
        assert proc.returncode in (0, 1), (pos, proc.returncode, proc.stderr)
        if proc.returncode:
            failures += 1
            assert len(proc.stderr.splitlines()) == 1 and proc.stderr.startswith("error: "), (pos, proc.stderr)
    assert failures > 0  # the flips did reach structure, not only padding


def test_missing_model_file(runner: Path, tmp_path: Path) -> None:
    assert_clean_failure(run(runner, tmp_path / "absent.pte"), "cannot open model file")


def _non_regular(kind: str, tmp_path: Path) -> Path:
    """A FIFO (no writer: an open without O_NONBLOCK would wait forever), a directory or a device."""
    if kind == "FIFO":
        path = tmp_path / "model.pte"
        os.mkfifo(path)
        return path
    if kind == "directory":
        path = tmp_path / "dir.pte"
        path.mkdir()
        return path
    return Path("/dev/zero")  # endless: a reader that does not check would never finish


NON_REGULAR = {"FIFO": "a FIFO", "directory": "a directory", "device": "a character device"}


@pytest.mark.parametrize("kind", sorted(NON_REGULAR))
def test_model_that_is_not_a_regular_file_is_refused_at_once(kind: str, runner: Path, tmp_path: Path) -> None:
    """`--model` naming a FIFO, a directory or a device: one error line within seconds, never a wait."""
    model = _non_regular(kind, tmp_path)
    proc = subprocess.run([str(runner), "--model", str(model)], capture_output=True, text=True, timeout=5)
    assert_clean_failure(proc, f"{model}: model file is not a regular file ({NON_REGULAR[kind]})")


@pytest.mark.parametrize("kind", sorted(NON_REGULAR))
def test_input_that_is_not_a_regular_file_is_refused_at_once(kind: str, runner: Path, tmp_path: Path) -> None:
    """`--input` naming a FIFO, a directory or a device: the model loads, then one error line, never a wait."""
    source = _non_regular(kind, tmp_path)
    proc = subprocess.run(
        [str(runner), "--model", str(ZOO_DIR / "gru.pte"), "--input", str(source)],
        capture_output=True,
        text=True,
        timeout=5,
    )
    assert_clean_failure(proc, f"{source}: input file is not a regular file ({NON_REGULAR[kind]})")
