"""Node kinds beyond the delegated zoo's, on XnnpackBackend (native/backends/xnnpack): deconvolutions (fp32,
int8 per channel and per tensor, fp16), dynamically quantized (qd8) convolutions, bilinear resizes, PReLU
and fp16 programs, in small programs exported at test time by ExecuTorch's own exporters
(tests/delegated_programs.py `export_kinds`), each against ExecuTorch's runtime with its XNNPACK backend on
the same file.

fp32 programs and qd8 ones (fp32 in and out) match within 1e-4; static int8 ones within one quantization
step of their output; fp16 ones within 8 fp16 ulps at the output's largest magnitude (XNNPACK rounds each
fp16 operator's result, and its fp16 GEMMs accumulate in fp16 or fp32 by CPU, where ATen's Half kernels
accumulate in fp32). `bot oplist` lists the new node kinds, and a runtime built from those lists runs the
programs. Hostile geometry in the new nodes ends in one error line.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from bot.build import cmake
from bot.selection import oplist, xnnpack
from tests import delegated_programs as dp
from tests.test_native_xnnpack import TOLERANCE, output_step
from tests.test_native_xnnpack_hostile import check_one_line, node_fields
from tests.test_optimized import SANITIZER_REPORT, optimized_build, sanitized_optimized  # noqa: F401 (fixtures)

# What each program is there for: node kinds its delegates must hold.
NEW_KINDS = {
    "deconv_f32": {"xnnpack::conv_transpose2d.f32"},
    "deconv_qs8": {"xnnpack::conv_transpose2d.qs8_qc8w"},
    "deconv_qs8_pt": {"xnnpack::conv_transpose2d.qs8"},
    "deconv_f16": {"xnnpack::conv_transpose2d.f16_f32w", "xnnpack::concatenate4.f16"},
    "convs_qd8": {"xnnpack::conv2d.qd8_qc8w", "xnnpack::conv_transpose2d.qd8_qc8w"},
    "resize_f32": {"xnnpack::static_resize_bilinear2d.f32"},
    "prelu_f32": {"xnnpack::prelu.f32"},
    "residual_qs8": {"xnnpack::add.qs8", "xnnpack::conv2d.qs8_qc8w", "xnnpack::max_pooling2d.qs8"},
    "cnn_f16": {
        "xnnpack::conv2d.f16_f32w",
        "xnnpack::depthwise_conv2d.f16_f32w",
        "xnnpack::hardswish.f16",
        "xnnpack::prelu.f16",
        "xnnpack::max_pooling2d.f16",
        "xnnpack::avg_pooling2d.f16",
        "xnnpack::static_resize_bilinear2d.f16",
        "xnnpack::global_avg_pooling2d.f16",
        "xnnpack::fully_connected.f16",
    },
    "small_planes_f32": {"xnnpack::max_pooling2d.f32", "xnnpack::conv2d.f32"},
    "attention_f16": {
        "xnnpack::fully_connected.f16",
        "xnnpack::batch_matrix_multiply.f16",
        "xnnpack::softmax.f16",
        "xnnpack::static_slice.f16",
        "xnnpack::concatenate2.f16",
    },
}
FP16_ULPS = 8
# XNNPACK node union numbers (schema.fbs XNodeUnion).
CONV_TRANSPOSE_2D, RESIZE_BILINEAR_2D = 39, 9


@pytest.fixture(scope="module")
def kind_programs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return dp.export_kinds(tmp_path_factory.mktemp("kinds"))


def reference(pte: Path, inputs: tuple) -> list[np.ndarray]:
    from executorch.runtime import Runtime

    method = Runtime.get().load_program(pte).load_method("forward")
    return [out.detach().numpy() for out in method.execute(list(inputs))]


def run(runner: Path, pte: Path, inputs: tuple, out: Path) -> subprocess.CompletedProcess[str]:
    out.mkdir(parents=True, exist_ok=True)
    args = [str(runner), "--model", str(pte), "--output-dir", str(out)]
    for i, tensor in enumerate(inputs):
        np.save(out / f"input{i}.npy", tensor.numpy())
        args += ["--input", str(out / f"input{i}.npy")]
    return subprocess.run(args, capture_output=True, text=True, timeout=300)


def tolerance(name: str, pte: Path, want: np.ndarray) -> float:
    if name == "residual_qs8":
        return 0.0  # the same integers as XNNPACK: its adds are fixed point, and so are ours
    if name.endswith("_f16"):
        return FP16_ULPS * float(np.spacing(np.abs(want).max().astype(np.float16)))
    if "_qs8" in name:
        return output_step(pte) * 1.001
    return TOLERANCE


def check_matches(name: str, pte: Path, runner: Path, out: Path) -> None:
    inputs = dp.kind_inputs(name)
    proc = run(runner, pte, inputs, out)
    assert proc.returncode == 0, proc.stderr
    expected = reference(pte, inputs)
    assert expected
    for i, want in enumerate(expected):
        got = np.load(out / f"output{i}.npy")
        assert got.dtype == want.dtype and got.shape == want.shape, name
        diff = np.abs(got.astype(np.float64) - want.astype(np.float64)).max()
        assert diff <= tolerance(name, pte, want), (name, diff)


@pytest.mark.parametrize("name", dp.KIND_PROGRAMS)
def test_programs_hold_the_new_kinds(name: str, kind_programs: dict[str, Path]) -> None:
    """The exporters put the node kinds each program is for into its delegates (else the test below
    would prove nothing about them)."""
    kinds = set(xnnpack.program_node_kinds(kind_programs[name]))
    assert NEW_KINDS[name] <= kinds, sorted(kinds)


@pytest.mark.parametrize("name", dp.KIND_PROGRAMS)
def test_kind_programs_match_executorch(
    name: str, kind_programs: dict[str, Path], runner: Path, tmp_path: Path
) -> None:
    check_matches(name, kind_programs[name], runner, tmp_path)


# Programs whose pools and convolutions take the optimized runtime's own paths (pools of small planes,
# strided convolutions with few output columns), on every cpu the optimized library is built for.
OPTIMIZED_PATHS = ("small_planes_f32", "cnn_f16", "residual_qs8")


@pytest.mark.parametrize("name", OPTIMIZED_PATHS)
def test_kind_programs_match_executorch_on_optimized_runtimes(
    name: str,
    kind_programs: dict[str, Path],
    optimized_build: Path,  # noqa: F811
    tmp_path: Path,
) -> None:
    check_matches(name, kind_programs[name], cmake.runner_path(optimized_build), tmp_path)


def test_small_planes_under_sanitizers(
    kind_programs: dict[str, Path],
    sanitized_optimized: Path,  # noqa: F811
    tmp_path: Path,
) -> None:
    inputs = dp.kind_inputs("small_planes_f32")
    proc = run(sanitized_optimized, kind_programs["small_planes_f32"], inputs, tmp_path)
    assert not any(marker in proc.stderr for marker in SANITIZER_REPORT), proc.stderr[-3000:]
    check_matches("small_planes_f32", kind_programs["small_planes_f32"], sanitized_optimized, tmp_path / "again")


# The kind programs by dtype family, each family's runtime selected from its own programs' traces.
FAMILIES = ("f32", "qs8", "f16", "qd8")
# Planner lowerings (native/backends/xnnpack/plan.cpp) that only one family's node kinds reach: a runtime
# keeps one only when it selects such a kind (selection.h).
FAMILY_LOWERINGS = {"f16": "Compiler::half_weighted", "qd8": "Compiler::dynamic_convolution"}


def family(name: str) -> str:
    return next(f for f in FAMILIES if f"_{f}" in name)


def symbols(binary: Path) -> str:
    return subprocess.run(["nm", "-C", str(binary)], capture_output=True, text=True, check=True).stdout


@pytest.mark.parametrize("dtypes", FAMILIES)
def test_oplist_lists_the_new_kinds_and_their_runtime_runs_them(
    dtypes: str, kind_programs: dict[str, Path], runner: Path, tmp_path: Path
) -> None:
    """`bot oplist` of each program lists the node kinds its delegates hold; traced (`--trace`), the ops
    they call too. A selective runtime built from one dtype family's merged traces (nothing else) runs
    every program of the family as ExecuTorch does, and compiles none of the planner's lowerings that
    only another family's kinds reach (the all-ops runtime shows them as functions of their own; in the
    family's own runtime the compiler may inline one into its one caller)."""
    programs = {name: pte for name, pte in kind_programs.items() if family(name) == dtypes}
    assert programs
    traced = []
    for name, pte in programs.items():
        static = oplist.from_model(pte, name).operators
        assert {op for op in static if op.startswith("xnnpack::")} == set(xnnpack.program_node_kinds(pte))
        inputs = []
        for i, tensor in enumerate(dp.kind_inputs(name)):
            np.save(tmp_path / f"{name}.input{i}.npy", tensor.numpy())
            inputs += ["--input", str(tmp_path / f"{name}.input{i}.npy")]
        path = tmp_path / f"{name}.yaml"
        proc = subprocess.run(
            [sys.executable, "-m", "bot", "oplist", str(pte), "--trace", *inputs, "-o", str(path)],
            capture_output=True,
            text=True,
            cwd=cmake.REPO_ROOT,
        )
        assert proc.returncode == 0, proc.stderr
        selection = oplist.load(path)
        assert NEW_KINDS[name] <= set(selection.operators), sorted(selection.operators)
        traced.append(selection)
    merged = tmp_path / f"{dtypes}.yaml"
    oplist.dump(oplist.merge(traced), merged)
    family_runner = cmake.runner_path(cmake.build(cmake.selective_flavour(merged), targets=("executor_runner",)))
    for name, pte in programs.items():
        check_matches(name, pte, family_runner, tmp_path / "out" / name)
    everything, selected = symbols(runner), symbols(family_runner)
    for owner, lowering in FAMILY_LOWERINGS.items():
        assert lowering in everything, lowering
        assert owner == dtypes or lowering not in selected, (dtypes, lowering)


