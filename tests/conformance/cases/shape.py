"""Shape: ops that move elements without computing on them (transpose, t, diagonal, as_strided,
unfold, flip, roll, repeat, stack, split, unbind, narrow, squeeze, tril) and the factories
(arange, empty, zeros, ones, rand, randn) and in-place copy_.

Most of these ops are decomposed by `to_edge` unless the program keeps them
(`EdgeCompileConfig(preserve_ops=...)`, as a model exported for ExecuTorch may): those cases
carry the tag `preserve=<torch op overload>` naming the op to keep. ExecuTorch refuses to
preserve view ops (transpose, unfold, ...), so their cases call the `*_copy` functional form,
which it keeps.

Cases tagged `shape-only` have outputs whose values are unspecified: compare their shapes and
dtypes, not their values. rand and randn cannot be compared by value (ExecuTorch seeds its
generator from std::random_device on every call) and empty's contents are whatever the memory
held. rand's `range` cases still test values: floor(rand) is all zeros exactly when every value
lies in [0, 1).
"""

from __future__ import annotations

from collections.abc import Callable

import torch

from tests.conformance.spec import ALL_DTYPES, FLOAT_DTYPES, Case, per_dtype, sample

A = torch.ops.aten
REAL_DTYPES = tuple(t for t in ALL_DTYPES if t != torch.bool)


def _keep(op: str) -> str:
    return f"preserve={op}"


def _all(
    op: str,
    name: str,
    fn: Callable[..., object],
    make: Callable[[torch.dtype], tuple[torch.Tensor, ...]],
    dtypes: tuple[torch.dtype, ...] = ALL_DTYPES,
    tags: tuple[str, ...] = (),
    also: tuple[str, ...] = (),
) -> list[Case]:
    return per_dtype(op, name, dtypes, lambda t: Case(op, "", fn, make(t), tags=tags, also=also))


def _one(
    op: str,
    name: str,
    fn: Callable[..., object],
    *inputs: torch.Tensor,
    tags: tuple[str, ...] = (),
    also: tuple[str, ...] = (),
) -> Case:
    return Case(op, name, fn, tuple(inputs), tags=tags, also=also)


CASES: list[Case] = []

# --- arange ---------------------------------------------------------------------------------------
ARANGE = "aten::arange.start_out"
CASES += per_dtype(
    ARANGE, "step", REAL_DTYPES, lambda t: Case(ARANGE, "", lambda t=t: torch.arange(1, 11, 3, dtype=t), ())
)
CASES += [
    _one(ARANGE, "f32_fraction", lambda: torch.arange(-1.5, 2.25, 0.5, dtype=torch.float32)),
    _one(ARANGE, "f32_negative_step", lambda: torch.arange(3.0, -2.0, -0.75, dtype=torch.float32)),
    _one(ARANGE, "i64_negative_step", lambda: torch.arange(7, -5, -3)),
    _one(ARANGE, "i64_empty", lambda: torch.arange(4, 4), tags=("empty",)),
    _one(ARANGE, "f64_end_only", lambda: torch.arange(6.5, dtype=torch.float64)),
]
ARANGE_END = "aten::arange.out"
CASES += per_dtype(
    ARANGE_END,
    "end",
    (torch.float32, torch.int64, torch.int32),
    lambda t: Case(ARANGE_END, "", lambda t=t: torch.arange(5, dtype=t), (), tags=(_keep("aten.arange.default"),)),
)

# --- as_strided_copy ------------------------------------------------------------------------------
AS_STRIDED = "aten::as_strided_copy.out"
CASES += _all(AS_STRIDED, "overlap", lambda x: torch.as_strided(x, (3, 3), (2, 1), 1), lambda t: (sample((4, 3), t),))
CASES += [
    _one(
        AS_STRIDED,
        "f32_zero_stride",
        lambda x: torch.as_strided(x, (2, 3, 2), (0, 4, 1), 2),
        sample((12,), torch.float32, seed=1),
        tags=("broadcast",),
    ),
    _one(AS_STRIDED, "f32_transposed", lambda x: torch.as_strided(x, (4, 3), (1, 4)), sample((3, 4), torch.float32)),
    _one(AS_STRIDED, "i64_0d", lambda x: torch.as_strided(x, (), (), 5), sample((2, 3), torch.int64), tags=("0-d",)),
    _one(
        AS_STRIDED,
        "f32_empty",
        lambda x: torch.as_strided(x, (0, 3), (3, 1)),
        sample((2, 3), torch.float32),
        tags=("empty",),
    ),
]

