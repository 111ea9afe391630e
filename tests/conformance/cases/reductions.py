"""Reductions: max/min (amax, argmax, max.dim, max()), any, mean, prod, var, cumsum, norms,
topk, pooling and distances — every op that folds elements of its input together."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import torch

from tests.conformance.spec import ALL_DTYPES, FLOAT_DTYPES, INT_DTYPES, Case, per_dtype, sample

REAL_DTYPES = (*FLOAT_DTYPES, *INT_DTYPES)
NAN = math.nan
INF = math.inf
F32 = (torch.float32,)
F32_I32 = (torch.float32, torch.int32)
F32_I64 = (torch.float32, torch.int64)
F32_F64 = (torch.float32, torch.float64)

# What ExecuTorch's portable kernel takes, per op (its ET_SWITCH sets), and why it refuses the rest.
ACCEPTS: dict[str, tuple[tuple[torch.dtype, ...], str]] = {
    "aten::_adaptive_avg_pool2d.out": ((*FLOAT_DTYPES, torch.int64), "takes floating dtypes and Long"),
    "aten::topk.values": (REAL_DTYPES, "topk takes real, Half and BFloat16 inputs, not Bool"),
    "aten::argmax.out": (REAL_DTYPES, "argmax takes real, Half and BFloat16 inputs, not Bool"),
    "aten::argmin.out": (REAL_DTYPES, "argmin takes real, Half and BFloat16 inputs, not Bool"),
    "aten::max_pool2d_with_indices_backward.grad_input": (FLOAT_DTYPES, "takes floating dtypes only"),
}


def cases(
    op: str,
    name: str,
    dtypes: tuple[torch.dtype, ...],
    fn: Callable[..., Any],
    inputs: Callable[[torch.dtype], tuple[torch.Tensor, ...]],
    tags: tuple[str, ...] = (),
) -> list[Case]:
    """One case per dtype; dtypes outside ACCEPTS[op] are expected to be refused by ExecuTorch."""
    accepted, why = ACCEPTS.get(op, (ALL_DTYPES, ""))

    def make(dtype: torch.dtype) -> Case:
        refused = "" if dtype in accepted else why
        return Case(op, "", fn, inputs(dtype), unsupported_by_executorch=refused, tags=tags)

    return per_dtype(op, name, dtypes, make)


def _with_nan(dtype: torch.dtype) -> torch.Tensor:
    """A 3x4 input with NaN and +-Inf in some rows (float dtypes only)."""
    x = sample((3, 4), dtype, seed=7)
    x[0, 2] = NAN
    x[1, 0] = INF
    x[1, 3] = -INF
    x[2, 1] = NAN
    x[2, 3] = NAN
    return x


def _ties(dtype: torch.dtype) -> tuple[torch.Tensor]:
    """Repeated extremes: the first index must win."""
    return (torch.tensor([[1, 3, 3, 0], [2, 2, 0, 2], [0, 0, 0, 0]]).to(dtype),)


def _s(*shape: int, seed: int = 0, low: float = -4, high: float = 4) -> Callable[[torch.dtype], tuple[torch.Tensor]]:
    return lambda dtype: (sample(shape, dtype, seed=seed, low=low, high=high),)


def _t(values: Any) -> Callable[[torch.dtype], tuple[torch.Tensor]]:
    return lambda dtype: (torch.tensor(values, dtype=dtype),)


def _z(*shape: int) -> Callable[[torch.dtype], tuple[torch.Tensor]]:
    return lambda dtype: (torch.zeros(shape, dtype=dtype),)


def _nan(dtype: torch.dtype) -> tuple[torch.Tensor]:
    return (_with_nan(dtype),)


def _extreme_dims_cases(op: str, fn: Callable[..., torch.Tensor]) -> list[Case]:
    """amax / amin: a dim list, keepdim, every dim, negative dims, 0-d, NaN."""
    return [
        *cases(op, "dim1", ALL_DTYPES, lambda x: fn(x, [1]), _s(3, 4)),
        *cases(op, "dims02_keepdim", ALL_DTYPES, lambda x: fn(x, [0, 2], True), _s(2, 3, 4, seed=1), ("keepdim",)),
        *cases(op, "all", F32_I64, lambda x: fn(x, []), _s(2, 3, 2, seed=2)),
        *cases(op, "negdim", F32_I32, lambda x: fn(x, [-1, -3]), _s(2, 2, 3, seed=3), ("negative-dim",)),
        *cases(op, "0d", F32, lambda x: fn(x, [0]), _t(2.5), ("0-d",)),
        *cases(op, "nan", FLOAT_DTYPES, lambda x: fn(x, [1]), _nan, ("nan",)),
        *cases(op, "nan_dim0", F32, lambda x: fn(x, [0], True), _nan, ("nan", "keepdim")),
    ]


def _arg_cases(op: str, fn: Callable[..., torch.Tensor]) -> list[Case]:
    """argmax / argmin: one dim or none, keepdim, ties, NaN, 0-d."""
    return [
        *cases(op, "dim1", ALL_DTYPES, lambda x: fn(x, 1), _s(3, 4)),
        *cases(op, "none", F32_I64, lambda x: fn(x), _s(2, 3, 2, seed=2)),
        *cases(op, "none_keepdim", F32, lambda x: fn(x, None, True), _s(2, 3, seed=4), ("keepdim",)),
        *cases(op, "negdim_keepdim", F32_I32, lambda x: fn(x, -2, True), _s(2, 3, 2, seed=3),
               ("negative-dim", "keepdim")),
        *cases(op, "ties", F32_I64, lambda x: fn(x, 1), _ties),
        *cases(op, "0d", F32, lambda x: fn(x, 0), _t(-1.5), ("0-d",)),
        *cases(op, "nan", F32_F64, lambda x: fn(x, 1), _nan, ("nan",)),
    ]  # fmt: skip


def _dim_cases(op: str, fn: Callable[..., tuple[torch.Tensor, torch.Tensor]]) -> list[Case]:
    """max.dim / min.dim: values and indices along one dim."""
    return [
        *cases(op, "dim1", ALL_DTYPES, lambda x: fn(x, 1), _s(3, 4)),
        *cases(op, "negdim_keepdim", F32_I32, lambda x: fn(x, -3, True), _s(2, 3, 2, seed=5),
               ("negative-dim", "keepdim")),
        *cases(op, "ties", F32_I64, lambda x: fn(x, 1), _ties),
        *cases(op, "0d", F32, lambda x: fn(x, 0), _t(3.0), ("0-d",)),
        *cases(op, "empty_kept", F32, lambda x: fn(x, 1), _z(0, 3), ("empty",)),
        *cases(op, "nan", F32_F64, lambda x: fn(x, 1), _nan, ("nan",)),
    ]  # fmt: skip


def _all_cases(op: str, fn: Callable[[torch.Tensor], torch.Tensor]) -> list[Case]:
    """max() / min() of every element."""
    return [
        *cases(op, "2d", ALL_DTYPES, fn, _s(3, 4)),
        *cases(op, "0d", F32, fn, _t(-2.0), ("0-d",)),
        *cases(op, "nan", F32_F64, fn, _nan, ("nan",)),
        *cases(op, "inf", F32, fn, _t([-INF, 1.0, INF]), ("inf",)),
    ]


def _cumsum_cases(op: str) -> list[Case]:
    """cumsum: integers and bools sum into Long, an explicit dtype, wrap-around, empty. (No 0-d case:
    ExecuTorch refuses dim 0 of a 0-d tensor, which ATen and this runtime take.)"""
    return [
        *cases(op, "dim1", ALL_DTYPES, lambda x: torch.cumsum(x, 1), _s(3, 4)),
        *cases(op, "dim0", F32_I32, lambda x: torch.cumsum(x, 0), _s(3, 2, 2, seed=1)),
        *cases(op, "negdim", F32, lambda x: torch.cumsum(x, -1), _s(2, 5, seed=2), ("negative-dim",)),
        *cases(op, "to_f64", (*F32_I32, torch.bool), lambda x: torch.cumsum(x, 1, dtype=torch.double), _s(2, 4)),
        *cases(op, "wraps", (torch.int8,), lambda x: torch.cumsum(x, 0, dtype=torch.int8),
               _t([100, 100, 100, -128, -128]), ("overflow",)),
        *cases(op, "empty", F32, lambda x: torch.cumsum(x, 1), _z(2, 0), ("empty",)),
        *cases(op, "nan", (torch.float32, torch.float16), lambda x: torch.cumsum(x, 1), _nan, ("nan",)),
    ]  # fmt: skip


def _group_norm_cases(op: str) -> list[Case]:
    """native_group_norm: affine or not, 4-D / 3-D / 2-D inputs, one group per channel (floating
    dtypes only: torch cannot trace it for integers)."""
    gn = torch.nn.functional.group_norm

    def affine(*shape: int) -> Callable[[torch.dtype], tuple[torch.Tensor, ...]]:
        c = shape[1]
        return lambda t: (sample(shape, t), sample((c,), t, seed=1, low=0.5, high=2), sample((c,), t, seed=2))

    return [
        *cases(op, "affine", FLOAT_DTYPES, lambda x, w, b: gn(x, 2, w, b, 1e-5), affine(2, 4, 2, 3)),
        *cases(op, "plain", F32_F64, lambda x: gn(x, 3, eps=1e-3), _s(2, 6, 3, seed=3)),
        *cases(op, "per_channel_2d", F32, lambda x, w, b: gn(x, 4, w, b), affine(3, 4)),
        *cases(op, "one_group", (torch.float32, torch.float16), lambda x, w, b: gn(x, 1, w, b), affine(1, 3, 2, 2)),
    ]


def _any_cases() -> list[Case]:
    """any(): every element; any(dim=(...)): a dim list, keepdim, none; u8 answers in u8."""
    op_all, op_dims = "aten::any.all_out", "aten::any.dims_out"

    def sparse(*shape: int) -> Callable[[torch.dtype], tuple[torch.Tensor]]:
        def make(dtype: torch.dtype) -> tuple[torch.Tensor]:
            x = torch.zeros(shape, dtype=dtype)
            x.view(-1)[::5] = torch.ones((), dtype=dtype)
            return (x,)

        return make

    return [
        *cases(op_all, "2d", ALL_DTYPES, lambda x: torch.any(x), sparse(3, 4)),
        *cases(op_all, "zeros", F32_I32, lambda x: torch.any(x), _z(2, 3)),
        *cases(op_all, "nan", F32, lambda x: torch.any(x), _t([0.0, NAN, 0.0]), ("nan",)),
        *cases(op_all, "empty", (torch.float32, torch.bool), lambda x: torch.any(x), _z(0, 2), ("empty",)),
        *cases(op_all, "0d", F32, lambda x: torch.any(x), _t(0.5), ("0-d",)),
        *cases(op_dims, "dims02", ALL_DTYPES, lambda x: torch.any(x, dim=(0, 2)), sparse(2, 3, 4)),
        *cases(op_dims, "negdims_keepdim", F32_I64, lambda x: torch.any(x, dim=(-1, -2), keepdim=True), sparse(2, 3, 2),
               ("negative-dim", "keepdim")),
        *cases(op_dims, "empty_kept", F32, lambda x: torch.any(x, dim=(0, 1)), _z(0, 2, 3), ("empty",)),
    ]  # fmt: skip


def _mean_prod_cases() -> list[Case]:
    """mean(x, dtype=): every dim; prod over everything or one dim: integers and bools into Long
    (wrapping), dtype=, empty folds give 1."""
    mean, prod, prod_dim = "aten::mean.dtype_out", "aten::prod.out", "aten::prod.int_out"
    big = _t([[3_000_000_000, 5_000_000_000], [7, -9_000_000_000]])
    return [
        *cases(mean, "2d", FLOAT_DTYPES, lambda x: torch.mean(x), _s(3, 4)),
        *cases(mean, "to_f64", F32, lambda x: torch.mean(x, dtype=torch.float64), _s(2, 3, seed=1)),
        *cases(mean, "0d", F32, lambda x: torch.mean(x), _t(1.25), ("0-d",)),
        *cases(prod, "2d", ALL_DTYPES, lambda x: torch.prod(x), _s(2, 3, low=-2, high=2)),
        *cases(prod, "to_f64", F32_I32, lambda x: torch.prod(x, dtype=torch.float64), _s(2, 3, seed=1)),
        *cases(prod, "wraps", (torch.int64,), lambda x: torch.prod(x), big, ("overflow",)),
        *cases(prod, "empty", F32_I32, lambda x: torch.prod(x), _z(0, 3), ("empty",)),
        *cases(prod, "nan", F32, lambda x: torch.prod(x), _t([2.0, NAN, 0.0]), ("nan",)),
        *cases(prod_dim, "dim1", ALL_DTYPES, lambda x: torch.prod(x, 1), _s(3, 4, low=-3, high=3)),
        *cases(prod_dim, "negdim_keepdim", F32_I64, lambda x: torch.prod(x, -2, keepdim=True), _s(2, 3, 2, seed=2),
               ("negative-dim", "keepdim")),
        *cases(prod_dim, "wraps", (torch.int16,), lambda x: torch.prod(x, 0, dtype=torch.int16),
               _t([[300, -300], [300, 200], [2, 2]]), ("overflow",)),
        *cases(prod_dim, "wraps", (torch.int64,), lambda x: torch.prod(x, 1), big, ("overflow",)),
        *cases(prod_dim, "empty_dim", F32, lambda x: torch.prod(x, 0), _z(0, 3), ("empty",)),
        *cases(prod_dim, "0d", F32, lambda x: torch.prod(x, 0), _t(-3.0), ("0-d",)),
    ]  # fmt: skip


def _var_cases() -> list[Case]:
    """var / var_mean: dim lists or every dim, corrections 0, 1 and 2.5, keepdim, a single element (NaN)."""
    var, var_dim, var_mean = "aten::var.correction_out", "aten::var.out", "aten::var_mean.correction_out"
    aten = torch.ops.aten
    keep_var = "preserve=aten.var.dim"
    return [
        *cases(var, "dim1", FLOAT_DTYPES, lambda x: torch.var(x, 1), _s(3, 4)),
        *cases(var, "all", F32_F64, lambda x: torch.var(x), _s(2, 3, 2, seed=1)),
        *cases(var, "biased_keepdim", F32, lambda x: torch.var(x, (0, 2), correction=0, keepdim=True),
               _s(2, 3, 2, seed=2), ("keepdim",)),
        *cases(var, "correction_2_5", F32, lambda x: torch.var(x, -1, correction=2.5), _s(2, 5, seed=3),
               ("negative-dim",)),
        *cases(var, "one_element", F32, lambda x: torch.var(x, 1), _s(3, 1, seed=4)),
        *cases(var, "nan", F32, lambda x: torch.var(x, 1), _nan, ("nan",)),
        # to_edge turns var.dim into var.correction unless told to keep it
        *cases(var_dim, "dim1", FLOAT_DTYPES, lambda x: aten.var.dim(x, [1], True), _s(3, 4), (keep_var,)),
        *cases(var_dim, "biased_keepdim", F32_F64, lambda x: aten.var.dim(x, [-1, 0], False, True), _s(2, 3, seed=5),
               ("keepdim", "negative-dim", keep_var)),
        *cases(var_mean, "dim1", FLOAT_DTYPES, lambda x: torch.var_mean(x, 1), _s(3, 4)),
        *cases(var_mean, "all_biased", F32_F64, lambda x: torch.var_mean(x, correction=0), _s(2, 3, 2, seed=6)),
        *cases(var_mean, "keepdim", F32, lambda x: torch.var_mean(x, (0,), keepdim=True), _s(3, 2), ("keepdim",)),
    ]  # fmt: skip


def _batch_norm_cases() -> list[Case]:
    """_native_batch_norm_legit.no_stats: each channel normalized by the batch's own statistics.
    (No case for _native_batch_norm_legit.out: torch.export functionalizes it into
    _native_batch_norm_legit_functional, which has no out variant, so no program holds it.)"""
    no_stats = "aten::_native_batch_norm_legit.no_stats_out"
    bn = torch.ops.aten._native_batch_norm_legit

    def affine(*shape: int) -> Callable[[torch.dtype], tuple[torch.Tensor, ...]]:
        c = shape[1]
        return lambda t: (sample(shape, t), sample((c,), t, seed=1, low=0.5, high=2), sample((c,), t, seed=2))

    return [
        *cases(no_stats, "train", FLOAT_DTYPES, lambda x, w, b: bn(x, w, b, True, 0.1, 1e-5), affine(2, 3, 2, 2)),
        *cases(no_stats, "plain_3d", F32_F64, lambda x: bn(x, None, None, True, 0.1, 1e-3), _s(3, 2, 4, seed=5)),
        *cases(no_stats, "2d", F32, lambda x, w, b: bn(x, w, b, True, 0.0, 1e-5), affine(4, 3)),
    ]


def _topk_cases() -> list[Case]:
    """topk (sorted): largest and smallest, along the last, a middle or a negative dim, k = 0 and k = n,
    one NaN per row. Values are distinct: ExecuTorch's order among equal values is unspecified."""
    op = "aten::topk.values"

    def distinct(*shape: int, seed: int = 0) -> Callable[[torch.dtype], tuple[torch.Tensor]]:
        n = math.prod(shape)
        perm = torch.randperm(n, generator=torch.Generator().manual_seed(seed)) - n // 2
        return lambda t: (perm.reshape(shape).to(t),)

    def nan_rows(t: torch.dtype) -> tuple[torch.Tensor]:
        (x,) = distinct(3, 5, seed=4)(t)
        x[0, 1] = NAN
        x[2, 4] = NAN
        return (x,)

    return [
        *cases(op, "largest", ALL_DTYPES, lambda x: tuple(torch.topk(x, 2)), distinct(3, 5)),
        *cases(op, "smallest_dim0", F32_I32, lambda x: tuple(torch.topk(x, 3, 0, False)), distinct(4, 3, seed=1)),
        *cases(op, "negdim", F32, lambda x: tuple(torch.topk(x, 2, -2)), distinct(2, 4, 3, seed=2), ("negative-dim",)),
        *cases(op, "k_all", F32_I64, lambda x: tuple(torch.topk(x, 6)), distinct(2, 6, seed=3)),
        *cases(op, "k0", F32, lambda x: tuple(torch.topk(x, 0)), distinct(2, 3)),
        *cases(op, "nan_largest", F32_F64, lambda x: tuple(torch.topk(x, 3)), nan_rows, ("nan",)),
        *cases(op, "nan_smallest", F32, lambda x: tuple(torch.topk(x, 5, largest=False)), nan_rows, ("nan",)),
        *cases(op, "0d", F32, lambda x: tuple(torch.topk(x, 1)), _t(2.0), ("0-d",)),
    ]  # fmt: skip


