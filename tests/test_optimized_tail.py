"""The optimized kernels that took the hot ops of models left on portable kernels (unet: elu,
leaky_relu, upsample_nearest2d; hf_wav2vec2: 1-D convolution through opt_convolution's 2-D paths;
the transformers' attention masks: eq.Scalar of a float tensor, logical_not and any of bool ones,
full_like of a float one; wav2vec2's group norm),
on the shapes their fast paths take, against ExecuTorch's runtime.

tests/test_optimized.py runs the conformance fixtures of every overridden op (small, every dtype).
These cases add: rows longer than a vector with partial tails, NaN and infinities inside full
vectors, elu's expm1 near zero (where e^x - 1 cancels) and its parameters, nearest upsampling by
factors 1, 2 and 3, by a fractional scale and to a given size (the row copy, the shuffle path, the
table walk), and 1-D convolutions of every kind the 2-D paths take: pointwise, strided, padded,
dilated, grouped, depthwise, a wav2vec2-like grouped positional convolution with a long kernel, and
the cases handed to the portable kernel (channels-last, transposed, int dtypes); masks longer than a
vector with NaN, +-0 and infinities compared. Exported as
tests/test_optimized_elementwise.py exports its cases; each runs on the optimized all-ops runtime at
every SIMD width tests/test_optimized.py builds.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conformance import check
from tests.conformance.layout import fixtures
from tests.test_optimized import sanitized_optimized  # noqa: F401  (a fixture)
from tests.test_optimized_elementwise import (
    assert_matches_eager_float64,
    failures_under_sanitizers,
    runner,  # noqa: F401  (a fixture: the runtime at each SIMD width)
    specials,
)

torch = pytest.importorskip("torch")
pytest.importorskip("executorch")

from tests.conformance.spec import Case, sample  # noqa: E402  (needs torch)

F32 = torch.float32
aten = torch.ops.aten
F = torch.nn.functional


def s(shape: tuple[int, ...], seed: int = 0, low: float = -4, high: float = 4, dtype: torch.dtype = F32) -> Any:
    return sample(shape, dtype, seed=seed, low=low, high=high)


def c(op: str, name: str, fn: Callable[..., Any], *inputs: torch.Tensor, also: tuple[str, ...] = ()) -> Case:
    return Case(op, f"opt_{name}", fn, tuple(inputs), also=also)


def activation_cases() -> list[Case]:
    elu = "aten::elu.out"
    leaky = "aten::leaky_relu.out"
    cl = torch.channels_last
    return [
        c(elu, "specials", F.elu, specials(70)),
        c(elu, "near_zero", F.elu, s((67,), 1, low=-1e-3, high=1e-3)),
        c(elu, "expm1_switch", F.elu, s((5, 41), 2, low=-0.5, high=0.1)),
        c(elu, "wide", F.elu, s((4, 37), 3, low=-120, high=90)),
        c(elu, "params", lambda x: aten.elu(x, 1.5, 2.0, 0.5), specials(70, 4)),
        c(elu, "neg_input_scale", lambda x: aten.elu(x, 0.7, 1.25, -2.0), s((3, 29), 5, low=-3, high=3)),
        c(elu, "cl", F.elu, s((2, 3, 4, 5), 6).contiguous(memory_format=cl)),
        c(leaky, "specials", lambda x: F.leaky_relu(x, 0.1), specials(70)),
        c(leaky, "default_slope", F.leaky_relu, s((3, 4, 21), 1)),
        c(leaky, "neg_slope", lambda x: F.leaky_relu(x, -1.5), specials(67, 2)),
        c(leaky, "cl", lambda x: F.leaky_relu(x, 0.2), s((2, 3, 4, 5), 3).contiguous(memory_format=cl)),
    ]


def upsample_cases() -> list[Case]:
    op = "aten::upsample_nearest2d.vec_out"

    def up(**kw: Any) -> Callable[[torch.Tensor], torch.Tensor]:
        return lambda x: F.interpolate(x, mode="nearest", **kw)

    cl = torch.channels_last
    return [
        c(op, "x2_unet", up(scale_factor=2), s((1, 16, 8, 8))),
        c(op, "x2_tails", up(scale_factor=2), s((2, 3, 5, 17), 1)),
        c(op, "x2_long_rows", up(scale_factor=2), s((1, 2, 3, 40), 2)),
        c(op, "x2_one_column", up(scale_factor=2), s((1, 3, 4, 1), 3)),
        c(op, "x2_specials", up(scale_factor=2), specials(70, 4).reshape(1, 2, 5, 7)),
        c(op, "x3", up(scale_factor=3), s((1, 2, 4, 6), 5)),
        c(op, "x2_by_x3", up(scale_factor=(2, 3)), s((1, 2, 3, 9), 6)),
        c(op, "x1_by_x2", up(scale_factor=(1, 2)), s((1, 2, 3, 9), 7)),
        c(op, "scale_1_5", up(scale_factor=1.5), s((1, 2, 5, 7), 8)),
        c(op, "size_up", up(size=(7, 20)), s((2, 2, 3, 9), 9)),
        c(op, "size_down", up(size=(3, 4)), s((1, 3, 7, 9), 10)),
        c(op, "size_same_width", up(size=(9, 13)), s((1, 2, 4, 13), 11)),
        c(op, "cl", up(scale_factor=2), s((1, 3, 4, 5), 12).contiguous(memory_format=cl)),  # the portable kernel's
        c(op, "i32", up(scale_factor=2), s((1, 2, 3, 4), 13, dtype=torch.int32)),  # the portable kernel's
    ]


def conv1d_cases() -> list[Case]:
    op = "aten::convolution.out"

    def conv(**kw: Any) -> Callable[..., torch.Tensor]:
        return lambda x, w, b=None: F.conv1d(x, w, b, **kw)

    # A long reduction (256 products) takes weights of a trained layer's size (about 1 / sqrt(fan-in)),
    # so its sums stay within float tolerance of another summation order.
    return [
        c(op, "c1d_pointwise", conv(), s((2, 6, 37)), s((5, 6, 1), 1), s((5,), 2)),
        c(op, "c1d_k3_pad", conv(padding=1), s((1, 8, 50), 3), s((12, 8, 3), 4), s((12,), 5)),
        c(op, "c1d_k10_s5", conv(stride=5), s((1, 1, 400), 6), s((16, 1, 10), 7)),  # wav2vec2's first conv
        c(op, "c1d_k3_s2", conv(stride=2), s((1, 16, 79), 8), s((16, 16, 3), 9)),
        c(op, "c1d_k2_s2", conv(stride=2), s((2, 8, 40), 10), s((8, 8, 2), 11)),
        c(op, "c1d_dilated", conv(dilation=3, padding=2), s((1, 4, 33), 12), s((6, 4, 5), 13), s((6,), 14)),
        c(op, "c1d_groups", conv(groups=4, padding=3), s((1, 16, 45), 15), s((8, 4, 7), 16), s((8,), 17)),
        # wav2vec2's positional convolution: grouped, a long kernel padded by half of it.
        c(op, "c1d_positional", conv(groups=4, padding=16), s((1, 32, 49), 18), s((32, 8, 32), 19, -0.1, 0.1),
          s((32,), 20)),
        c(op, "c1d_depthwise", conv(groups=12, padding=2), s((2, 12, 31), 21), s((24, 1, 5), 22), s((24,), 23)),
        c(op, "c1d_depthwise_s3", conv(groups=6, stride=3), s((1, 6, 40), 24), s((6, 1, 4), 25)),
        c(op, "c1d_long", conv(padding=2), s((1, 3, 700), 26), s((4, 3, 5), 27), s((4,), 28)),
        c(op, "c1d_transposed", lambda x, w: F.conv_transpose1d(x, w, stride=2), s((1, 4, 9), 29),
          s((4, 3, 3), 30)),  # the portable kernel's
    ]  # fmt: skip


def mask_cases() -> list[Case]:
    eq = "aten::eq.Scalar_out"
    not_ = "aten::logical_not.out"
    ints = torch.arange(-35, 35, dtype=F32).reshape(2, 35) % 5
    return [
        c(eq, "zero_specials", lambda x: torch.eq(x, 0.0), specials(70)),  # -0.0 == 0; NaN never equal
        c(eq, "inf", lambda x: torch.eq(x, float("inf")), specials(70, 1)),
        c(eq, "int_scalar", lambda x: torch.eq(x, 2), ints),
        c(eq, "i64", lambda x: torch.eq(x, 3), ints.to(torch.int64)),  # the portable kernel's
        c(not_, "long", torch.logical_not, s((3, 67), 2) > 0),
        c(not_, "mask_4d", torch.logical_not, s((1, 1, 9, 71), 3) > 1),
        c(not_, "f32", torch.logical_not, specials(40, 4)),  # the portable kernel's
    ]


def reduce_fill_cases() -> list[Case]:
    any_ = "aten::any.out"
    full = "aten::full_like.out"
    sparse = s((2, 3, 5, 70), 5) > 3.6  # rows with and without a true byte, past the 8-byte words
    return [
        c(any_, "last_keepdim", lambda m: torch.any(m, -1, keepdim=True), sparse),
        c(any_, "last", lambda m: torch.any(m, 3), sparse),
        c(any_, "middle", lambda m: torch.any(m, 1), sparse),  # inner 350: whole vectors and a tail
        c(any_, "outer", lambda m: torch.any(m, 0, keepdim=True), s((4, 9), 6) > 3),
        c(any_, "all_false", lambda m: torch.any(m, -1), torch.zeros(3, 20, dtype=torch.bool)),
        c(any_, "f32", lambda x: torch.any(x, 1), specials(40, 7).reshape(4, 10)),  # the portable kernel's
        c(full, "neg_inf", lambda x: torch.full_like(x, float("-inf")), s((1, 2, 9, 9), 8)),
        c(full, "int_value", lambda x: torch.full_like(x, 3), s((67,), 9)),
        c(full, "0d", lambda x: torch.full_like(x, 0.25), s((), 10)),
        c(full, "i64", lambda x: torch.full_like(x, 7), s((5,), 11, dtype=torch.int64)),  # the portable kernel's
    ]


def group_norm_cases() -> list[Case]:
    op = "aten::native_group_norm.out"

    def gn(groups: int, eps: float = 1e-5) -> Callable[..., torch.Tensor]:
        return lambda x, w=None, b=None: F.group_norm(x, groups, w, b, eps)

    return [
        c(op, "per_channel", gn(16), s((1, 16, 100)), s((16,), 1), s((16,), 2)),  # wav2vec2's
        c(op, "groups_4d", gn(3, 1e-3), s((2, 6, 5, 7), 3), s((6,), 4), s((6,), 5)),
        c(op, "no_affine", gn(2), s((2, 4, 37), 6)),
        c(op, "one_position", gn(2), s((3, 4, 1), 10), s((4,), 11), s((4,), 12)),
        c(op, "f64", gn(2), s((1, 4, 9), 13, dtype=torch.float64)),  # the portable kernel's
    ]


CASES = activation_cases() + upsample_cases() + conv1d_cases() + mask_cases() + reduce_fill_cases() + group_norm_cases()

# Judged against eager PyTorch in float64: ExecuTorch's group norm takes the variance as E[x^2] - mean^2
# in float, which cancels on rows far from zero (NaN rows).
EAGER_CASES = [
    Case(
        "aten::native_group_norm.out",
        "opt_offset",
        lambda x, w, b: F.group_norm(x, 4, w, b),
        (s((1, 8, 45), 7, low=1000, high=1001), s((8,), 8), s((8,), 9)),
    )
]
EAGER_IDS = {case.id for case in EAGER_CASES}


@pytest.fixture(scope="session")
def exported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The cases exported as conformance fixtures (program, inputs, ExecuTorch's outputs)."""
    from tests.conformance import export

    ids = [case.id for case in CASES + EAGER_CASES]
    assert len(set(ids)) == len(ids), "case ids repeat"
    root = tmp_path_factory.mktemp("optimized_tail")
    problems = []
    for case in CASES + EAGER_CASES:
        outcome = export._export_case("optimized_tail", case, root)
        if outcome.status not in (("ok", "refused") if case.id in EAGER_IDS else ("ok",)):
            problems.append(f"{case.id}: {outcome.status} {outcome.message}")
    assert not problems, "\n".join(problems)
    return root


@pytest.fixture(scope="session")
def results(runner: Path, exported: Path) -> dict[str, check.Result]:  # noqa: F811
    return check.run_all(runner, [f for f in fixtures(exported) if f.id not in EAGER_IDS])


@pytest.mark.parametrize("case_id", [case.id for case in CASES])
def test_case_matches_executorch(case_id: str, results: dict[str, check.Result]) -> None:
    result = results[case_id]
    assert result.status == check.PASS or result.status == check.ATEN, f"{case_id}: {result.status}: {result.message}"


@pytest.mark.parametrize("case_id", [case.id for case in EAGER_CASES])
def test_case_matches_eager_float64(case_id: str, runner: Path, exported: Path, tmp_path: Path) -> None:  # noqa: F811
    assert_matches_eager_float64(next(c for c in EAGER_CASES if c.id == case_id), runner, exported, tmp_path)


def test_cases_under_sanitizers(sanitized_optimized: Path, exported: Path) -> None:  # noqa: F811
    """The new kernels and the 1-D convolutions under ASan and UBSan."""
    failed = failures_under_sanitizers(sanitized_optimized, exported, EAGER_IDS)
    assert not failed, failed
