"""PT2E int8 programs without a delegate (models/quantized: per-tensor and per-channel weights, quantized with
XNNPACKQuantizer, lowered with plain to_edge) run on ExecuTorch's quantized kernel library as ExecuTorch runs them:
our all-ops runtime and a runtime built from their selection match ExecuTorch's runtime (integer outputs identical,
float ones within 1e-4), and `bot oplist` lists their operators as ExecuTorch's gen_oplist does."""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pytest

from bot.build import cmake
from bot.selection import oplist, pte, trace
from tests.quantized_programs import PROGRAMS, QUANTIZED_DIR, expected, inputs
from tests.test_oplist import assert_static_oplist_is_gen_oplist

FLOAT_TOLERANCE = 1e-4
PER_TENSOR = ("quantized_decomposed::quantize_per_tensor.out", "quantized_decomposed::dequantize_per_tensor.out")
PER_CHANNEL = "quantized_decomposed::dequantize_per_channel.out"


def test_the_programs_are_the_module_s_list() -> None:
    pytest.importorskip("executorch")
    from models.export_quantized import PROGRAMS as EXPORTED

    assert sorted(EXPORTED) == PROGRAMS
    for name in PROGRAMS:
        assert inputs(name) and expected(name), name


def operators(name: str) -> set[str]:
    return set(oplist.from_program(pte.load(QUANTIZED_DIR / f"{name}.pte"), name).operators)


@pytest.mark.parametrize("name", PROGRAMS)
def test_program_is_pt2e_without_a_delegate(name: str) -> None:
    ops = operators(name)
    assert set(PER_TENSOR) <= ops, sorted(ops)
    assert not any(op.startswith("xnnpack::") for op in ops)
    assert not pte.load(QUANTIZED_DIR / f"{name}.pte").plan("forward").delegates
    assert (PER_CHANNEL in ops) == (not name.endswith("_pt")), sorted(ops)


def assert_matches(outputs: list[Path], name: str) -> None:
    references = expected(name)
    assert len(outputs) == len(references), name
    for ours_path, theirs_path in zip(outputs, references, strict=True):
        ours, theirs = np.load(ours_path), np.load(theirs_path)
        assert ours.dtype == theirs.dtype and ours.shape == theirs.shape, (name, ours.dtype, ours.shape)
        if np.issubdtype(theirs.dtype, np.floating):
            assert np.max(np.abs(ours.astype(np.float64) - theirs), initial=0.0) <= FLOAT_TOLERANCE, name
        else:
            assert np.array_equal(ours, theirs), name


def run(runner: Path, name: str, out_dir: Path) -> list[Path]:
    cmd = [str(runner), "--model", str(QUANTIZED_DIR / f"{name}.pte"), "--output-dir", str(out_dir)]
    for path in inputs(name):
        cmd += ["--input", str(path)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return sorted(out_dir.glob("output*.npy"), key=lambda p: int(p.stem.removeprefix("output")))


@pytest.mark.parametrize("name", PROGRAMS)
def test_all_ops_runtime_matches_executorch(name: str, runner: Path, tmp_path: Path) -> None:
    assert_matches(run(runner, name, tmp_path), name)


@pytest.mark.parametrize("name", PROGRAMS)
def test_oplist_equals_executorch_gen_oplist(name: str, tmp_path: Path) -> None:
    assert_static_oplist_is_gen_oplist(QUANTIZED_DIR / f"{name}.pte", tmp_path)


def test_runtime_built_from_their_traced_selection_runs_them(tmp_path: Path) -> None:
    """As the bot selects for a target: each program traced on the tracer (its ops, dtypes and the ops its
    kernels may call), the selections merged; a dtype-selective build of just those finds the quantized kernels
    and runs every program as ExecuTorch does."""
    tracer = trace.tracer_runner()
    selection = oplist.merge(
        [trace.trace_model(tracer, QUANTIZED_DIR / f"{name}.pte", inputs(name), name) for name in PROGRAMS]
    )
    assert PER_CHANNEL in selection.operators and set(PER_TENSOR) <= set(selection.operators)
    yaml_path = tmp_path / "quantized" / "selected_operators.yaml"
    yaml_path.parent.mkdir()
    oplist.dump(selection, yaml_path)
    runner = cmake.runner_path(cmake.build(cmake.selective_flavour(yaml_path, dtype_selective=True)))
    for name in PROGRAMS:
        out_dir = tmp_path / name
        assert_matches(run(runner, name, out_dir), name)