def _adaptive_avg_pool_cases() -> list[Case]:
    """_adaptive_avg_pool2d: overlapping windows (sizes that do not divide), 3-D and 4-D, global pooling."""
    op = "aten::_adaptive_avg_pool2d.out"
    keep = ("preserve=aten._adaptive_avg_pool2d.default",)
    pool = torch.ops.aten._adaptive_avg_pool2d
    return [
        *cases(op, "5x7_to_3x2", ALL_DTYPES, lambda x: pool(x, [3, 2]), _s(1, 2, 5, 7), keep),
        *cases(op, "3d_to_4x3", F32_I64, lambda x: pool(x, [4, 3]), _s(2, 6, 5, seed=1), keep),
        *cases(op, "global", F32, lambda x: pool(x, [1, 1]), _s(2, 3, 3, 4, seed=2), keep),
        *cases(op, "upsample", F32, lambda x: pool(x, [3, 5]), _s(1, 1, 2, 3, seed=3), keep),
    ]


def _distance_cases() -> list[Case]:
    """_cdist_forward / _pdist_forward: p = 2, 1, 0, inf and 3, broadcast batch dims."""
    cdist, pdist = "aten::_cdist_forward.out", "aten::_pdist_forward.out"

    def pair(a: tuple[int, ...], b: tuple[int, ...]) -> Callable[[torch.dtype], tuple[torch.Tensor, ...]]:
        return lambda t: (sample(a, t), sample(b, t, seed=1))

    def whole(a: tuple[int, ...], b: tuple[int, ...]) -> Callable[[torch.dtype], tuple[torch.Tensor, ...]]:
        """Small integers, so that some differences are exactly zero (p = 0 counts the others)."""
        return lambda t: (sample(a, torch.int64, high=1).to(t), sample(b, torch.int64, seed=1, high=1).to(t))

    return [
        *cases(cdist, "p2", FLOAT_DTYPES, lambda a, b: torch.cdist(a, b), pair((3, 4), (2, 4))),
        *cases(cdist, "p1_batched", F32, lambda a, b: torch.cdist(a, b, 1.0), pair((2, 3, 2), (2, 4, 2))),
        *cases(cdist, "p0_broadcast", F32, lambda a, b: torch.cdist(a, b, 0.0), whole((2, 1, 2, 3), (3, 2, 3))),
        *cases(cdist, "pinf", F32_F64, lambda a, b: torch.cdist(a, b, math.inf), pair((3, 2), (3, 2))),
        *cases(cdist, "p3", F32, lambda a, b: torch.cdist(a, b, 3.0), pair((2, 3), (4, 3))),
        *cases(pdist, "p2", FLOAT_DTYPES, lambda x: torch.nn.functional.pdist(x), _s(4, 3)),
        *cases(pdist, "p1", F32, lambda x: torch.nn.functional.pdist(x, 1.0), _s(3, 2, seed=2)),
        *cases(pdist, "pinf", F32, lambda x: torch.nn.functional.pdist(x, math.inf), _s(4, 2, seed=3)),
        *cases(pdist, "p0_5", (torch.float64,), lambda x: torch.nn.functional.pdist(x, 0.5), _s(3, 3, seed=4)),
        *cases(pdist, "one_row", F32, lambda x: torch.nn.functional.pdist(x), _s(1, 3), ("empty",)),
    ]


