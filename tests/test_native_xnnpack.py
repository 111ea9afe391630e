"""XnnpackBackend (native/backends/xnnpack) on real XNNPACK-delegated programs.

The delegated zoo (models/delegated, exported by ExecuTorch's partitioner and quantizer, references
from ExecuTorch's runtime with XNNPACK) runs on the all-ops runtime, which registers the backend
because its selection holds the xnnpack:: node kinds. fp32 and dynamically quantized (qd8, fp32
outputs) programs match within 1e-4; static int8 (qs8) programs within one quantization step of their
output. A selective runtime whose yaml lacks a node kind fails at load in one line naming it.
"""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from bot.build import cmake
from bot.selection import oplist, trace, xnnpack
from tests import delegated_programs as dp
from tests.test_optimized import CPUS, SANITIZER_REPORT, sanitized_optimized  # noqa: F401 (a fixture)

DELEGATED = cmake.REPO_ROOT / "models" / "delegated"
PROGRAMS = sorted(p.stem for p in DELEGATED.glob("*.pte"))
STATIC_INT8 = [name for name in PROGRAMS if "_xnn_qs8" in name]
FLOAT_OUT = [name for name in PROGRAMS if name not in STATIC_INT8]  # fp32, and qd8 (fp32 in and out)
TOLERANCE = 1e-4
NODE_KIND = re.compile(r"xnnpack::[a-z0-9_]+\.[a-z0-9_]+")


def numbered(name: str, kind: str) -> list[Path]:
    return sorted(DELEGATED.glob(f"{name}.{kind}*.npy"), key=lambda p: int(p.stem.rsplit(kind, 1)[1]))


def run(runner: Path, model: Path, inputs: list[Path], out: Path) -> subprocess.CompletedProcess[str]:
    args = [str(runner), "--model", str(model), "--output-dir", str(out)]
    for path in inputs:
        args += ["--input", str(path)]
    return subprocess.run(args, capture_output=True, text=True, timeout=300)


def test_the_zoo_has_every_kind() -> None:
    assert len(STATIC_INT8) >= 4 and any(n.endswith("_f32") for n in FLOAT_OUT) and any("_qd8" in n for n in FLOAT_OUT)


@pytest.mark.parametrize("name", FLOAT_OUT)
def test_float_programs_match_executorch(name: str, runner: Path, tmp_path: Path) -> None:
    proc = run(runner, DELEGATED / f"{name}.pte", numbered(name, "input"), tmp_path)
    assert proc.returncode == 0, proc.stderr
    expected = numbered(name, "expected")
    assert expected
    for i, path in enumerate(expected):
        want = np.load(path)
        got = np.load(tmp_path / f"output{i}.npy")
        assert got.shape == want.shape
        assert np.abs(got.astype(np.float64) - want).max() <= TOLERANCE, name


def output_step(pte: Path) -> float:
    """The quantization step of the program's int8 output: the scale of the last delegate's last convert
    (the program dequantizes its output there)."""
    graphs = [xnnpack.read_xnn_payload(p) for b, p in xnnpack.delegate_payloads(pte) if b == xnnpack.BACKEND_ID]
    converts = [n for n in graphs[-1].nodes if n.kind == "XNNConvert"]
    assert converts, pte
    scale = graphs[-1].values[converts[-1].inputs[0]].scale
    assert scale is not None, pte
    return scale


@pytest.mark.parametrize("name", STATIC_INT8)
def test_int8_programs_match_within_one_step(name: str, runner: Path, tmp_path: Path) -> None:
    pte = DELEGATED / f"{name}.pte"
    proc = run(runner, pte, numbered(name, "input"), tmp_path)
    assert proc.returncode == 0, proc.stderr
    step = output_step(pte)
    for i, path in enumerate(numbered(name, "expected")):
        want = np.load(path)
        got = np.load(tmp_path / f"output{i}.npy")
        assert got.shape == want.shape
        assert np.abs(got.astype(np.float64) - want).max() <= step * 1.001, name


@pytest.fixture(scope="module")
def simd_runner() -> Path:
    """The all-ops runtime built for speed (x86-64-v3, the benchmarks' cpu): only such a runtime carries the
    int8 micro-kernels' SIMD variants (a size-first one keeps their portable versions alone)."""
    return cmake.runner_path(cmake.build(cmake.optimized_all_ops(CPUS[0])))


def run_capped(runner: Path, name: str, cap: str, out: Path) -> list[bytes]:
    """The program's outputs with the int8 micro-kernels capped at `cap` ("" for the CPU's best variant)."""
    out.mkdir()
    args = [str(runner), "--model", str(DELEGATED / f"{name}.pte"), "--output-dir", str(out)]
    for path in numbered(name, "input"):
        args += ["--input", str(path)]
    env = {key: value for key, value in os.environ.items() if key != "SB_XNNPACK_KERNELS"}
    if cap:
        env["SB_XNNPACK_KERNELS"] = cap
    proc = subprocess.run(args, capture_output=True, text=True, timeout=300, env=env)
    assert proc.returncode == 0, proc.stderr
    assert not any(marker in proc.stderr for marker in SANITIZER_REPORT), proc.stderr
    return [np.load(out / f"output{i}.npy").tobytes() for i in range(len(numbered(name, "expected")))]