# (program, union type, {field: value}, what the one error line says)
HOSTILE = {
    "deconv_zero_stride": ("deconv_f32", CONV_TRANSPOSE_2D, {6: 0}, "zero kernel size, stride"),
    "deconv_huge_groups": ("deconv_f32", CONV_TRANSPOSE_2D, {12: 0xFFFFFFF0}, "filter's shape does not match"),
    "deconv_wrong_kernel": ("deconv_qs8", CONV_TRANSPOSE_2D, {5: 7}, "filter's shape does not match"),
    "deconv_huge_stride": ("deconv_f32", CONV_TRANSPOSE_2D, {6: 0xFFFFFFFF}, "output's size does not match"),
    "resize_wrong_size": ("resize_f32", RESIZE_BILINEAR_2D, {0: 1000}, "is not its input's resized"),
    "resize_zero_size": ("resize_f32", RESIZE_BILINEAR_2D, {1: 0}, "is not its input's resized"),
}


@pytest.mark.parametrize("case", HOSTILE)
def test_hostile_geometry_is_one_error_line(
    case: str, kind_programs: dict[str, Path], runner: Path, tmp_path: Path
) -> None:
    name, kind, changes, text = HOSTILE[case]
    data = kind_programs[name].read_bytes()
    patched = node_fields(kind, changes)(data)
    assert patched != data
    model = tmp_path / f"{case}.pte"
    model.write_bytes(patched)
    proc = subprocess.run([str(runner), "--model", str(model)], capture_output=True, text=True, timeout=120)
    check_one_line(proc, text)