# --- transpose_copy / t_copy ----------------------------------------------------------------------
TRANSPOSE = "aten::transpose_copy.int_out"
_KEEP_T = (_keep("aten.transpose_copy.int"),)
CASES += _all(TRANSPOSE, "3d", lambda x: A.transpose_copy.int(x, 0, 2), lambda t: (sample((2, 3, 4), t),), tags=_KEEP_T)
CASES += [
    _one(
        TRANSPOSE,
        "f32_negative_dims",
        lambda x: A.transpose_copy.int(x, -1, -3),
        sample((2, 1, 3, 2), torch.float32),
        tags=(*_KEEP_T, "negative-dim"),
    ),
    _one(
        TRANSPOSE, "f32_same_dim", lambda x: A.transpose_copy.int(x, 1, 1), sample((2, 3), torch.float32), tags=_KEEP_T
    ),
    _one(
        TRANSPOSE, "f32_0d", lambda x: A.transpose_copy.int(x, 0, -1), sample((), torch.float32), tags=(*_KEEP_T, "0-d")
    ),
    _one(
        TRANSPOSE,
        "f32_empty",
        lambda x: A.transpose_copy.int(x, 0, 1),
        sample((0, 3), torch.float32),
        tags=(*_KEEP_T, "empty"),
    ),
]
T_COPY = "aten::t_copy.out"
_KEEP_TC = (_keep("aten.t_copy.default"),)
CASES += _all(T_COPY, "2d", lambda x: A.t_copy.default(x), lambda t: (sample((3, 4), t),), tags=_KEEP_TC)
CASES += [
    _one(T_COPY, "f32_1d", lambda x: A.t_copy.default(x), sample((5,), torch.float32), tags=_KEEP_TC),
    _one(T_COPY, "i32_0d", lambda x: A.t_copy.default(x), sample((), torch.int32), tags=(*_KEEP_TC, "0-d")),
]

# --- squeeze_copy.dim -----------------------------------------------------------------------------
SQUEEZE = "aten::squeeze_copy.dim_out"
_KEEP_SQ = (_keep("aten.squeeze_copy.dim"),)
CASES += _all(SQUEEZE, "middle", lambda x: A.squeeze_copy.dim(x, 1), lambda t: (sample((3, 1, 2), t),), tags=_KEEP_SQ)
CASES += [
    _one(
        SQUEEZE,
        "f32_negative_dim",
        lambda x: A.squeeze_copy.dim(x, -1),
        sample((2, 3, 1), torch.float32),
        tags=(*_KEEP_SQ, "negative-dim"),
    ),
    _one(SQUEEZE, "f32_not_one", lambda x: A.squeeze_copy.dim(x, 0), sample((2, 3), torch.float32), tags=_KEEP_SQ),
    _one(SQUEEZE, "f32_0d", lambda x: A.squeeze_copy.dim(x, 0), sample((), torch.float32), tags=(*_KEEP_SQ, "0-d")),
]