@pytest.mark.parametrize("name", STATIC_INT8)
def test_int8_kernel_variants_give_the_same_bytes(name: str, simd_runner: Path, tmp_path: Path) -> None:
    """The best int8 micro-kernels of this CPU, the AVX2 ones and the portable ones (what Arm targets and
    size-first runtimes run, which test_int8_programs_match_within_one_step holds to ExecuTorch) give the
    same bytes (SB_XNNPACK_KERNELS caps the choice on x86-64)."""
    best = run_capped(simd_runner, name, "", tmp_path / "best")
    for cap in ("avx2", "portable"):
        assert run_capped(simd_runner, name, cap, tmp_path / cap) == best, (name, cap)


@pytest.mark.parametrize("name", STATIC_INT8)
def test_int8_kernel_variants_under_sanitizers(name: str, sanitized_optimized: Path, tmp_path: Path) -> None:  # noqa: F811
    """Every variant of the int8 micro-kernels on the zoo's int8 programs, under ASan and UBSan."""
    best = run_capped(sanitized_optimized, name, "", tmp_path / "best")
    for cap in ("avx2", "portable"):
        assert run_capped(sanitized_optimized, name, cap, tmp_path / cap) == best, (name, cap)


def test_a_yaml_without_a_node_kind_fails_at_load_in_one_line(tmp_path: Path) -> None:
    """A selective runtime from a yaml that lacks a node kind the program's delegate holds (a stale yaml):
    the load names it, with the delegate, in one line."""
    name = "mobilenet_v2_xnn_f32"
    selection = oplist.load(cmake.REPO_ROOT / "models" / "oplist" / f"{name}.yaml")
    assert "xnnpack::depthwise_conv2d.f32" in selection.operators
    lacking = replace(
        selection,
        operators={op: v for op, v in selection.operators.items() if op != "xnnpack::depthwise_conv2d.f32"},
        et_kernel_metadata={
            op: v for op, v in selection.et_kernel_metadata.items() if op != "xnnpack::depthwise_conv2d.f32"
        },
    )
    yaml_path = tmp_path / "lacking.yaml"
    oplist.dump(lacking, yaml_path)
    runner = cmake.runner_path(cmake.build(cmake.selective_flavour(yaml_path), targets=("executor_runner",)))
    proc = run(runner, DELEGATED / f"{name}.pte", numbered(name, "input"), tmp_path / "out")
    assert proc.returncode != 0
    assert proc.stderr.strip().splitlines() == [
        "error: missing operator xnnpack::depthwise_conv2d.f32 (needed by delegate 0 of XnnpackBackend)"
    ]
    assert NODE_KIND.search(proc.stderr)


@pytest.fixture(scope="module")
def small_programs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return dp.export(tmp_path_factory.mktemp("delegated"))


@pytest.mark.parametrize("name", dp.MODELS)
def test_inline_segment_and_several_delegates(
    name: str, small_programs: dict[str, Path], runner: Path, tmp_path: Path
) -> None:
    """Payloads inline and in segments, two delegates around one of our kernels: as ExecuTorch runs them."""
    import torch
    from executorch.runtime import Runtime

    shapes = {"linear": (2, 8), "linear_inline": (2, 8), "conv_cumsum": (1, 3, 8, 8), "two_delegates": (2, 8)}
    x = torch.randn(*shapes[name], generator=torch.Generator().manual_seed(7))
    np.save(tmp_path / "x.npy", x.numpy())
    want = Runtime.get().load_program(small_programs[name]).load_method("forward").execute([x])[0].numpy()
    proc = run(runner, small_programs[name], [tmp_path / "x.npy"], tmp_path / "out")
    assert proc.returncode == 0, proc.stderr
    assert np.abs(np.load(tmp_path / "out" / "output0.npy") - want).max() <= TOLERANCE


def test_node_kinds_are_traced(tmp_path: Path) -> None:
    """The model tracer records the node kinds that ran inside the delegate, and the ops they called."""
    name = "mobilenet_v2_xnn_f32"
    tracer = cmake.runner_path(cmake.build(trace.TRACER, targets=("executor_runner",)))
    out = tmp_path / "trace.yaml"
    inputs = [arg for path in numbered(name, "input") for arg in ("--input", str(path))]
    proc = subprocess.run(
        [str(tracer), "--model", str(DELEGATED / f"{name}.pte"), "--trace-out", str(out), *inputs],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    text = out.read_text()
    assert "xnnpack::conv2d.f32" in text and "aten::convolution.out" in text
