"""The optimized library's element-wise, activation, normalisation and softmax kernels on the shapes
their fast paths take, against ExecuTorch's runtime.

tests/test_optimized.py runs the conformance fixtures of every overridden op; those are small (most
under one vector) and mostly 2-D. These cases are exported here, as tests/conformance/export.py
exports a fixture (torch.export, to_edge, to_executorch; ExecuTorch's runtime gives the reference),
into a session directory, and cover what the fast paths add: the broadcast folding (a trailing row
vector, a per-channel [C, 1, 1] operand, a 0-d or one-element operand, both operands broadcast),
rows longer than a vector with a partial tail, NaN and infinities inside full vectors, the
transcendental range (exp overflow and underflow, both tails of sigmoid, tanh and GELU), the
channels-last layout, and softmax along a dim with an inner stride. Each runs on the optimized
all-ops runtime at every SIMD width tests/test_optimized.py builds.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from bot.build import cmake
from bot.build.runner import run_model
from tests.conformance import check
from tests.conformance.layout import fixtures
from tests.test_optimized import CPUS, sanitized_optimized  # noqa: F401  (a fixture)

torch = pytest.importorskip("torch")
pytest.importorskip("executorch")

from tests.conformance.spec import Case, sample  # noqa: E402  (needs torch)

F32 = torch.float32
aten = torch.ops.aten


def s(shape: tuple[int, ...], seed: int = 0, low: float = -4, high: float = 4) -> torch.Tensor:
    return sample(shape, F32, seed=seed, low=low, high=high)


def specials(n: int, seed: int = 0) -> torch.Tensor:
    """n floats: NaN, +-inf and +-0 spread over ordinary values, so they land in full vectors too."""
    x = s((n,), seed)
    x[3::11] = float("nan")
    x[5::13] = float("inf")
    x[7::17] = float("-inf")
    x[9::19] = 0.0
    x[10::23] = -0.0
    return x


def cl(t: torch.Tensor) -> torch.Tensor:
    return t.contiguous(memory_format=torch.channels_last)


def c(op: str, name: str, fn: Callable[..., Any], *inputs: torch.Tensor) -> Case:
    return Case(op, f"opt_{name}", fn, tuple(inputs))


def binary_cases() -> list[Case]:
    cases = []
    shapes = {
        "row": ((4, 37), (37,)),
        "per_channel": ((2, 5, 3, 7), (5, 1, 1)),
        "per_channel_lhs": ((5, 1, 1), (2, 5, 3, 7)),
        "scalar_tensor": ((3, 17), ()),
        "one_element_lhs": ((1,), (3, 20)),
        "outer": ((3, 1), (1, 19)),
        "middle": ((2, 1, 33), (2, 4, 33)),
        "same_long": ((67,), (67,)),
        "per_channel_long": ((2, 3, 67), (3, 1)),
        "row_lhs_long": ((83,), (3, 83)),
    }
    for op, fn in (
        ("aten::add.out", torch.add),
        ("aten::sub.out", torch.sub),
        ("aten::mul.out", torch.mul),
        ("aten::div.out", torch.div),
    ):
        for name, (sa, sb) in shapes.items():
            cases.append(c(op, name, fn, s(sa, 1), s(sb, 2, low=0.5, high=3)))
        cases.append(c(op, "specials", fn, specials(70, 1), specials(70, 2)))
        # A broadcast -0.0 keeps its sign (1 / -0.0 is -inf).
        cases.append(c(op, "neg_zero_scalar", fn, specials(37, 1), torch.tensor(-0.0)))
        cases.append(c(op, "cl_same", fn, cl(s((2, 3, 4, 5), 1)), cl(s((2, 3, 4, 5), 2, low=0.5))))
    cases.append(c("aten::add.out", "alpha", lambda x, y: torch.add(x, y, alpha=2.5), s((41,), 1), s((41,), 2)))
    cases.append(c("aten::sub.out", "alpha", lambda x, y: torch.sub(x, y, alpha=0.5), s((41,), 1), s((4, 41), 2)))
    cases.append(c("aten::mul.Scalar_out", "long", lambda x: aten.mul.Scalar(x, 2.5), specials(67)))
    cases.append(c("aten::div.Scalar_out", "long", lambda x: aten.div.Scalar(x, 3), specials(67)))
    cases.append(c("aten::add.Scalar_out", "long", lambda x: aten.add.Scalar(x, 0.75, alpha=2), specials(67)))
    cases.append(c("aten::sub.Scalar_out", "long", lambda x: aten.sub.Scalar(x, 0.75, alpha=3), specials(67)))
    return cases


def unary_cases() -> list[Case]:
    wide = s((5, 41), 3, low=-12, high=12)
    return [
        c("aten::relu.out", "specials", torch.relu, specials(70)),
        c("aten::relu.out", "cl", torch.relu, cl(s((2, 3, 4, 5)))),
        c("aten::clamp.out", "specials", lambda x: torch.clamp(x, -0.5, 1.25), specials(70)),
        c("aten::clamp.out", "min_only", lambda x: torch.clamp(x, min=0.25), specials(70)),
        c("aten::clamp.out", "min_above_max", lambda x: torch.clamp(x, 2.0, 1.0), s((37,))),
        c("aten::hardtanh.out", "relu6", lambda x: torch.nn.functional.relu6(x), specials(70) * 4),
        c("aten::hardtanh.out", "bounds", lambda x: torch.nn.functional.hardtanh(x, -1.5, 0.5), s((45,))),
        c("aten::sigmoid.out", "wide", torch.sigmoid, s((5, 41), 3, low=-100, high=100)),
        c("aten::sigmoid.out", "specials", torch.sigmoid, specials(70)),
        c("aten::tanh.out", "wide", torch.tanh, wide),
        c("aten::tanh.out", "small", torch.tanh, s((67,), 4, low=-0.7, high=0.7)),
        c("aten::tanh.out", "specials", torch.tanh, specials(70)),
        c("aten::gelu.out", "wide", torch.nn.functional.gelu, wide),
        c("aten::gelu.out", "specials", torch.nn.functional.gelu, specials(70)),
        c("aten::gelu.out", "tanh_wide", lambda x: torch.nn.functional.gelu(x, approximate="tanh"), wide),
        c("aten::gelu.out", "tanh_specials", lambda x: torch.nn.functional.gelu(x, approximate="tanh"), specials(70)),
        c("aten::sigmoid.out", "tails", torch.sigmoid, s((67,), 7, low=-95, high=-80)),
        c("aten::tanh.out", "tiny", torch.tanh, s((67,), 8, low=-1e-3, high=1e-3)),
        c("aten::exp.out", "wide", torch.exp, s((5, 41), 5, low=-110, high=95)),
        c("aten::exp.out", "specials", torch.exp, specials(70)),
        c("aten::rsqrt.out", "wide", torch.rsqrt, s((67,), 6, low=1e-3, high=1e4)),
        c("aten::rsqrt.out", "specials", torch.rsqrt, specials(70)),
        *(
            c("aten::pow.Tensor_Scalar_out", f"exp_{name}", lambda x, e=e: aten.pow.Tensor_Scalar(x, e), specials(70))
            for name, e in (("1", 1), ("2", 2), ("3", 3.0), ("m1", -1), ("m2", -2.0), ("m0_5", -0.5), ("2_5", 2.5))
        ),
    ]


def norm_cases() -> list[Case]:
    bn = "aten::_native_batch_norm_legit_no_training.out"
    ln = "aten::native_layer_norm.out"

    def batch_norm(x: torch.Tensor, m: torch.Tensor, v: torch.Tensor, w: torch.Tensor, b: torch.Tensor) -> Any:
        return torch.nn.functional.batch_norm(x, m, v, w, b, eps=1e-3)

    def stats(n: int) -> tuple[torch.Tensor, ...]:
        return s((n,), 1), s((n,), 2, low=0.5, high=2), s((n,), 3), s((n,), 4)

    return [
        c(bn, "planes", batch_norm, s((2, 19, 5, 7)), *stats(19)),
        c(bn, "3d", batch_norm, s((3, 21, 37)), *stats(21)),
        c(bn, "2d", batch_norm, s((5, 37)), *stats(37)),
        # More channels than one block of per-channel factors (1024).
        c(bn, "many_channels", batch_norm, s((1, 1100, 3)), *stats(1100)),
        c(ln, "long_rows", lambda x, w, b: torch.nn.functional.layer_norm(x, (67,), w, b), s((3, 67)), s((67,), 1),
          s((67,), 2)),
        c(ln, "two_dims", lambda x: torch.nn.functional.layer_norm(x, (5, 7), eps=1e-3), s((2, 3, 5, 7))),
        c(ln, "weight_only", lambda x, w: torch.nn.functional.layer_norm(x, (37,), w), s((4, 37)), s((37,), 1)),
        c(ln, "all_outputs", lambda x, w, b: aten.native_layer_norm(x, [40], w, b, 1e-5), s((3, 40)), s((40,), 1),
          s((40,), 2)),
    ]  # fmt: skip


def softmax_cases() -> list[Case]:
    cases = []
    for op, fn in (("aten::_softmax.out", torch.softmax), ("aten::_log_softmax.out", torch.log_softmax)):
        cases += [
            c(op, "rows", lambda x, fn=fn: fn(x, -1), s((5, 67), low=-30, high=30)),
            c(op, "long_row", lambda x, fn=fn: fn(x, -1), s((2, 600), low=-10, high=10)),
            c(op, "inner_stride", lambda x, fn=fn: fn(x, 1), s((3, 9, 37), low=-30, high=30)),
            c(op, "dim0", lambda x, fn=fn: fn(x, 0), s((6, 20))),
            c(op, "specials", lambda x, fn=fn: fn(x, -1), specials(70).reshape(5, 14)),
            c(op, "neg_inf_rows", lambda x, fn=fn: fn(x, -1), torch.where(s((4, 33)) > 0, s((4, 33)), -torch.inf)),
        ]
    return cases


def where_cases() -> list[Case]:
    op = "aten::where.self_out"
    return [
        c(op, "same", torch.where, s((67,)) > 0, specials(67, 1), specials(67, 2)),
        c(op, "mask", torch.where, s((1, 1, 9, 9)) > 0, s((2, 3, 9, 9), 1), s((), 2)),
        c(op, "scalar_self", torch.where, s((4, 37)) > 0, s((), 1), s((4, 37), 2)),
        c(op, "row_cond", torch.where, s((37,)) > 0, s((5, 37), 1), s((5, 1), 2)),
        c(op, "all_broadcast", torch.where, s((3, 1, 1)) > 0, s((1, 4, 1), 1), s((1, 1, 21), 2)),
        c(op, "long_rows", torch.where, s((3, 1)) > 0, s((3, 53), 1), s((53,), 2)),
    ]  # fmt: skip


CASES = binary_cases() + unary_cases() + norm_cases() + softmax_cases() + where_cases()


def eager_cases() -> list[Case]:
    """Cases judged against eager PyTorch in float64: ExecuTorch's runtime refuses the channels-last
    ones (a channels-last input beside default-order parameters or a 0-d operand), and computes a
    layer norm of rows far from zero as E[x^2] - mean^2 in float, which cancels (NaN rows)."""
    stats = (s((19,), 1), s((19,), 2, low=0.5, high=2), s((19,), 3), s((19,), 4))
    many = (s((1030,), 1), s((1030,), 2, low=0.5, high=2), s((1030,), 3), s((1030,), 4))
    return [
        c(
            "aten::_native_batch_norm_legit_no_training.out",
            "cl_many_channels",
            lambda x, m, v, w, b: torch.nn.functional.batch_norm(x, m, v, w, b, eps=1e-3),
            cl(s((1, 1030, 2, 3))),
            *many,
        ),
        c(
            "aten::_native_batch_norm_legit_no_training.out",
            "cl",
            lambda x, m, v, w, b: torch.nn.functional.batch_norm(x, m, v, w, b, eps=1e-3),
            cl(s((2, 19, 5, 7))),
            *stats,
        ),
        c("aten::add.out", "cl_scalar_tensor", torch.add, cl(s((2, 3, 4, 5), 1)), s((), 2)),
        c("aten::mul.out", "cl_scalar_tensor", torch.mul, cl(s((2, 3, 4, 5), 1)), s((), 2)),
        c(
            "aten::native_layer_norm.out",
            "offset",
            lambda x: torch.nn.functional.layer_norm(x, (48,)),
            s((4, 48), low=1000, high=1001),
        ),
    ]


EAGER_CASES = eager_cases()
EAGER_IDS = {case.id for case in EAGER_CASES}


@pytest.fixture(scope="session")
def exported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The cases exported as conformance fixtures (program, inputs, ExecuTorch's outputs)."""
    from tests.conformance import export

    root = tmp_path_factory.mktemp("optimized_elementwise")
    problems = []
    for case in CASES + EAGER_CASES:
        outcome = export._export_case("optimized_elementwise", case, root)
        if outcome.status not in (("ok", "refused") if case.id in EAGER_IDS else ("ok",)):
            problems.append(f"{case.id}: {outcome.status} {outcome.message}")
    assert not problems, "\n".join(problems)
    return root