# --- split_copy / unbind_copy ---------------------------------------------------------------------
SPLIT = "aten::split_copy.Tensor_out"
CASES += _all(SPLIT, "uneven", lambda x: A.split_copy.Tensor(x, 2, 1), lambda t: (sample((2, 5), t),))
CASES += [
    _one(
        SPLIT,
        "f32_negative_dim",
        lambda x: A.split_copy.Tensor(x, 1, -2),
        sample((3, 2), torch.float32),
        tags=("negative-dim",),
    ),
    _one(SPLIT, "f32_larger", lambda x: A.split_copy.Tensor(x, 7, 0), sample((3, 2), torch.float32)),
    _one(SPLIT, "f32_empty", lambda x: A.split_copy.Tensor(x, 2, 0), sample((0, 2), torch.float32), tags=("empty",)),
]
UNBIND = "aten::unbind_copy.int_out"
CASES += _all(UNBIND, "dim1", lambda x: A.unbind_copy.int(x, 1), lambda t: (sample((2, 3, 2), t),))
CASES += [
    _one(
        UNBIND,
        "f32_negative_dim",
        lambda x: A.unbind_copy.int(x, -1),
        sample((2, 3), torch.float32),
        tags=("negative-dim",),
    ),
    _one(UNBIND, "f32_1d", lambda x: A.unbind_copy.int(x, 0), sample((3,), torch.float32)),
]

# --- stack ----------------------------------------------------------------------------------------
STACK = "aten::stack.out"
_KEEP_ST = (_keep("aten.stack.default"),)
CASES += _all(
    STACK,
    "middle",
    lambda x, y: torch.stack([x, y], 1),
    lambda t: (sample((2, 3), t), sample((2, 3), t, 1)),
    tags=_KEEP_ST,
)
CASES += [
    _one(
        STACK,
        "f32_last",
        lambda x, y, z: torch.stack([x, y, z], -1),
        sample((2, 2), torch.float32),
        sample((2, 2), torch.float32, 1),
        sample((2, 2), torch.float32, 2),
        tags=(*_KEEP_ST, "negative-dim"),
    ),
    _one(
        STACK,
        "f32_0d",
        lambda x, y: torch.stack([x, y]),
        sample((), torch.float32),
        sample((), torch.float32, 1),
        tags=(*_KEEP_ST, "0-d"),
    ),
    _one(STACK, "f32_one", lambda x: torch.stack([x], 0), sample((3,), torch.float32), tags=_KEEP_ST),
    _one(
        STACK,
        "f32_empty",
        lambda x, y: torch.stack([x, y], 1),
        sample((0, 2), torch.float32),
        sample((0, 2), torch.float32),
        tags=(*_KEEP_ST, "empty"),
    ),
]

# --- flip -----------------------------------------------------------------------------------------
FLIP = "aten::flip.out"
CASES += _all(FLIP, "two_dims", lambda x: torch.flip(x, [0, 2]), lambda t: (sample((2, 3, 2), t),))
CASES += [
    _one(
        FLIP, "f32_negative_dim", lambda x: torch.flip(x, [-1]), sample((2, 4), torch.float32), tags=("negative-dim",)
    ),
    _one(FLIP, "f32_no_dims", lambda x: torch.flip(x, []), sample((2, 3), torch.float32)),
    _one(FLIP, "f32_0d", lambda x: torch.flip(x, [0]), sample((), torch.float32), tags=("0-d",)),
    _one(FLIP, "f32_empty", lambda x: torch.flip(x, [0, 1]), sample((0, 3), torch.float32), tags=("empty",)),
]

# --- roll -----------------------------------------------------------------------------------------
ROLL = "aten::roll.out"
_KEEP_R = (_keep("aten.roll.default"),)
CASES += _all(ROLL, "two_dims", lambda x: torch.roll(x, [1, -2], [0, 1]), lambda t: (sample((3, 4), t),), tags=_KEEP_R)
CASES += [
    _one(
        ROLL,
        "f32_large_shift",
        lambda x: torch.roll(x, [11], [-1]),
        sample((2, 4), torch.float32),
        tags=(*_KEEP_R, "negative-dim"),
    ),
    _one(
        ROLL, "f32_same_dim_twice", lambda x: torch.roll(x, [1, 3], [0, 0]), sample((5, 2), torch.float32), tags=_KEEP_R
    ),
    _one(ROLL, "f32_zero_shift", lambda x: torch.roll(x, [0], [1]), sample((2, 3), torch.float32), tags=_KEEP_R),
    _one(ROLL, "f32_empty", lambda x: torch.roll(x, [1], [1]), sample((0, 3), torch.float32), tags=(*_KEEP_R, "empty")),
]

