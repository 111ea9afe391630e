"""The optimized GEMM kernels (kernels/optimized: convolution, mm, addmm, bmm) against ExecuTorch.

Each case is a tiny torch module exported with executorch (models/export.py's `to_pte`, no
delegate) and run by ExecuTorch's own runtime for the reference; the program, its inputs and the
reference are cached under the build cache (keyed by the case and the torch/executorch versions),
so only the first run exports. The cases walk every path of the kernels: tile edges in M, N and K
(sizes not multiples of the register tile, K longer than one scratch panel), the direct 1x1 GEMM,
bands read through row offsets and stored through the column map (stride 1; strides 2-4 in phases:
rows of 16+, on AVX-512 only rows of partial chunks or kernels of 25+ taps; rows of whole vectors
but not whole tiles; stride-1 "same" convolutions on short rows at the input's pitch, a band copy per
column shift), im2col panels with padding, stride 1, 2 and 3, dilation, groups, gathered
panels of output rows shorter than a vector (AVX2), absent bias, batches, the few-row wide tiles, dot
products along K for products of a few columns (pointwise convolutions over tiny planes), addmm's
beta/alpha/broadcasts, depthwise convolutions (optimized/microkernels/depthwise.h) and the ones handed to
the portable kernel (1-D, transposed, double).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import shutil
import subprocess
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
import torch
from torch import nn

from bot.build import cmake
from bot.build.compare import TOLERANCE, max_error
from bot.build.runner import run_model
from tests.test_optimized import CPUS, SANITIZER_REPORT, sanitized_optimized  # noqa: F401 (a fixture)


@dataclass(frozen=True)
class Case:
    name: str
    make: Callable[[], nn.Module]
    shapes: tuple[tuple[int, ...], ...]
    dtype: torch.dtype = torch.float32

    def key(self) -> str:
        module = self.make()
        spec = {"name": self.name, "module": repr(module), "shapes": self.shapes, "dtype": str(self.dtype)}
        versions = [torch.__version__, _executorch_version()]
        return hashlib.sha256(json.dumps([spec, versions]).encode()).hexdigest()[:16]


def _executorch_version() -> str:
    from importlib.metadata import version

    return version("executorch")


class Fn(nn.Module):
    def __init__(self, fn: Callable[..., torch.Tensor], params: dict[str, torch.Tensor] | None = None) -> None:
        super().__init__()
        self.fn = fn
        for name, value in (params or {}).items():
            self.register_buffer(name, value)

    def extra_repr(self) -> str:  # the cache key sees the function's code through its qualified name
        return getattr(self.fn, "__qualname__", "") + repr(getattr(self.fn, "__defaults__", None))

    def forward(self, *xs: torch.Tensor) -> torch.Tensor:
        return self.fn(self, *xs)


def conv(cin: int, cout: int, k: int | tuple[int, int], **kw: object) -> Callable[[], nn.Module]:
    return lambda: nn.Conv2d(cin, cout, k, **kw)  # type: ignore[arg-type]


def _addmm(beta: float, alpha: float) -> Callable[..., torch.Tensor]:
    def fn(m: nn.Module, s: torch.Tensor, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return torch.addmm(s, a, b, beta=beta, alpha=alpha)

    fn.__qualname__ = f"addmm(beta={beta}, alpha={alpha})"
    return fn


def _mm(m: nn.Module, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return torch.mm(a, b)


def _bmm(m: nn.Module, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return torch.bmm(a, b)


CASES = [
    # convolution: im2col panels (stride 1: AVX-512 masked packing), bias fused per output channel
    Case("conv_stem_3x3", conv(3, 16, 3, padding=1), ((1, 3, 32, 32),)),
    Case("conv_16_16_nobias", conv(16, 16, 3, padding=1, bias=False), ((1, 16, 16, 16),)),
    Case("conv_s2", conv(16, 32, 3, stride=2, padding=1), ((1, 16, 16, 16),)),
    Case("conv_s2_odd_dilated", conv(4, 5, 3, stride=2, padding=1, dilation=2), ((1, 4, 37, 41),)),
    Case("conv_7x7_s2_wide", conv(3, 9, 7, stride=2, padding=3, bias=False), ((1, 3, 23, 70),)),
    Case("conv_s3_generic", conv(5, 6, 3, stride=3, padding=2), ((2, 5, 19, 20),)),
    Case("conv_long_k_row", conv(2, 3, (1, 17), padding=(0, 8)), ((1, 2, 3, 40),)),
    Case("conv_m_edge_deep_k", conv(40, 13, 3, padding=1), ((2, 40, 9, 7),)),
    Case(
        "conv_rect_groups",
        conv(6, 10, (3, 2), stride=(1, 2), padding=(2, 0), dilation=(2, 1), groups=2),
        ((2, 6, 9, 11),),
    ),
    Case(
        "conv_groups4", conv(8, 12, (5, 3), stride=(3, 1), padding=(1, 2), dilation=(1, 3), groups=4), ((1, 8, 7, 13),)
    ),
    Case("conv_tall_kernel", conv(2, 17, (4, 1)), ((1, 2, 40, 3),)),
    Case("conv_s2_few_channels", conv(3, 4, 3, stride=2, padding=1), ((1, 3, 20, 21),)),
    Case("conv_s2_short_rows", conv(3, 8, 3, stride=2, padding=1), ((2, 3, 9, 10),)),
    Case("conv_s1_short_rows", conv(5, 9, 3, padding=1), ((1, 5, 7, 3),)),
    # output rows shorter than a vector: panels gathered (AVX2), whatever the stride and dilation
    Case("conv_gather_s2_4x4", conv(12, 16, 3, stride=2, padding=1), ((3, 12, 8, 8),)),
    Case("conv_gather_one_output", conv(5, 7, 3, stride=2), ((2, 5, 3, 3),)),
    Case("conv_gather_5x5_dilated", conv(6, 10, 5, stride=2, padding=3, dilation=2), ((1, 6, 11, 9),)),
    Case("conv_gather_s3_rect", conv(7, 9, (3, 2), stride=(3, 2), padding=(1, 0)), ((1, 7, 10, 13),)),
    # stride 1 in bands: padded rows read in place through row offsets
    Case("conv_band_dilated", conv(6, 11, 3, padding=2, dilation=2), ((2, 6, 20, 24),)),
    Case("conv_band_many_bands", conv(8, 24, 3, padding=1), ((1, 8, 40, 40),)),
    Case("conv_band_unpadded", conv(4, 9, (2, 3), bias=False), ((1, 4, 11, 30),)),
    Case("conv_band_too_deep", conv(100, 20, 3, padding=1), ((1, 100, 12, 40),)),
    Case("conv_band_s2_wide", conv(3, 16, 3, stride=2, padding=1), ((1, 3, 48, 64),)),
    Case("conv_band_s3_dilated", conv(5, 7, 5, stride=3, padding=4, dilation=2), ((1, 5, 50, 60),)),
    # bands stored through the column map: rows a whole number of tiles wide (tiled row by row),
    # rows of a few lanes (several pieces per vector), padding wider than a vector (a vector of no
    # kept lane), more output channels than a tile's rows
    Case("conv_band_rows_64", conv(3, 10, 3, padding=1), ((1, 3, 9, 64),)),
    Case("conv_band_s2_even_lanes", conv(4, 6, 3, stride=2, dilation=2), ((1, 4, 13, 38),)),
    Case("conv_band_rows_5", conv(6, 19, (1, 2), padding=(0, 1)), ((1, 6, 13, 4),)),
    Case("conv_band_wide_pad", conv(2, 9, (1, 19), padding=(0, 9)), ((1, 2, 5, 80),)),
    # rows a whole number of vectors wide, not of tiles: tiles of one vector for each row's rest
    Case("conv_band_rows_16", conv(3, 12, 3, padding=1), ((3, 3, 16, 16),)),
    Case("conv_band_rows_24", conv(5, 13, 3, padding=1), ((1, 5, 6, 24),)),
    Case("conv_band_rows_48", conv(4, 7, 3, padding=1, bias=False), ((1, 4, 5, 48),)),
    Case("conv_band_rows_8", conv(9, 5, 3, padding=(1, 0)), ((2, 9, 8, 10),)),
    # stride-1 "same" convolutions on rows of at most 12: bands at the input's own pitch, one copy per
    # column shift (dilated, rectangular and grouped kernels, several bands, a row narrower than a shift)
    Case("conv_shifted_rows_8", conv(9, 5, 3, padding=1), ((2, 9, 8, 8),)),
    Case("conv_shifted_5x5_dilated", conv(6, 10, 5, padding=4, dilation=2), ((2, 6, 11, 11),)),
    Case("conv_shifted_rect_groups", conv(6, 9, (3, 7), padding=(1, 3), groups=3), ((1, 6, 5, 9),)),
    Case("conv_shifted_many_bands", conv(40, 24, 3, padding=1), ((1, 40, 12, 12),)),
    Case("conv_shifted_row_narrower_than_shift", conv(3, 4, 7, padding=3), ((1, 3, 6, 3),)),
    # 1x1 stride 1: the input planes multiplied in place
    Case("conv_pointwise", conv(24, 8, 1), ((1, 24, 10, 10),)),
    Case("conv_pointwise_batch", conv(5, 7, 1, bias=False), ((3, 5, 6, 9),)),
    Case("conv_pointwise_s2", conv(16, 32, 1, stride=2, bias=False), ((1, 16, 16, 16),)),
    # planes of at most half a vector: dot products along K (odd rows, K blocks, tails)
    Case("conv_pointwise_tiny_plane", conv(96, 37, 1), ((1, 96, 2, 2),)),
    Case("conv_pointwise_one_pixel", conv(40, 9, 1, bias=False), ((2, 40, 1, 1),)),
    Case("conv_pointwise_tiny_deep_k", conv(1100, 5, 1), ((1, 1100, 1, 3),)),
    # handed to the portable kernel
    Case("conv_depthwise", conv(16, 16, 3, padding=1, groups=16), ((1, 16, 10, 10),)),
    Case("conv_channel_multiplier", conv(4, 8, 3, groups=4), ((1, 4, 9, 9),)),
    Case("conv_1d", lambda: nn.Conv1d(4, 6, 3, padding=1), ((2, 4, 17),)),
    Case("conv_transposed", lambda: nn.ConvTranspose2d(4, 3, 3, stride=2), ((1, 4, 5, 5),)),
    Case("conv_double", lambda: nn.Conv2d(3, 4, 3).double(), ((1, 3, 8, 8),), torch.float64),
    # mm / linear (addmm with a per-column bias fused) / bmm
    Case("mm_tiny", lambda: Fn(_mm), ((1, 16), (16, 16))),
    Case("mm_few_columns", lambda: Fn(_mm), ((7, 600), (600, 3))),
    Case("mm_two_columns_rows_15", lambda: Fn(_mm), ((15, 70), (70, 2))),  # dot tiles of 4 rows, then 2 and 1
    Case("mm_one_column_rows_21", lambda: Fn(_mm), ((21, 40), (40, 1))),  # of 8 rows, then 4 and 1
    Case("mm_edges", lambda: Fn(_mm), ((3, 37), (37, 70))),
    Case("mm_rows_17", lambda: Fn(_mm), ((17, 300), (300, 33))),
    Case("mm_wide_n", lambda: Fn(_mm), ((8, 5), (5, 130))),
    Case("mm_k_one", lambda: Fn(_mm), ((6, 1), (1, 9))),
    Case("mm_k_zero", lambda: Fn(_mm), ((3, 0), (0, 4))),
    Case("mm_rows_2_three_vectors", lambda: Fn(_mm), ((2, 8), (8, 48))),
    Case("mm_rows_3_n_40_deep", lambda: Fn(_mm), ((3, 700), (700, 40))),
    Case("mm_rows_15_n_5", lambda: Fn(_mm), ((15, 9), (9, 5))),
    Case("linear_1_row", lambda: nn.Linear(24, 10), ((1, 24),)),
    Case("linear_rows_5", lambda: nn.Linear(300, 47), ((5, 300),)),
    Case("linear_rows_24_768", lambda: nn.Linear(768, 96), ((24, 768),)),
    Case("addmm_scaled_col", lambda: Fn(_addmm(0.5, 2.0)), ((1, 9), (4, 7), (7, 9))),
    Case("addmm_row_bias", lambda: Fn(_addmm(1.0, 1.0)), ((4, 1), (4, 7), (7, 9))),
    Case("addmm_full_self", lambda: Fn(_addmm(-1.5, 0.25)), ((6, 20), (6, 11), (11, 20))),
    Case("addmm_beta_zero", lambda: Fn(_addmm(0.0, 3.0)), ((5, 3), (5, 2), (2, 3))),
    Case("bmm_small", lambda: Fn(_bmm), ((2, 5, 7), (2, 7, 9))),
    Case("bmm_rows_1", lambda: Fn(_bmm), ((3, 1, 64), (3, 64, 40))),
    Case("bmm_double", lambda: Fn(_bmm), ((2, 3, 4), (2, 4, 5)), torch.float64),
]


def _inputs(case: Case) -> tuple[torch.Tensor, ...]:
    g = torch.Generator().manual_seed(7)
    return tuple(torch.randn(shape, generator=g, dtype=case.dtype) for shape in case.shapes)


def _exported(case: Case) -> tuple[Path, list[Path], list[np.ndarray]]:
    """The case's program, inputs and ExecuTorch's outputs, exported once into the build cache."""
    from models.export import reference_outputs, to_pte

    out = cmake.cache_dir() / "optimized-gemm-exports" / f"{case.name}-{case.key()}"
    inputs = _inputs(case)
    if not out.is_dir():
        # Made aside and renamed into place: another run on this machine may be reading the same case.
        out.parent.mkdir(parents=True, exist_ok=True)
        making = Path(tempfile.mkdtemp(prefix=f"{out.name}.", dir=out.parent))
        try:
            torch.manual_seed(11)
            module = case.make().eval()
            (making / "model.pte").write_bytes(to_pte(module, inputs))
            for i, tensor in enumerate(inputs):
                np.save(making / f"input{i}.npy", tensor.numpy())
            for i, array in enumerate(reference_outputs(making / "model.pte", inputs)):
                np.save(making / f"expected{i}.npy", array)
            with contextlib.suppress(OSError):  # made by another run meanwhile: theirs is kept
                making.rename(out)
        finally:
            shutil.rmtree(making, ignore_errors=True)  # what a failed export, or a lost race, left
    pte = out / "model.pte"
    input_paths = [out / f"input{i}.npy" for i in range(len(inputs))]
    expected = [np.load(p) for p in sorted(out.glob("expected*.npy"))]
    return pte, input_paths, expected


@pytest.fixture(scope="module", params=CPUS)
def optimized_runner(request: pytest.FixtureRequest) -> Path:
    return cmake.runner_path(cmake.build(cmake.optimized_all_ops(request.param)))


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_case_matches_executorch(case: Case, optimized_runner: Path, tmp_path: Path) -> None:
    pte, inputs, expected = _exported(case)
    result = run_model(optimized_runner, pte, inputs, tmp_path)
    assert len(result.outputs) == len(expected)
    for actual, want in zip(result.outputs, expected, strict=True):
        assert actual.shape == want.shape and actual.dtype == want.dtype
        assert max_error(actual, want) <= TOLERANCE, f"{case.name}: max error {max_error(actual, want)}"


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_case_under_sanitizers(case: Case, sanitized_optimized: Path, tmp_path: Path) -> None:  # noqa: F811
    pte, inputs, expected = _exported(case)
    args = [a for p in inputs for a in ("--input", str(p))]
    proc = subprocess.run(
        [str(sanitized_optimized), "--model", str(pte), *args, "--output-dir", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert not any(marker in proc.stderr for marker in SANITIZER_REPORT), proc.stderr[-3000:]
    assert proc.returncode == 0, proc.stderr[-3000:]
    for i, want in enumerate(expected):
        assert max_error(np.load(tmp_path / f"output{i}.npy"), want) <= TOLERANCE
