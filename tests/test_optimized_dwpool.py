"""The optimized library's depthwise convolution and pooling kernels against ExecuTorch's runtime.

Tiny torch models (depthwise convolutions and pools over interior, border, stride, dilation,
padding, odd sizes and ceil_mode) are exported with executorch (to_edge then to_executorch,
portable, as tests/conformance/export.py does), ExecuTorch's runtime computes the reference, and
the optimized-all-ops runtime must match it: floats within 1e-4 (abs + rel), max-pool indices
exactly (where ExecuTorch's runtime departs from ATen, on NaN in max pools, ATen's result is
accepted, as the conformance check does). Cases the fast paths do not take (dilated pools,
divisor_override, mean over an outer dim) check the hand-off to the portable kernels. The
conformance fixtures of these ops run on the optimized runtime too.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from bot.build import cmake
from tests.conformance import check
from tests.conformance.layout import Fixture, fixtures

torch = pytest.importorskip("torch")
nn = torch.nn

OPS = (
    "aten::convolution.out",
    "aten::max_pool2d_with_indices.out",
    "aten::avg_pool2d.out",
    "aten::_adaptive_avg_pool2d.out",
    "aten::mean.out",
)
TOLERANCE = 1e-4


@dataclass(frozen=True)
class Case:
    id: str
    op: str  # the op the exported program must hold
    make: Callable[[], nn.Module]
    shape: tuple[int, ...]
    special: bool = False  # input holds NaN, -inf and ties


class _Fn(nn.Module):
    def __init__(self, fn: Callable[[torch.Tensor], torch.Tensor]) -> None:
        super().__init__()
        self.fn = fn

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fn(x)


def _dw(
    c: int, k: int | tuple[int, int], s: int | tuple[int, int], p: int | tuple[int, int], d: int = 1, bias: bool = True
) -> Callable[[], nn.Module]:
    return lambda: nn.Conv2d(c, c, k, stride=s, padding=p, dilation=d, groups=c, bias=bias)


def _mp(k: int, s: int | None, p: int, d: int = 1, ceil: bool = False) -> Callable[[], nn.Module]:
    return lambda: nn.MaxPool2d(k, s, p, dilation=d, ceil_mode=ceil, return_indices=True)


def _ap(
    k: int, s: int | None, p: int, ceil: bool = False, include: bool = True, div: int | None = None
) -> Callable[[], nn.Module]:
    return lambda: nn.AvgPool2d(k, s, p, ceil_mode=ceil, count_include_pad=include, divisor_override=div)


CONV = "aten::convolution.out"
MAX = "aten::max_pool2d_with_indices.out"
AVG = "aten::avg_pool2d.out"
ADA = "aten::_adaptive_avg_pool2d.out"
MEAN = "aten::mean.out"

CASES = [
    # depthwise: 3x3 / 5x5, stride 1 / 2, odd and wide rows (column tiles), dilation, asymmetric
    Case("dw3_s1_p1", CONV, _dw(4, 3, 1, 1), (1, 4, 9, 13)),
    Case("dw3_s2_p1", CONV, _dw(4, 3, 2, 1), (2, 4, 11, 37)),
    Case("dw3_s2_p0_nobias", CONV, _dw(3, 3, 2, 0, bias=False), (1, 3, 10, 10)),
    Case("dw5_s1_p2", CONV, _dw(5, 5, 1, 2), (1, 5, 7, 19)),
    Case("dw5_s2_p2", CONV, _dw(6, 5, 2, 2), (1, 6, 14, 14)),
    Case("dw3_s1_dil2", CONV, _dw(2, 3, 1, 2, d=2), (1, 2, 12, 15)),
    Case("dw_k3x5_s2x1", CONV, _dw(3, (3, 5), (2, 1), (1, 2)), (1, 3, 9, 17)),
    Case("dw3_s1_wide", CONV, _dw(2, 3, 1, 1), (1, 2, 4, 2100)),
    Case("dw3_s3_p1", CONV, _dw(2, 3, 3, 1), (1, 2, 10, 23)),
    Case("dw7_s1_p3_tiny", CONV, _dw(2, 7, 1, 3), (1, 2, 3, 4)),
    Case("dw_mult2_s2", CONV, lambda: nn.Conv2d(3, 6, 3, stride=2, padding=1, groups=3), (2, 3, 9, 13)),
    Case("dw3_s1_p1_batch", CONV, _dw(8, 3, 1, 1), (3, 8, 6, 70)),
    # tiny planes, many channels: vectorised over channels (a partial last block of 128)
    Case("dw3_tiny_channels", CONV, _dw(140, 3, 1, 1), (2, 140, 2, 3)),
    Case("dw5_s2_tiny_channels", CONV, _dw(24, 5, 2, 2), (1, 24, 4, 4)),
    # x86-64-v4's lane-masked path: planes whose items fill the mask tables several times (stride 1, 2, 3),
    # padding wider than the kernel reaches (items within a row; all-padding outputs are the bias), 7x7 over
    # long rows, a channel multiplier with dilation, stride 2 on odd widths
    Case("dw3_s1_groups", CONV, _dw(3, 3, 1, 1), (1, 3, 75, 70)),
    Case("dw3_s2_groups", CONV, _dw(3, 3, 2, 1), (2, 3, 97, 90)),
    Case("dw5_s3_groups", CONV, _dw(2, 5, 3, 2), (1, 2, 61, 131)),
    Case("dw3_pad_beyond", CONV, _dw(3, 3, 1, 3), (1, 3, 5, 6)),
    Case("dw7_s1_long_rows", CONV, _dw(2, 7, 1, 3), (1, 2, 9, 1100)),
    Case(
        "dw_mult3_dil2_s2",
        CONV,
        lambda: nn.Conv2d(2, 6, 3, stride=2, padding=2, dilation=2, groups=2),
        (1, 2, 15, 21),
    ),
    Case("dw3_s2_odd_33", CONV, _dw(5, 3, 2, 0), (1, 5, 33, 33)),
    # x86-64-v4's stride-1 rows (3x3, 5x5, rows over half a vector): each input row loaded once for the
    # outputs rows it feeds, planes two at a time (an odd last one), a multiplier, chunks of 16 columns
    Case("dw3_s1_rows_mult2", CONV, lambda: nn.Conv2d(3, 6, 3, padding=1, groups=3), (2, 3, 11, 12)),
    Case("dw5_s1_p0_rows_36", CONV, _dw(3, 5, 1, 0), (1, 3, 9, 40)),
    Case("dw3_s1_rows_9_nobias", CONV, _dw(5, 3, 1, 1, bias=False), (1, 5, 4, 9)),
    # 1x1 planes at x86-64-v4: vectorised over channels (a partial block of 16), the one tap meeting the
    # input, or none (dilation steps over it: the bias alone)
    Case("dw3_1x1_nobias", CONV, _dw(40, 3, 1, 1, bias=False), (2, 40, 1, 1)),
    Case("dw5_1x1_s2", CONV, _dw(19, 5, 2, 2), (1, 19, 1, 1)),
    Case("dw2_1x1_dil2_no_tap", CONV, _dw(17, 2, 1, 1, d=2), (1, 17, 1, 1)),
    # max pool: resnet/shufflenet's 3x3 s2 p1, ceil_mode, odd sizes, ties/NaN/-inf, dilation (portable)
    Case("mp3_s2_p1", MAX, _mp(3, 2, 1), (1, 3, 13, 17)),
    Case("mp3_s2_p1_special", MAX, _mp(3, 2, 1), (1, 2, 9, 21), special=True),
    Case("mp2_s2_ceil", MAX, _mp(2, 2, 0, ceil=True), (2, 3, 7, 9)),
    Case("mp3_s2_ceil_p1", MAX, _mp(3, 2, 1, ceil=True), (1, 2, 10, 40), special=True),
    Case("mp3_s1_p1", MAX, _mp(3, 1, 1), (1, 2, 6, 35), special=True),
    Case("mp5_s3_p2", MAX, _mp(5, 3, 2), (1, 2, 16, 16)),
    Case("mp3_dil2", MAX, _mp(3, 1, 1, d=2), (1, 2, 9, 9)),
    # wide rows (many vectors of columns); tall wide planes take several bands of output rows
    Case("mp3_s1_p1_wide", MAX, _mp(3, 1, 1), (1, 2, 5, 300), special=True),
    Case("mp3_s2_ceil_wide", MAX, _mp(3, 2, 1, ceil=True), (1, 1, 6, 301)),
    Case("mp3_s2_p1_bands", MAX, _mp(3, 2, 1, ceil=True), (1, 2, 40, 301), special=True),
    # tiny planes, many of them (squeezenet, densenet, efficientnet shapes), stride above kernel
    Case("mp3_s2_ceil_sq", MAX, _mp(3, 2, 0, ceil=True), (1, 18, 23, 23), special=True),
    Case("mp3_s2_ceil_sq11", MAX, _mp(3, 2, 0, ceil=True), (1, 33, 11, 11)),
    Case("mp2_s3", MAX, _mp(2, 3, 0), (1, 3, 11, 14)),
    # avg pool: padding with/without count_include_pad, ceil_mode, divisor_override (portable)
    Case("ap2_s2", AVG, _ap(2, 2, 0), (1, 3, 8, 10)),
    Case("ap3_s1_p1_incl", AVG, _ap(3, 1, 1), (1, 2, 7, 19)),
    Case("ap3_s2_p1_excl", AVG, _ap(3, 2, 1, include=False), (2, 2, 9, 11)),
    Case("ap3_s2_p1_ceil_incl", AVG, _ap(3, 2, 1, ceil=True), (1, 2, 10, 38)),
    Case("ap3_s2_p1_ceil_excl", AVG, _ap(3, 2, 1, ceil=True, include=False), (1, 2, 10, 12)),
    Case("ap3_s2_p1_bands", AVG, _ap(3, 2, 1, ceil=True, include=False), (1, 2, 75, 301)),
    Case("ap2_s1_bands", AVG, _ap(2, 1, 0), (1, 1, 30, 700)),
    Case("ap3_div5", AVG, _ap(3, 2, 1, div=5), (1, 2, 7, 7)),
    # adaptive average pool and mean
    Case("ada_5x7_to_3x2", ADA, lambda: nn.AdaptiveAvgPool2d((3, 2)), (1, 3, 5, 7)),
    Case("ada_13x9_to_4x5", ADA, lambda: nn.AdaptiveAvgPool2d((4, 5)), (2, 2, 13, 9)),
    # mean over H, W: many planes (blocks of 16 and a partial one), counts below, at and above a vector
    Case("mean_hw_1", MEAN, lambda: _Fn(lambda x: x.mean((2, 3), keepdim=True)), (1, 75, 1, 1)),
    Case("mean_hw_4", MEAN, lambda: _Fn(lambda x: x.mean((2, 3), keepdim=True)), (2, 37, 2, 2)),
    Case("mean_hw_16", MEAN, lambda: _Fn(lambda x: x.mean((2, 3), keepdim=True)), (1, 40, 4, 4)),
    Case("mean_hw_49", MEAN, lambda: _Fn(lambda x: x.mean((2, 3), keepdim=True)), (1, 35, 7, 7)),
    Case("mean_hw_64", MEAN, lambda: _Fn(lambda x: x.mean((-1, -2))), (1, 17, 8, 8)),
    Case("mean_hw_3", MEAN, lambda: _Fn(lambda x: x.mean((2, 3), keepdim=True)), (1, 21, 1, 3)),
    Case("mean_hw_keepdim", MEAN, lambda: _Fn(lambda x: x.mean((2, 3), keepdim=True)), (2, 5, 7, 9)),
    Case("mean_hw", MEAN, lambda: _Fn(lambda x: x.mean((-1, -2))), (1, 6, 14, 14)),
    Case("mean_last", MEAN, lambda: _Fn(lambda x: x.mean(-1)), (3, 4, 37)),
    Case("mean_all", MEAN, lambda: _Fn(lambda x: x.mean((0, 1, 2))), (3, 4, 5)),
    Case("mean_outer_dim", MEAN, lambda: _Fn(lambda x: x.mean(1)), (2, 5, 6)),
]


def _input(case: Case) -> np.ndarray:
    rng = np.random.default_rng(abs(hash(case.id)) % 2**32)
    if not case.special:
        return rng.standard_normal(case.shape).astype(np.float32)
    x = rng.integers(-2, 3, case.shape).astype(np.float32)  # many ties
    flat = x.reshape(-1)
    flat[rng.choice(flat.size, flat.size // 10, replace=False)] = np.nan
    flat[rng.choice(flat.size, flat.size // 10, replace=False)] = -np.inf
    return x


def _export(case: Case, out: Path) -> None:
    from executorch.exir import to_edge
    from executorch.runtime import Runtime

    x = torch.from_numpy(_input(case))
    torch.manual_seed(0)
    module = case.make().eval()
    with torch.no_grad():
        program = to_edge(torch.export.export(module, (x,))).to_executorch()
    ops = {f"{op.name}.{op.overload}" for plan in program.executorch_program.execution_plan for op in plan.operators}
    assert case.op in ops, f"{case.id}: exported program holds {sorted(ops)}"
    outputs = Runtime.get().load_program(program.buffer).load_method("forward").execute([x.clone()])
    out.mkdir(parents=True)
    (out / "model.pte").write_bytes(program.buffer)
    np.save(out / "input0.npy", x.numpy())
    for i, o in enumerate(outputs):
        np.save(out / f"expected{i}.npy", o.numpy())
    with torch.no_grad():
        aten = module(x.clone())
    for i, o in enumerate(aten if isinstance(aten, tuple) else (aten,)):
        np.save(out / f"aten{i}.npy", o.numpy())


@pytest.fixture(scope="module")
def optimized_runner() -> Path:
    if not hasattr(cmake, "optimized_all_ops"):
        pytest.skip("no optimized library plumbing (cmake.optimized_all_ops)")
    return cmake.runner_path(cmake.build(cmake.optimized_all_ops("x86-64-v4")))


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip("executorch")
    root = tmp_path_factory.mktemp("dwpool")
    for case in CASES:
        _export(case, root / case.id)
    return root


def _compare(ours: np.ndarray, expected: np.ndarray) -> str | None:
    if ours.shape != expected.shape or ours.dtype != expected.dtype:
        return f"{ours.dtype}{list(ours.shape)} vs ExecuTorch {expected.dtype}{list(expected.shape)}"
    if ours.dtype != np.float32:
        bad = np.flatnonzero(ours != expected)
        return (
            None
            if bad.size == 0
            else f"{bad.size} differ, first at {bad[0]}: {ours.flat[bad[0]]} vs {expected.flat[bad[0]]}"
        )
    nan = np.isnan(expected)
    if not np.array_equal(nan, np.isnan(ours)):
        return "NaN positions differ"
    a, e = ours[~nan].astype(np.float64), expected[~nan].astype(np.float64)
    inf = np.isinf(e)
    if not np.array_equal(a[inf], e[inf]):
        return "infinities differ"
    err = np.abs(a[~inf] - e[~inf]) - TOLERANCE * (1 + np.abs(e[~inf]))
    return None if err.size == 0 or err.max() <= 0 else f"max excess error {err.max():.3g}"


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_case_matches_executorch(case: Case, exported: Path, optimized_runner: Path, tmp_path: Path) -> None:
    work = exported / case.id
    cmd = [str(optimized_runner), "--model", str(work / "model.pte"), "--input", str(work / "input0.npy")]
    proc = subprocess.run([*cmd, "--output-dir", str(tmp_path)], capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    expected = sorted(work.glob("expected*.npy"))
    ours = sorted(tmp_path.glob("output*.npy"))
    assert len(ours) == len(expected)
    for i, (o, e) in enumerate(zip(ours, expected, strict=True)):
        why = _compare(np.load(o), np.load(e))
        # ExecuTorch's max pool does not follow ATen's NaN rule (NaN wins); ours does, as conformance accepts.
        if why is not None and _compare(np.load(o), np.load(work / f"aten{i}.npy")) is None:
            continue
        assert why is None, f"{case.id} {o.name}: {why}"


OP_FIXTURES = [f for f in fixtures() if f.op in OPS]


@pytest.mark.parametrize("fixture", OP_FIXTURES, ids=[f.id for f in OP_FIXTURES])
def test_conformance_fixture_on_optimized_runtime(fixture: Fixture, optimized_runner: Path, tmp_path: Path) -> None:
    result = check.run_fixture(optimized_runner, fixture, tmp_path)
    if result.status == check.NO_PROGRAM:
        pytest.skip(result.message)
    assert result.passed, f"{fixture.id}: {result.status}: {result.message}"