# --- repeat ---------------------------------------------------------------------------------------
REPEAT = "aten::repeat.out"
CASES += _all(REPEAT, "new_dim", lambda x: x.repeat(2, 1, 3), lambda t: (sample((2, 2), t),))
CASES += [
    _one(REPEAT, "f32_zero", lambda x: x.repeat(0, 2), sample((2, 3), torch.float32), tags=("empty",)),
    _one(REPEAT, "f32_0d", lambda x: x.repeat(3, 2), sample((), torch.float32), tags=("0-d",)),
    _one(REPEAT, "f32_ones", lambda x: x.repeat(1, 1, 1), sample((2, 1, 3), torch.float32)),
]

# --- repeat_interleave.Tensor ---------------------------------------------------------------------
# Not in the core ATen opset: the exporter lowers it without the edge dialect's check.
RI = "aten::repeat_interleave.Tensor_out"
CASES += [
    _one(RI, "i64", lambda r: torch.repeat_interleave(r, output_size=6), torch.tensor([1, 0, 3, 2])),
    _one(RI, "i32", lambda r: torch.repeat_interleave(r, output_size=4), torch.tensor([2, 2, 0], dtype=torch.int32)),
    _one(RI, "i64_empty", lambda r: torch.repeat_interleave(r, output_size=0), torch.tensor([0, 0]), tags=("empty",)),
]

# --- narrow_copy ----------------------------------------------------------------------------------
NARROW = "aten::narrow_copy.out"
CASES += _all(NARROW, "middle", lambda x: torch.narrow_copy(x, 1, 1, 2), lambda t: (sample((2, 4), t),))
CASES += [
    # ATen counts a negative start from the end; ExecuTorch's kernel refuses it. (A negative dim aborts
    # ExecuTorch's runtime: its check reads in.size(dim) before normalizing dim, so no case for that.)
    Case(
        NARROW,
        "f32_negative_start",
        lambda x: torch.narrow_copy(x, 1, -3, 2),
        (sample((2, 4), torch.float32),),
        unsupported_by_executorch="ExecuTorch's narrow_copy refuses a negative start",
    ),
    _one(NARROW, "f32_empty", lambda x: torch.narrow_copy(x, 0, 2, 0), sample((2, 4), torch.float32), tags=("empty",)),
]

# --- diagonal_copy --------------------------------------------------------------------------------
DIAGONAL = "aten::diagonal_copy.out"
CASES += _all(DIAGONAL, "offset", lambda x: torch.diagonal(x, 1), lambda t: (sample((3, 4), t),))
CASES += [
    _one(DIAGONAL, "f32_below", lambda x: torch.diagonal(x, -2), sample((4, 3), torch.float32)),
    _one(DIAGONAL, "f32_batched", lambda x: torch.diagonal(x, 0, 2, 0), sample((3, 2, 3), torch.float32)),
    _one(
        DIAGONAL,
        "f32_negative_dims",
        lambda x: torch.diagonal(x, 1, -1, -2),
        sample((2, 3, 3), torch.float32),
        tags=("negative-dim",),
    ),
    _one(DIAGONAL, "f32_off_the_edge", lambda x: torch.diagonal(x, 5), sample((3, 4), torch.float32), tags=("empty",)),
]

# --- tril -----------------------------------------------------------------------------------------
TRIL = "aten::tril.out"
_KEEP_TR = (_keep("aten.tril.default"),)
CASES += _all(TRIL, "main", lambda x: torch.tril(x), lambda t: (sample((3, 4), t),), tags=_KEEP_TR)
CASES += [
    _one(TRIL, "f32_above", lambda x: torch.tril(x, 2), sample((4, 3), torch.float32), tags=_KEEP_TR),
    _one(TRIL, "f32_below_batched", lambda x: torch.tril(x, -1), sample((2, 3, 3), torch.float32), tags=_KEEP_TR),
    _one(TRIL, "f32_far", lambda x: torch.tril(x, -9), sample((2, 3), torch.float32), tags=_KEEP_TR),
    _one(
        TRIL,
        "f32_nan",
        lambda x: torch.tril(x),
        torch.tensor([[1.0, float("nan")], [float("inf"), float("nan")]]),
        tags=(*_KEEP_TR, "nan"),
    ),
    _one(TRIL, "f32_empty", lambda x: torch.tril(x), sample((2, 0, 3), torch.float32), tags=(*_KEEP_TR, "empty")),
]

