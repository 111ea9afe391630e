"""XnnpackBackend (native/backends/xnnpack) on delegated programs with dynamic dims.

ExecuTorch writes a dynamic dim's upper bound into the XNNPACK graph; its runtime reshapes XNNPACK to
each call's input shapes and resizes the outputs. Ours re-derives every value's shape through the plan
(native/backends/xnnpack/shapes.cpp) and must agree with ExecuTorch's runtime at every size within the
bounds: fp32 and dynamically quantized (qd8) programs within 1e-4, static int8 (qs8) ones within one
quantization step of their output, fp16 ones within a few fp16 ulps of their output's magnitude. One
loaded method runs several sizes in turn without the heap; a shape past a bound, or one a node cannot
take, is one error line and a non-zero exit.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pytest

from bot.build import cmake
from tests import dynamic_delegated_programs as ddp
from tests.test_native_xnnpack import output_step
from tests.test_native_xnnpack_kinds import FP16_ULPS
from tests.test_runtime_sanitized import SANITIZED, SANITIZER_REPORT

pytestmark = pytest.mark.export

PROGRAMS = ddp.programs()
TOLERANCE = 1e-4


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("dynamic_delegated")
    return {name: ddp.export(name, program, out) for name, program in PROGRAMS.items()}


def make_input(name: str, shape: tuple[int, ...], seed: int) -> np.ndarray:
    dtype = np.float16 if PROGRAMS[name].recipe == "f16" else np.float32
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def executorch_output(model: Path, array: np.ndarray) -> np.ndarray:
    from executorch.runtime import Runtime

    from models.export import as_et_input

    method = Runtime.get().load_program(model).load_method("forward")
    (out,) = method.execute([as_et_input(array)])
    return out.detach().numpy()


def tolerance(name: str, model: Path, theirs: np.ndarray) -> float:
    recipe = PROGRAMS[name].recipe
    if recipe == "f16":  # XNNPACK rounds each fp16 operator's result; ATen's Half kernels compute in fp32
        return FP16_ULPS * float(np.spacing(np.abs(theirs).max().astype(np.float16)))
    return output_step(model) if recipe == "qs8" else TOLERANCE


def run(runner: Path, model: Path, inputs: list[Path], out: Path) -> subprocess.CompletedProcess[str]:
    args = [str(runner), "--model", str(model), "--output-dir", str(out)]
    for path in inputs:
        args += ["--input", str(path)]
    return subprocess.run(args, capture_output=True, text=True, timeout=300)


def error_line(proc: subprocess.CompletedProcess[str]) -> str:
    assert proc.returncode != 0
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    return lines[0]


def test_the_programs_delegate_their_dynamic_work(exported: dict[str, Path]) -> None:
    """Each program's dynamic dims reach XNNPACK delegates (not only the ops around them)."""
    from bot.selection import xnnpack

    for name, model in exported.items():
        graphs = [xnnpack.read_xnn_payload(p) for b, p in xnnpack.delegate_payloads(model) if b == xnnpack.BACKEND_ID]
        assert graphs and all(graph.nodes for graph in graphs), name


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_every_size_within_the_bounds_matches_executorch(
    name: str, exported: dict[str, Path], runner: Path, tmp_path: Path
) -> None:
    model = exported[name]
    for k, shape in enumerate(PROGRAMS[name].sizes):
        array = make_input(name, shape, seed=k)
        path = tmp_path / f"in{k}.npy"
        np.save(path, array)
        proc = run(runner, model, [path], tmp_path / f"out{k}")
        assert proc.returncode == 0, (shape, proc.stderr)
        ours = np.load(tmp_path / f"out{k}" / "output0.npy")
        theirs = executorch_output(model, array)
        assert ours.shape == theirs.shape, shape
        assert np.abs(ours.astype(np.float64) - theirs).max() <= tolerance(name, model, theirs), shape


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_one_method_runs_every_size_in_turn_without_the_heap(
    name: str, exported: dict[str, Path], all_ops_build: Path, tmp_path: Path
) -> None:
    """Shrinking, growing back to the bound, repeating a size: each execute re-derives (or keeps) the
    delegate's shapes, allocating nothing, and matches ExecuTorch."""
    model = exported[name]
    sizes = PROGRAMS[name].sizes
    order = [*sizes, sizes[0], *reversed(sizes)]
    paths = []
    for k, shape in enumerate(order):
        paths.append(tmp_path / f"in{k}.npy")
        np.save(paths[-1], make_input(name, shape, seed=sizes.index(shape)))
    runs = ";".join(map(str, paths))
    proc = subprocess.run(
        [str(all_ops_build / "execute_alloc_test"), "--output-dir", str(tmp_path / "out"), f"{model}={runs}"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.strip() == f"{model} allocations_during_execute=0"
    for k, path in enumerate(paths):
        ours = np.load(tmp_path / "out" / f"model0.run{k}.output0.npy")
        theirs = executorch_output(model, np.load(path))
        assert ours.shape == theirs.shape, order[k]
        assert np.abs(ours.astype(np.float64) - theirs).max() <= tolerance(name, model, theirs), order[k]


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_a_shape_past_the_bound_is_one_error_line(
    name: str, exported: dict[str, Path], runner: Path, tmp_path: Path
) -> None:
    shape = PROGRAMS[name].past_bound
    path = tmp_path / "big.npy"
    np.save(path, make_input(name, shape, seed=0))
    line = error_line(run(runner, exported[name], [path], tmp_path / "out"))
    assert str(list(shape)) in line
    # More elements than the input's bound: the method refuses them. A dim past its bound within
    # the elements (a taller, narrower image): the delegate does.
    assert "beyond its bound" in line or "its XNNPACK graph takes at most" in line, line


def test_a_delegate_input_past_its_graph_bound_is_one_error_line(
    exported: dict[str, Path], runner: Path, tmp_path: Path
) -> None:
    """The method's input bound raised past the delegate's: the delegate refuses the shape itself."""
    program = PROGRAMS["cnn_f32"]
    raised = program.past_bound[0]
    model = tmp_path / "raised.pte"
    model.write_bytes(ddp.with_input_bound(exported["cnn_f32"].read_bytes(), 0, raised))
    path = tmp_path / "big.npy"
    np.save(path, make_input("cnn_f32", program.past_bound, seed=0))
    line = error_line(run(runner, model, [path], tmp_path / "out"))
    bound = [raised - 1, *program.past_bound[1:]]  # the batch Dim's max, as the delegate holds it
    assert line.endswith(
        f"XnnpackBackend): delegate input 0 has shape {list(program.past_bound)}, "
        f"its XNNPACK graph takes at most {bound} (in memory order, no dim empty)"
    )


def test_a_shape_a_node_cannot_take_is_one_error_line(exported: dict[str, Path], runner: Path, tmp_path: Path) -> None:
    """Within the input's bound, an odd length cannot be split into pairs: the reshape's rule says so."""
    path = tmp_path / "odd.npy"
    np.save(path, make_input("pairs_f32", (2, 5, 8), seed=0))
    line = error_line(run(runner, exported["pairs_f32"], [path], tmp_path / "out"))
    assert "(static_reshape): cannot reshape 80 elements to [2, 0, 16]" in line


@pytest.fixture(scope="module")
def sanitized() -> Path:
    return cmake.runner_path(cmake.build(SANITIZED))


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_every_size_runs_clean_under_sanitizers(
    name: str, exported: dict[str, Path], sanitized: Path, tmp_path: Path
) -> None:
    program = PROGRAMS[name]
    for k, shape in enumerate([*program.sizes, program.past_bound]):
        path = tmp_path / f"in{k}.npy"
        np.save(path, make_input(name, shape, seed=k))
        proc = run(sanitized, exported[name], [path], tmp_path / f"out{k}")
        assert not any(marker in proc.stderr for marker in SANITIZER_REPORT), proc.stderr[-3000:]
        assert proc.returncode == (1 if shape == program.past_bound else 0), proc.stderr[-3000:]


def test_refusals_run_clean_under_sanitizers(exported: dict[str, Path], sanitized: Path, tmp_path: Path) -> None:
    """A reshape that cannot divide, and an input past its delegate's bound, stop cleanly."""
    raised = tmp_path / "raised.pte"
    raised.write_bytes(ddp.with_input_bound(exported["cnn_f32"].read_bytes(), 0, PROGRAMS["cnn_f32"].past_bound[0]))
    cases = [("pairs_f32", exported["pairs_f32"], (2, 5, 8)), ("cnn_f32", raised, PROGRAMS["cnn_f32"].past_bound)]
    for k, (name, model, shape) in enumerate(cases):
        path = tmp_path / f"in{k}.npy"
        np.save(path, make_input(name, shape, seed=k))
        proc = run(sanitized, model, [path], tmp_path / f"out{k}")
        assert not any(marker in proc.stderr for marker in SANITIZER_REPORT), proc.stderr[-3000:]
        assert "XnnpackBackend" in error_line(proc)
