"""Runs a conformance fixture on our runtime and judges the result against ExecuTorch's.

Integer and bool outputs must be identical. Float outputs must have NaN where
ExecuTorch has NaN, the same infinities, and elsewhere |ours - theirs| <=
atol + rtol * |theirs| with the tolerance of their dtype (TOLERANCES). Shapes
and dtypes must match exactly.

Where ExecuTorch's runtime disagrees with eager PyTorch (the fixture holds
aten<i>.npy, see export.py), matching ATen's outputs instead passes too and is
recorded as such: the issue asks for ATen's semantics, and the wheel's runtime
runs some of ExecuTorch's optimized kernels, which do not always keep them.

A fixture ExecuTorch's runtime refused (refused.txt) passes either way: when
ours refuses too ("not supported by ExecuTorch either") and when ours computes
it (recorded: ExecuTorch not taking a dtype is no failure of ours).

A fixture without a program (unexpressible.txt: torch.export or to_edge cannot
express the op in that dtype) has nothing to run: its result is "no program",
neither pass nor fail, and the tests skip it with that reason.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from tests.conformance.layout import Fixture
from tests.conformance.spec import SHAPE_ONLY

# (rtol, atol) per output dtype. Kernels that agree on the math still differ in
# rounding: a transcendental from another libm, a sum in another order, a
# Half/BFloat16 result computed in float and rounded once instead of per step.
# - Float: ~80 ulp (eps 1.2e-7); a few-ulp libm difference or a reordered sum of
#   tens of terms stays well inside, a wrong formula does not.
# - Double: eps 2.2e-16; 1e-10 leaves room for reordering, not for float math.
# - Half: 10 mantissa bits, 1 ulp is 4.9e-4..9.8e-4 relative: 1e-3 is one
#   rounding step (ExecuTorch computes Half ops in float and rounds once).
# - BFloat16: 7 mantissa bits, 1 ulp is 3.9e-3..7.8e-3 relative: 1e-2 is one
#   rounding step.
TOLERANCES: dict[str, tuple[float, float]] = {
    "Float": (1e-5, 1e-5),
    "Double": (1e-10, 1e-10),
    "Half": (1e-3, 1e-3),
    "BFloat16": (1e-2, 1e-2),
}
# Complex outputs: each part as the real dtype of that part.
COMPLEX_PARTS = {"ComplexHalf": "Half", "ComplexFloat": "Float", "ComplexDouble": "Double"}
RUN_SECONDS = 60  # one single-op program on tens of elements takes milliseconds

PASS = "pass"  # computed, matches ExecuTorch
BOTH_REFUSE = "both refuse"  # ExecuTorch's runtime refused and so did ours
OURS_ONLY = "ours only"  # ExecuTorch's runtime refused; ours computed it
ATEN = "matches ATen"  # ExecuTorch's runtime differs from ATen; ours matches ATen
MISSING = "missing operator"  # our runtime has no kernel for the op
FAIL = "fail"  # wrong result, or refused what ExecuTorch computes
NO_PROGRAM = "no program"  # torch.export / to_edge cannot express the case: nothing to run
PASSING = (PASS, BOTH_REFUSE, OURS_ONLY, ATEN)


@dataclass(frozen=True)
class Result:
    status: str
    message: str = ""

    @property
    def passed(self) -> bool:
        return self.status in PASSING


def compare(actual: np.ndarray, expected: np.ndarray, dtype: str) -> str | None:
    """Why `actual` does not match `expected` (an output of dtype `dtype`), or None."""
    if actual.shape != expected.shape:
        return f"shape {list(actual.shape)}, ExecuTorch {list(expected.shape)}"
    if actual.dtype != expected.dtype:
        return f"dtype {actual.dtype}, ExecuTorch {expected.dtype}"
    if dtype == "BFloat16" and actual.dtype == np.float32:
        inexact = np.flatnonzero(actual.reshape(-1).view(np.uint32) & 0xFFFF)
        if inexact.size:
            return f"BFloat16 output written as float32 holds a value no bfloat16 has at flat index {inexact[0]}"
    if actual.size == 0:
        return None
    if dtype in COMPLEX_PARTS:  # judged as (re, im) pairs, with their parts' tolerance
        dtype = COMPLEX_PARTS[dtype]
        if np.iscomplexobj(expected):  # complex64/128; a ComplexHalf output is float16 pairs already
            actual = np.stack((actual.real, actual.imag), axis=-1)
            expected = np.stack((expected.real, expected.imag), axis=-1)
    if dtype not in TOLERANCES or not np.issubdtype(expected.dtype, np.floating):
        wrong = np.flatnonzero(actual.reshape(-1) != expected.reshape(-1))
        if wrong.size:
            i = int(wrong[0])
            return (
                f"{wrong.size} of {actual.size} elements differ (exact dtype {dtype}); "
                f"first at flat index {i}: {actual.reshape(-1)[i]!r}, ExecuTorch {expected.reshape(-1)[i]!r}"
            )
        return None
    rtol, atol = TOLERANCES[dtype]
    a = actual.reshape(-1).astype(np.float64)
    e = expected.reshape(-1).astype(np.float64)
    nan_a, nan_e = np.isnan(a), np.isnan(e)
    if (nan_a != nan_e).any():
        i = int(np.flatnonzero(nan_a != nan_e)[0])
        return f"NaN positions differ; first at flat index {i}: {a[i]!r}, ExecuTorch {e[i]!r}"
    inf_e = np.isinf(e) | np.isinf(a)
    if (a[inf_e] != e[inf_e]).any():
        i = int(np.flatnonzero(inf_e & (a != e))[0])
        return f"infinities differ; first at flat index {i}: {a[i]!r}, ExecuTorch {e[i]!r}"
    finite = ~(nan_e | inf_e)
    err = np.zeros_like(a)
    err[finite] = np.abs(a[finite] - e[finite]) - (atol + rtol * np.abs(e[finite]))
    if (err > 0).any():
        i = int(np.argmax(err))
        return (
            f"{int((err > 0).sum())} of {a.size} elements outside rtol {rtol:g} atol {atol:g} ({dtype}); "
            f"worst at flat index {i}: {a[i]!r}, ExecuTorch {e[i]!r}"
        )
    return None


def error_line(stderr: str, returncode: int) -> str:
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("error:")]
    line = (errors or lines or [f"exit {returncode}"])[-1]
    return line.removeprefix("error: ")


def run_fixture(runner: Path, fixture: Fixture, work: Path) -> Result:
    """Runs `fixture` on our runtime (`runner` is an all-ops executor_runner) and judges it."""
    if fixture.unexpressible is not None:
        return Result(NO_PROGRAM, fixture.unexpressible)
    out_dir = work / fixture.id
    cmd = [str(runner), "--model", str(fixture.path / "model.pte"), "--output-dir", str(out_dir)]
    for path in fixture.inputs():
        cmd += ["--input", str(path)]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, errors="replace", timeout=RUN_SECONDS, check=False)
    except subprocess.TimeoutExpired:
        return Result(FAIL, f"our runtime took over {RUN_SECONDS} s")
    refused = fixture.refused
    if proc.returncode != 0:
        line = error_line(proc.stderr, proc.returncode)
        if proc.returncode < 0:
            return Result(FAIL, f"our runtime crashed (signal {-proc.returncode}): {line}")
        if refused is not None:
            return Result(BOTH_REFUSE, f"ours: {line}; ExecuTorch: {refused}")
        if line.startswith("missing operator"):
            return Result(MISSING, line)
        return Result(FAIL, f"our runtime refused: {line}")
    if refused is not None:
        return Result(OURS_ONLY, f"ExecuTorch refuses ({refused}); ours computes it")
    expected = fixture.expected()
    outputs = sorted(out_dir.glob("output*.npy"), key=lambda p: int(p.stem.removeprefix("output")))
    if len(outputs) != len(expected):
        return Result(FAIL, f"{len(outputs)} outputs, ExecuTorch {len(expected)}")
    ours = [np.load(p) for p in outputs]
    why = compare_all(ours, expected, fixture)
    if why is None:
        return Result(PASS)
    aten = fixture.aten()
    if aten and compare_all(ours, aten, fixture) is None:
        return Result(ATEN, f"ExecuTorch's runtime differs from ATen ({fixture.meta['aten_differs']})")
    return Result(FAIL, why)


def compare_all(ours: list[np.ndarray], reference: list[Path], fixture: Fixture) -> str | None:
    for i, (actual, path) in enumerate(zip(ours, reference, strict=True)):
        expected = np.load(path)
        if SHAPE_ONLY in fixture.meta.get("tags", ()):  # values unspecified (rand, empty)
            if actual.shape != expected.shape or actual.dtype != expected.dtype:
                theirs = f"{expected.dtype}{list(expected.shape)}"
                return f"output {i}: {actual.dtype}{list(actual.shape)}, ExecuTorch {theirs}"
            continue
        why = compare(actual, expected, fixture.meta["outputs"][i]["dtype"])
        if why is not None:
            return f"output {i}: {why}"
    return None


def run_all(runner: Path, fixtures: list[Fixture], jobs: int | None = None) -> dict[str, Result]:
    """Results by fixture id; runs several fixtures at once (each is one short process)."""
    jobs = jobs or os.cpu_count() or 1
    with tempfile.TemporaryDirectory(prefix="conformance-") as tmp, ThreadPoolExecutor(jobs) as pool:
        results = pool.map(lambda f: (f.id, run_fixture(runner, f, Path(tmp))), fixtures)
        return dict(results)