# --- unfold_copy ----------------------------------------------------------------------------------
# unfold is a view: to_edge refuses to keep it, so the exporter lowers it without the edge check.
UNFOLD = "aten::unfold_copy.out"
CASES += _all(UNFOLD, "windows", lambda x: x.unfold(1, 2, 2), lambda t: (sample((2, 5), t),))
CASES += [
    _one(UNFOLD, "f32_overlap", lambda x: x.unfold(0, 3, 1), sample((4, 2), torch.float32)),
    _one(
        UNFOLD, "f32_negative_dim", lambda x: x.unfold(-1, 4, 3), sample((2, 7), torch.float32), tags=("negative-dim",)
    ),
    _one(UNFOLD, "f32_zero_size", lambda x: x.unfold(1, 0, 1), sample((2, 3), torch.float32), tags=("empty",)),
]

# --- copy_ (the write-back of a mutated input) ----------------------------------------------------
COPY_ = "aten::copy_"
CASES += _all(
    COPY_,
    "inplace",
    lambda x, y: x.copy_(y),
    lambda t: (sample((2, 3), t), sample((2, 3), t, 1)),
    also=("aten::copy.out",),
)
CASES += [
    _one(
        COPY_,
        "f32_broadcast",
        lambda x, y: x.copy_(y),
        sample((2, 3), torch.float32),
        sample((3,), torch.float32, 1),
        tags=("broadcast",),
        also=("aten::copy.out",),
    ),
    _one(
        COPY_,
        "f32_from_i64",
        lambda x, y: x.copy_(y),
        sample((2, 2), torch.float32),
        sample((2, 2), torch.int64, 1),
        also=("aten::copy.out",),
    ),
]

# --- factories ------------------------------------------------------------------------------------
EMPTY = "dim_order_ops::_empty_dim_order.out"
CASES += per_dtype(
    EMPTY,
    "shape",
    (torch.float32, torch.int64),
    lambda t: Case(EMPTY, "", lambda t=t: torch.empty(2, 3, dtype=t), (), tags=("shape-only",)),
)
# aten::empty.out is not reachable: to_edge turns every empty into _empty_dim_order.
ZEROS = "aten::zeros.out"
CASES += per_dtype(
    ZEROS,
    "shape",
    ALL_DTYPES,
    lambda t: Case(ZEROS, "", lambda t=t: torch.zeros(2, 3, dtype=t), (), tags=(_keep("aten.zeros.default"),)),
)
ONES = "aten::ones.out"
CASES += per_dtype(
    ONES,
    "shape",
    ALL_DTYPES,
    lambda t: Case(ONES, "", lambda t=t: torch.ones(3, 2, dtype=t), (), tags=(_keep("aten.ones.default"),)),
)
CASES += [_one(ONES, "f32_0d", lambda: torch.ones((), dtype=torch.float32), tags=(_keep("aten.ones.default"), "0-d"))]

RAND = "aten::rand.out"
CASES += per_dtype(
    RAND,
    "shape",
    FLOAT_DTYPES,
    lambda t: Case(RAND, "", lambda t=t: torch.rand(4, 8, dtype=t), (), tags=("shape-only", "random")),
)
CASES += per_dtype(
    RAND,
    "range",
    (torch.float32, torch.float64),
    lambda t: Case(RAND, "", lambda t=t: torch.floor(torch.rand(8, 8, dtype=t)), (), also=("aten::floor.out",)),
)
RANDN = "aten::randn.out"
CASES += per_dtype(
    RANDN,
    "shape",
    FLOAT_DTYPES,
    lambda t: Case(RANDN, "", lambda t=t: torch.randn(4, 8, dtype=t), (), tags=("shape-only", "random")),
)
