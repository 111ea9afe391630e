"""bot/selection/pte.py on hostile bytes: a mutated or truncated zoo program either parses or
raises PteError with one line, always within a time bound, and what the bot derives
from a parsed program (operator dtypes, the selected-operators list) is bounded too.
A program that shares one list among thousands of values parses fast."""

from __future__ import annotations

import struct
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.selection import oplist, pte
from tests import crafted_programs as crafted
from tests.conftest import ZOO_DIR, ZOO_MODELS

ZOO = {name: (ZOO_DIR / f"{name}.pte").read_bytes() for name in ZOO_MODELS}
SECONDS = 2.0
# Words an attacker would write over an offset or a length.
INTERESTING_WORDS = (0, 1, 4, 0x7FFF, 0xFFFF, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF)


def parse_and_derive(data: bytes) -> None:
    """Everything the bot reads from a program; raises PteError on a bad file."""
    program = pte.parse(data)
    for plan in program.plans:
        plan.used_operators()
        plan.operator_dtypes()
        oplist.from_program(program, "fuzz", plan.name)


def assert_parses_or_refuses_quickly(data: bytes) -> None:
    start = time.perf_counter()
    try:
        parse_and_derive(data)
    except pte.PteError as exc:
        assert str(exc) and "\n" not in str(exc)
    seconds = time.perf_counter() - start
    assert seconds < SECONDS, seconds


def flatbuffer_size(data: bytes) -> int:
    """The flatbuffer part of a program, before its segments (what the reader reads)."""
    if data[8:12] == pte.HEADER_MAGIC:
        return struct.unpack_from("<Q", data, 16)[0]
    return len(data)


@st.composite
def mutated_programs(draw: st.DrawFn) -> bytes:
    data = bytearray(ZOO[draw(st.sampled_from(ZOO_MODELS))])
    end = flatbuffer_size(bytes(data))
    for _ in range(draw(st.integers(1, 12))):
        kind = draw(st.sampled_from(["byte", "word", "share"]))
        if kind == "byte":
            data[draw(st.integers(0, end - 1))] = draw(st.integers(0, 255))
        elif kind == "word":
            pos = draw(st.integers(0, end // 4 - 1)) * 4
            word = draw(st.sampled_from(INTERESTING_WORDS) | st.integers(0, len(data)))
            struct.pack_into("<I", data, pos, word)
        elif kind == "share":
            # Point one offset where another points: real sharing, as a hostile writer would.
            source, target = sorted(draw(st.integers(0, end // 4 - 1)) * 4 for _ in range(2))
            aim = source + struct.unpack_from("<I", data, source)[0]
            if aim > target:
                struct.pack_into("<I", data, target, aim - target)
    return bytes(data)


@settings(max_examples=300, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_programs())
def test_mutated_programs_parse_or_raise_pte_error_quickly(data: bytes) -> None:
    assert_parses_or_refuses_quickly(data)


@settings(max_examples=100, deadline=None, database=None)
@given(st.sampled_from(ZOO_MODELS), st.floats(0, 1))
def test_truncated_programs_parse_or_raise_pte_error_quickly(name: str, fraction: float) -> None:
    data = ZOO[name]
    assert_parses_or_refuses_quickly(data[: int(len(data) * fraction)])


@settings(max_examples=50, deadline=None, database=None)
@given(st.binary(max_size=4096))
def test_arbitrary_bytes_parse_or_raise_pte_error_quickly(data: bytes) -> None:
    assert_parses_or_refuses_quickly(data)


def test_zoo_programs_parse() -> None:
    for data in ZOO.values():
        parse_and_derive(data)


def test_shared_list_program_parses_fast() -> None:
    for share in ("table", "items"):
        data = crafted.shared_tensor_list(values=16384, items=65536, share=share)
        start = time.perf_counter()
        parse_and_derive(data)
        assert time.perf_counter() - start < SECONDS


def test_the_reader_reads_the_flatbuffer_and_never_the_weights(tmp_path: Path) -> None:
    """Constants live in segments after the flatbuffer: a program with 200 MB of
    them is read with memory of the order of its flatbuffer."""
    import tracemalloc

    model = tmp_path / "heavy.pte"
    model.write_bytes((ZOO_DIR / "resnet.pte").read_bytes())
    with model.open("r+b") as handle:
        handle.truncate(200 << 20)  # sparse: segment bytes the reader must not load
    tracemalloc.start()
    program = pte.load(model)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert program.plan().operators == pte.load(ZOO_DIR / "resnet.pte").plan().operators
    assert peak < 20 << 20


def test_a_flatbuffer_over_the_readers_cap_is_refused_in_one_line(tmp_path: Path) -> None:
    data = bytearray((ZOO_DIR / "gru.pte").read_bytes())
    assert data[8:12] == pte.HEADER_MAGIC
    claimed = pte.MAX_FLATBUFFER_BYTES + 1
    data[16:24] = claimed.to_bytes(8, "little")
    model = tmp_path / "huge.pte"
    model.write_bytes(bytes(data))
    with model.open("r+b") as handle:
        handle.truncate(claimed + 4096)  # sparse
    with pytest.raises(pte.PteError) as caught:
        pte.load(model)
    message = str(caught.value)
    assert "\n" not in message and "over the" in message and str(model) in message
