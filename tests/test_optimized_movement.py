"""The optimized library's data-movement kernels (copy, clone, permute, expand, slice, select, split,
cat, _to_dim_order_copy, constant_pad_nd, index, index_select, embedding: most through
kernels/optimized/microkernels/copy_box.h) on the shapes their fast paths take, against ExecuTorch's runtime.

tests/test_optimized.py runs the conformance fixtures of every overridden op (small, mostly 2-D, every
dtype). These cases add what the strided row copy and the row gather must get right: dims merged
into long runs beside dims that are not, zero strides (broadcast) inside and outside, permutations of
4 to 6 dims as attention and window partitions make them, slices and selects in the middle of a
tensor, padding on several dims at once, index tensors with negative values and more than one dim,
and the cases handed to the portable kernels (a conversion, a mask index, a change of dim order).
Exported as tests/test_optimized_elementwise.py exports its cases; each runs on the optimized all-ops
runtime at every SIMD width tests/test_optimized.py builds.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conformance import check
from tests.conformance.layout import fixtures
from tests.test_optimized import sanitized_optimized  # noqa: F401  (a fixture)
from tests.test_optimized_elementwise import runner  # noqa: F401  (a fixture: the runtime at each SIMD width)

torch = pytest.importorskip("torch")
pytest.importorskip("executorch")

from tests.conformance.spec import Case, sample  # noqa: E402  (needs torch)

F32 = torch.float32
aten = torch.ops.aten
F = torch.nn.functional


def s(shape: tuple[int, ...], seed: int = 0, dtype: torch.dtype = F32) -> torch.Tensor:
    return sample(shape, dtype, seed=seed, low=-4, high=4)


def c(op: str, name: str, fn: Callable[..., Any], *inputs: torch.Tensor, also: tuple[str, ...] = ()) -> Case:
    return Case(op, f"opt_{name}", fn, tuple(inputs), also=also)


def copy_cases() -> list[Case]:
    op = "aten::copy.out"
    copy = aten.copy.default
    return [
        c(op, "long_rows", copy, s((3, 70)), s((3, 70), 1)),
        c(op, "row", copy, s((5, 37)), s((37,), 1)),
        c(op, "middle", copy, s((2, 4, 33)), s((2, 1, 33), 1)),
        c(op, "column", copy, s((6, 9)), s((6, 1), 1)),
        c(op, "scalar_tensor", copy, s((3, 17)), s((), 1)),
        c(op, "outer_and_inner", copy, s((3, 4, 5, 6)), s((4, 1, 6), 1)),
        c(op, "i64_row", copy, s((4, 9), dtype=torch.int64), s((9,), 1, torch.int64)),
        c(op, "bool_column", copy, s((5, 3), dtype=torch.bool), s((5, 1), 1, torch.bool)),
        c(op, "convert", copy, s((4, 9)), s((9,), 1, torch.int32)),  # the portable kernel's
    ]


def clone_cases() -> list[Case]:
    op = "dim_order_ops::_clone_dim_order.out"
    return [
        c(op, "long", torch.clone, s((3, 5, 47))),
        c(op, "i16", torch.clone, s((4, 33), dtype=torch.int16)),
        c(op, "channels_last", torch.clone, s((2, 3, 4, 5)).contiguous(memory_format=torch.channels_last)),
        c(
            op,
            "to_channels_last",  # a change of dim order: the portable kernel, through copy.out
            lambda x: x.clone(memory_format=torch.channels_last),
            s((2, 3, 4, 5)),
            also=("aten::copy.out",),
        ),
    ]


def permute_cases() -> list[Case]:
    op = "aten::permute_copy.out"
    return [
        c(op, "heads", lambda x: x.permute(0, 2, 1, 3), s((2, 9, 3, 16))),
        c(op, "heads_back", lambda x: x.permute(0, 2, 1, 3), s((2, 3, 9, 16))),
        c(op, "outer", lambda x: x.permute(1, 0, 2), s((7, 2, 12))),
        c(op, "qkv", lambda x: x.permute(2, 0, 3, 1, 4), s((2, 5, 3, 2, 8))),
        c(op, "windows", lambda x: x.permute(0, 1, 3, 2, 4, 5), s((1, 2, 4, 2, 4, 6))),
        c(op, "to_channels_first", lambda x: x.permute(0, 3, 1, 2), s((2, 5, 6, 7))),
        c(op, "transpose_tail", lambda x: x.permute(0, 2, 1), s((3, 19, 13))),
        c(op, "transpose_blocks", lambda x: x.permute(0, 2, 1), s((2, 24, 40))),
        c(op, "weight_i32", lambda x: x.permute(1, 0), s((48, 16), dtype=torch.int32)),
        c(op, "to_nhwc", lambda x: x.permute(0, 2, 3, 1), s((1, 16, 8, 8))),
        c(op, "to_nchw", lambda x: x.permute(0, 3, 1, 2), s((2, 9, 5, 24))),
        c(op, "i64_neg_dims", lambda x: x.permute(-2, -3, -1), s((4, 3, 5), dtype=torch.int64)),
        c(op, "u8_identity_2d", lambda x: x.permute(0, 1, 3, 2), s((2, 3, 5, 1), dtype=torch.uint8)),
    ]


def expand_cases() -> list[Case]:
    op = "aten::expand_copy.out"
    return [
        c(op, "same", lambda x: x.expand(1, 2, 8, 16), s((1, 2, 8, 16))),
        c(op, "batch", lambda x: x.expand(7, 8, 48), s((8, 48))),
        c(op, "middle", lambda x: x.expand(3, 4, 5), s((3, 1, 5))),
        c(op, "mask_bool", lambda x: x.expand(2, 1, 8, 8), s((2, 1, 8, 1), dtype=torch.bool)),
        c(op, "minus_one_i64", lambda x: x.expand(3, -1, 4), s((5, 1), dtype=torch.int64)),
    ]


def slice_select_split_cases() -> list[Case]:
    slice_op = "aten::slice_copy.Tensor_out"
    select_op = "aten::select_copy.int_out"
    split_op = "aten::split_with_sizes_copy.out"
    return [
        c(slice_op, "middle_step", lambda x: x[:, 1:8:3], s((3, 10, 6))),
        c(slice_op, "inner", lambda x: x[..., 2:-1], s((4, 3, 9))),
        c(slice_op, "outer_rows", lambda x: x[2:5], s((7, 2, 48))),
        c(select_op, "middle", lambda x: x.select(1, 2), s((3, 4, 2, 16))),
        c(select_op, "qkv", lambda x: x.select(0, -1), s((3, 12, 1, 32))),
        c(select_op, "inner_i32", lambda x: x.select(-1, 3), s((5, 6, 7), dtype=torch.int32)),
        c(split_op, "inner", lambda x: torch.split(x, [16, 16, 32], -1), s((2, 3, 64))),
        c(split_op, "middle", lambda x: torch.split(x, [1, 3], 1), s((2, 4, 5))),
        c(split_op, "outer_f16", lambda x: torch.split(x, 2, 0), s((5, 6), dtype=torch.float16)),
    ]


def pad_cases() -> list[Case]:
    op = "aten::constant_pad_nd.out"
    return [
        c(op, "last_two", lambda x: F.pad(x, (1, 2, 0, 3), value=1.5), s((2, 3, 4, 5))),
        c(op, "window", lambda x: F.pad(x, (0, 0, 0, 2, 0, 2)), s((1, 6, 6, 16))),
        c(op, "no_padding", lambda x: F.pad(x, (0, 0, 0, 0)), s((1, 8, 8, 16))),
        c(op, "one_dim", lambda x: F.pad(x, (3, 0), value=-2.0), s((4, 7))),
        c(op, "i32", lambda x: F.pad(x, (1, 1), value=3), s((2, 5), dtype=torch.int32)),  # the portable kernel's
    ]


def index_cases() -> list[Case]:
    index_op = "aten::index.Tensor_out"
    select_op = "aten::index_select.out"
    embedding_op = "aten::embedding.out"
    table = s((49, 2))
    rows = torch.tensor([[0, 48, 7, -1], [-49, 3, 3, 20]])
    return [
        c(index_op, "bias_table", lambda t, i: t[i], table, torch.arange(64) * 5 % 49),
        c(index_op, "neg_2d", lambda t, i: t[i], table, rows),
        c(index_op, "rows_i32", lambda t, i: t[i], s((6, 3, 5)), torch.tensor([5, 0, -2], dtype=torch.int32)),
        c(index_op, "second_dim", lambda t, i: t[:, i], s((4, 6)), torch.tensor([1, -1, 2])),  # the portable kernel's
        c(index_op, "mask", lambda t, m: t[m], s((5, 3)), s((5,), 1, torch.bool)),  # the portable kernel's
        c(select_op, "rows", lambda t, i: torch.index_select(t, 0, i), s((8, 16)), torch.tensor([7, 0, 0, 3])),
        c(select_op, "inner_i32", lambda t, i: torch.index_select(t, 2, i), s((2, 3, 9)),
          torch.tensor([8, 1, 4], dtype=torch.int32)),
        c(select_op, "middle", lambda t, i: torch.index_select(t, 1, i), s((1, 8, 8, 16)), torch.tensor([0, 2, 4, 6])),
        c(embedding_op, "long_rows", lambda w, i: F.embedding(i, w), s((50, 32)), torch.tensor([[1, 49, 0, 7, 7]])),
        c(embedding_op, "narrow_rows", lambda w, i: F.embedding(i, w), s((9, 1)), torch.tensor([8, 0, 3])),
    ]  # fmt: skip


def cat_cast_cases() -> list[Case]:
    cat_op = "aten::cat.out"
    cast_op = "dim_order_ops::_to_dim_order_copy.out"
    cl = torch.channels_last
    return [
        c(cat_op, "middle", lambda x, y, z: torch.cat([x, y, z], 1), s((2, 3, 5)), s((2, 1, 5), 1), s((2, 4, 5), 2)),
        c(cat_op, "steps", lambda *xs: torch.cat(xs, 0), *(s((1, 2, 16), i) for i in range(7))),
        c(cat_op, "inner_i64", lambda x, y: torch.cat([x, y], -1), s((3, 4), dtype=torch.int64),
          s((3, 2), 1, torch.int64)),
        c(cat_op, "channels_last", lambda x, y: torch.cat([x, y], 1), s((1, 3, 4, 4)).contiguous(memory_format=cl),
          s((1, 5, 4, 4), 1).contiguous(memory_format=cl)),
        c(cat_op, "with_empty", lambda x, y: torch.cat([x, y], 0), s((0, 6)), s((2, 6), 1)),
        c(cat_op, "mixed", lambda x, y: torch.cat([x, y], 0), s((2, 3)), s((1, 3), 1, torch.int32)),  # portable's
        c(cast_op, "i64_0d", lambda x: x.to(F32), torch.tensor(3)),
        c(cast_op, "i32_rows", lambda x: x.to(F32), torch.arange(-20, 25, dtype=torch.int32).reshape(5, 9)),
        c(cast_op, "i64_big", lambda x: x.to(F32), torch.tensor([2**40 + 1, -(2**53) - 3, 16777217])),
        c(cast_op, "to_i64", lambda x: x.to(torch.int64), s((4, 5))),  # the portable kernel's
    ]  # fmt: skip


CASES = copy_cases() + clone_cases() + permute_cases() + expand_cases() + slice_select_split_cases()
CASES += pad_cases() + index_cases() + cat_cast_cases()


@pytest.fixture(scope="session")
def exported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The cases exported as conformance fixtures (program, inputs, ExecuTorch's outputs)."""
    from tests.conformance import export

    assert len({case.id for case in CASES}) == len(CASES), "case ids repeat"
    root = tmp_path_factory.mktemp("optimized_movement")
    problems = []
    for case in CASES:
        outcome = export._export_case("optimized_movement", case, root)
        if outcome.status != "ok":
            problems.append(f"{case.id}: {outcome.status} {outcome.message}")
    assert not problems, "\n".join(problems)
    return root


@pytest.fixture(scope="session")
def results(runner: Path, exported: Path) -> dict[str, check.Result]:  # noqa: F811
    return check.run_all(runner, fixtures(exported))


@pytest.mark.parametrize("case_id", [case.id for case in CASES])
def test_case_matches_executorch(case_id: str, results: dict[str, check.Result]) -> None:
    result = results[case_id]
    assert result.status == check.PASS or result.status == check.ATEN, f"{case_id}: {result.status}: {result.message}"


def test_cases_under_sanitizers(sanitized_optimized: Path, exported: Path) -> None:  # noqa: F811
    """The strided copies and gathers under ASan and UBSan."""
    results = check.run_all(sanitized_optimized, fixtures(exported))
    failed = {
        fid: f"{r.status}: {r.message[:300]}" for fid, r in results.items() if r.status not in (check.PASS, check.ATEN)
    }
    assert not failed, failed
