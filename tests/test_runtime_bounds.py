"""Crafted programs meet the runtime's budgets: sizes whose product wraps, an input
larger than the memory budget, one list shared by thousands of values and a loop
over a large softmax each end in one error line, or load in memory proportional
to the file, within bounded time and memory. The budgets are exact: a zoo model
runs at precisely the memory and work it reports and fails one byte below."""

from __future__ import annotations

import io
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from bot.selection import pte
from tests import crafted_programs as crafted
from tests.conftest import ZOO_DIR, ZOO_MODELS, zoo_inputs

MIB = 1 << 20


@dataclass(frozen=True)
class Measured:
    returncode: int
    stdout: str
    stderr: str
    peak_rss_bytes: int
    seconds: float


# Runs argv[3:] and writes "<returncode> <peak RSS in KiB>" to argv[1]. A small
# process in between because Linux carries the peak RSS across exec: a child
# forked straight from pytest (torch loaded) would report pytest's.
_MEASURE = """
import resource, subprocess, sys
try:
    code = subprocess.run(sys.argv[3:], timeout=float(sys.argv[2])).returncode
except subprocess.TimeoutExpired:
    code = "timeout"
with open(sys.argv[1], "w") as out:
    out.write(f"{code} {resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}")
"""


def run_measured(cmd: list[str], timeout: float = 120) -> Measured:
    """Runs `cmd`, with the peak RSS of that process alone."""
    with tempfile.TemporaryDirectory() as work:
        report = Path(work) / "report"
        start = time.perf_counter()
        proc = subprocess.run(
            [sys.executable, "-c", _MEASURE, str(report), str(timeout), *cmd],
            capture_output=True,
            text=True,
            timeout=timeout + 30,
        )
        seconds = time.perf_counter() - start
        code, rss_kib = report.read_text().split()
    assert code != "timeout", f"{cmd[0]} ran past {timeout} s"
    return Measured(int(code), proc.stdout, proc.stderr, int(rss_kib) * 1024, seconds)


def run(runner: Path, model: Path, *args: str, timeout: float = 120) -> Measured:
    return run_measured([str(runner), "--model", str(model), *args], timeout)


def assert_one_error_line(result: Measured, *expected: str) -> str:
    assert result.returncode == 1, (result.returncode, result.stderr[-2000:])
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr[-2000:]
    for text in expected:
        assert text in lines[0], lines[0]
    return lines[0]


def reported(stdout: str, name: str) -> int:
    found = re.search(rf"^{name} (\d+)$", stdout, re.MULTILINE)
    assert found, stdout
    return int(found.group(1))