@pytest.fixture(scope="session", params=CPUS)
def runner(request: pytest.FixtureRequest) -> Path:
    runtime = cmake.build(cmake.optimized_all_ops(request.param), targets=("executor_runner", "execute_alloc_test"))
    return cmake.runner_path(runtime)


@pytest.fixture(scope="session")
def results(runner: Path, exported: Path) -> dict[str, check.Result]:
    return check.run_all(runner, [f for f in fixtures(exported) if f.id not in EAGER_IDS])


@pytest.mark.parametrize("case_id", [case.id for case in CASES])
def test_case_matches_executorch(case_id: str, results: dict[str, check.Result]) -> None:
    result = results[case_id]
    assert result.status == check.PASS or result.status == check.ATEN, f"{case_id}: {result.status}: {result.message}"


def test_case_ids_are_unique() -> None:
    ids = [case.id for case in CASES]
    assert len(ids) == len(set(ids))


def assert_matches_eager_float64(case: Case, runner: Path, exported: Path, tmp_path: Path) -> None:
    """The runtime's output for `case` against eager PyTorch in float64 (cases where ExecuTorch's own
    runtime is not the reference)."""
    fixture = exported / case.id
    result = run_model(
        runner, fixture / "model.pte", [fixture / f"input{i}.npy" for i in range(len(case.inputs))], tmp_path
    )
    with torch.no_grad():
        want = case.fn(*(t.double() for t in case.inputs)).float()
    assert len(result.outputs) == 1
    assert check.compare(result.outputs[0], want.contiguous().numpy(), "Float") is None


def failures_under_sanitizers(sanitized: Path, exported: Path, skip: set[str]) -> dict[str, str]:
    """The exported cases (but `skip`) that do not match ExecuTorch on the sanitized runtime."""
    results = check.run_all(sanitized, [f for f in fixtures(exported) if f.id not in skip])
    return {
        fid: f"{r.status}: {r.message[:300]}" for fid, r in results.items() if r.status not in (check.PASS, check.ATEN)
    }


@pytest.mark.parametrize("case_id", [case.id for case in EAGER_CASES])
def test_case_matches_eager_float64(case_id: str, runner: Path, exported: Path, tmp_path: Path) -> None:
    assert_matches_eager_float64(next(c for c in EAGER_CASES if c.id == case_id), runner, exported, tmp_path)


def test_cases_under_sanitizers(sanitized_optimized: Path, exported: Path) -> None:  # noqa: F811
    """The fast paths' cases under ASan and UBSan (the bit tricks of vec_math.h included)."""
    failed = failures_under_sanitizers(sanitized_optimized, exported, EAGER_IDS)
    assert not failed, failed