def _max_pool_backward_cases() -> list[Case]:
    """max_pool2d_with_indices_backward: the indices input comes from max_pool2d_with_indices on the same input
    (computed eagerly, so the program holds the backward op alone); overlapping windows (a position that wins
    twice gets both gradients), padding, dilation, ceil_mode."""
    op = "aten::max_pool2d_with_indices_backward.grad_input"
    Geometry = tuple[list[int], list[int], list[int], list[int], bool]

    def fn(geo: Geometry) -> Callable[..., Any]:
        def run(grad: torch.Tensor, x: torch.Tensor, indices: torch.Tensor) -> torch.Tensor:
            return torch.ops.aten.max_pool2d_with_indices_backward.default(grad, x, *geo, indices)

        return run

    def with_indices(x: torch.Tensor, geo: Geometry, seed: int) -> tuple[torch.Tensor, ...]:
        pooled, indices = torch.ops.aten.max_pool2d_with_indices.default(x, *geo)
        return sample(tuple(pooled.shape), x.dtype, seed=seed + 1), x, indices

    Make = Callable[[torch.dtype], tuple[torch.Tensor, ...]]

    def inputs(shape: tuple[int, ...], geo: Geometry, seed: int = 0) -> Make:
        def make(dtype: torch.dtype) -> tuple[torch.Tensor, ...]:
            return with_indices(sample(shape, dtype, seed=seed), geo, seed)

        return make

    k2: Geometry = ([2, 2], [2, 2], [0, 0], [1, 1], False)
    overlap: Geometry = ([3, 3], [1, 1], [1, 1], [1, 1], False)
    dilated: Geometry = ([2, 3], [2, 1], [1, 1], [2, 1], True)
    ceil: Geometry = ([2, 2], [2, 2], [0, 0], [1, 1], True)

    def with_nan(dtype: torch.dtype) -> tuple[torch.Tensor, ...]:
        x = sample((1, 2, 4, 4), dtype, seed=4)
        x[0, 0, 1, 1] = NAN
        x[0, 1, 2, 3] = INF
        return with_indices(x, k2, 4)

    return [
        *cases(op, "k2", FLOAT_DTYPES, fn(k2), inputs((1, 2, 4, 4), k2)),
        *cases(op, "overlap_pad", FLOAT_DTYPES, fn(overlap), inputs((2, 1, 4, 5), overlap, seed=1)),
        *cases(op, "dilated_ceil", F32_F64, fn(dilated), inputs((1, 2, 5, 6), dilated, seed=2)),
        *cases(op, "3d_ceil", F32, fn(ceil), inputs((2, 5, 5), ceil, seed=3)),
        *cases(op, "nan_inf", F32, fn(k2), with_nan, ("nan",)),
    ]


CASES: list[Case] = [
    *_extreme_dims_cases("aten::amax.out", lambda x, d, k=False: torch.amax(x, d, k)),
    *_extreme_dims_cases("aten::amin.out", lambda x, d, k=False: torch.amin(x, d, k)),
    *_arg_cases("aten::argmax.out", lambda x, d=None, k=False: torch.argmax(x, d, k)),
    *_arg_cases("aten::argmin.out", lambda x, d=None, k=False: torch.argmin(x, d, k)),
    *_dim_cases("aten::max.dim_max", lambda x, d, k=False: tuple(torch.max(x, d, k))),
    *_dim_cases("aten::min.dim_min", lambda x, d, k=False: tuple(torch.min(x, d, k))),
    *_all_cases("aten::max.unary_out", lambda x: torch.max(x)),
    *_all_cases("aten::min.unary_out", lambda x: torch.min(x)),
    *_cumsum_cases("aten::cumsum.out"),
    *_group_norm_cases("aten::native_group_norm.out"),
    *_any_cases(),
    *_mean_prod_cases(),
    *_var_cases(),
    *_batch_norm_cases(),
    *_topk_cases(),
    *_adaptive_avg_pool_cases(),
    *_distance_cases(),
    *_max_pool_backward_cases(),
]