def write(tmp_path: Path, name: str, data: bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


@pytest.mark.parametrize("op", ["aten::_softmax.out", "aten::gelu.out"])
def test_sizes_whose_product_wraps_fail_at_load(op: str, runner: Path, tmp_path: Path) -> None:
    model = write(tmp_path, "wrap.pte", crafted.overflowing_sizes(op))
    assert_one_error_line(run(runner, model), "invalid program", "impossibly large")


def test_unplanned_input_over_the_memory_budget_is_refused_without_using_it(runner: Path, tmp_path: Path) -> None:
    model = write(tmp_path, "huge_input.pte", crafted.unplanned_input(elements_log2=30))
    result = run(runner, model)
    assert_one_error_line(result, "memory budget", "input 0", "(--max-memory)")
    assert result.peak_rss_bytes < 200 * MIB, result.peak_rss_bytes
    assert result.seconds < 10


def test_unplanned_input_within_the_budget_gets_its_own_buffer(runner: Path, tmp_path: Path) -> None:
    """The same kind of input, small: loaded, then refused by the kernel for its shape, not by a budget."""
    model = write(tmp_path, "small_input.pte", crafted.unplanned_input(elements_log2=12))
    result = run(runner, model)
    line = assert_one_error_line(result)
    assert "budget" not in line and "invalid program" not in line, line


@pytest.mark.parametrize("share", ["table", "items"])
def test_list_shared_by_thousands_of_values_loads_in_memory_proportional_to_the_file(
    share: str, runner: Path, tmp_path: Path
) -> None:
    data = crafted.shared_tensor_list(values=16384, items=65536, share=share)
    result = run(runner, write(tmp_path, "shared.pte", data))
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.peak_rss_bytes < 100 * MIB, result.peak_rss_bytes
    # What load() allocated is of the order of the file, not values x items x 8 (8 GiB).
    assert reported(result.stdout, "memory_bytes") < 16 * len(data)
    assert result.seconds < 10


def test_loop_over_a_large_softmax_stops_at_the_work_budget(runner: Path, tmp_path: Path) -> None:
    model = write(tmp_path, "loop.pte", crafted.looping_softmax(1024, 1024))
    result = run(runner, model, "--max-work", str(1 << 30))
    assert_one_error_line(result, "work budget", "(--max-work)")
    assert result.seconds < 10


def test_loop_stops_at_the_default_work_budget(runner: Path, tmp_path: Path) -> None:
    model = write(tmp_path, "loop.pte", crafted.looping_softmax(1024, 1024))
    result = run(runner, model, timeout=300)
    assert_one_error_line(result, "work budget", "(--max-work)")
    assert result.peak_rss_bytes < 100 * MIB


def test_loop_of_bare_jumps_stops_at_the_default_work_budget(runner: Path, tmp_path: Path) -> None:
    """Every executed instruction costs something, so a loop that touches nothing also ends."""
    result = run(runner, write(tmp_path, "jump.pte", crafted.looping_jump()), timeout=300)
    assert_one_error_line(result, "work budget", "(--max-work)")


def test_loop_stops_at_the_deadline(runner: Path, tmp_path: Path) -> None:
    model = write(tmp_path, "loop.pte", crafted.looping_softmax(1024, 1024))
    result = run(runner, model, "--max-seconds", "1")
    assert_one_error_line(result, "time limit", "(--max-seconds)")
    assert 1 <= result.seconds < 10


@pytest.mark.parametrize("name", ZOO_MODELS)
def test_zoo_runs_many_times_within_the_default_budgets(name: str, runner: Path) -> None:
    args = [a for p in zoo_inputs(name) for a in ("--input", str(p))]
    result = run(runner, ZOO_DIR / f"{name}.pte", *args, "--repeat", "20")
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize("name", ["resnet", "mha_block"])
def test_budgets_are_exact(name: str, runner: Path) -> None:
    """A model runs at exactly the memory and work it reports, and fails one byte below either."""
    model = ZOO_DIR / f"{name}.pte"
    args = [a for p in zoo_inputs(name) for a in ("--input", str(p))]
    measured = run(runner, model, *args)
    memory, work = reported(measured.stdout, "memory_bytes"), reported(measured.stdout, "work_bytes")
    exact = run(runner, model, *args, "--max-memory", str(memory), "--max-work", str(work))
    assert exact.returncode == 0, exact.stderr
    assert_one_error_line(run(runner, model, *args, "--max-memory", str(memory - 1)), "memory budget")
    assert_one_error_line(run(runner, model, *args, "--max-work", str(work - 1)), "work budget")


@pytest.mark.parametrize("flag", ["--max-memory", "--max-work", "--max-seconds"])
@pytest.mark.parametrize("value", ["-1", "12abc", "", "99999999999999999999999", "nan"])
def test_malformed_budget_flags_are_usage_errors(flag: str, value: str, runner: Path) -> None:
    result = run(runner, ZOO_DIR / "resnet.pte", flag, value)
    assert result.returncode == 2 and result.stderr.startswith("usage:"), result.stderr


def test_npy_input_whose_shape_overflows_is_refused(runner: Path, tmp_path: Path) -> None:
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(header, {"descr": "<f4", "fortran_order": False, "shape": (1 << 62, 4)})
    npy = write(tmp_path, "wrap.npy", header.getvalue())
    result = run(runner, ZOO_DIR / "resnet.pte", "--input", str(npy))
    assert_one_error_line(result, "wrap.npy", "impossibly large")


@pytest.mark.parametrize(("values", "items"), [(16384, 65536), (8192, 32768)])
def test_python_reader_reads_the_shared_list_program_fast(values: int, items: int) -> None:
    data = crafted.shared_tensor_list(values=values, items=items)
    start = time.perf_counter()
    plan = pte.parse(data).plan()
    dtypes = plan.operator_dtypes()
    seconds = time.perf_counter() - start
    assert seconds < 2, seconds
    shared = plan.values[-values:]
    assert all(v.kind == "TensorList" and len(v.members) == items for v in shared)
    assert dtypes  # the real operators are still read
