"""Indexing: advanced indexing (index, index_put), gather/scatter along a dim, index_select,
masked_select/scatter, nonzero, select/slice_scatter, padding, upsampling, grid sampling and
pixel (un)shuffle — ops that move elements by computed positions."""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch.nn import functional as F

from tests.conformance.spec import ALL_DTYPES, FLOAT_DTYPES, Case, per_dtype, sample

A = torch.ops.aten
LONG = torch.int64
INT = torch.int32


def _idx(values: list, dtype: torch.dtype = LONG) -> torch.Tensor:
    return torch.tensor(values, dtype=dtype)


def _all(
    op: str,
    name: str,
    fn: Callable[..., torch.Tensor],
    make: Callable[[torch.dtype], tuple[torch.Tensor, ...]],
    dtypes: tuple[torch.dtype, ...] = ALL_DTYPES,
    tags: tuple[str, ...] = (),
    refuse: str = "",
    refused: tuple[torch.dtype, ...] = (),
) -> list[Case]:
    """One case per dtype; `refused` dtypes are expected to be refused by ExecuTorch with reason `refuse`."""
    return per_dtype(
        op,
        name,
        dtypes,
        lambda t: Case(op, "", fn, make(t), tags=tags, unsupported_by_executorch=refuse if t in refused else ""),
    )


def _one(
    op: str,
    name: str,
    fn: Callable[..., torch.Tensor],
    *inputs: torch.Tensor,
    tags: tuple[str, ...] = (),
    also: tuple[str, ...] = (),
) -> Case:
    """A single case; one tagged "error" has an invalid argument (an index out of range, a value the dtype cannot
    hold) that ExecuTorch's kernel refuses in one line, and so must ours, without touching memory out of bounds."""
    refuse = "invalid argument (refused by ExecuTorch's kernel too)" if "error" in tags else ""
    return Case(op, name, fn, tuple(inputs), tags=tags, also=also, unsupported_by_executorch=refuse)


# --- index.Tensor ---------------------------------------------------------------------------------
INDEX = "aten::index.Tensor_out"
CASES: list[Case] = []
CASES += _all(INDEX, "rows", lambda x, i: x[i], lambda t: (sample((4, 3), t), _idx([3, 0, -1, 2, 0])))
CASES += [
    _one(INDEX, "i32_index", lambda x, i: x[i], sample((4, 3), torch.float32), _idx([1, -4, 3], INT)),
    _one(INDEX, "middle_dim", lambda x, i: x[:, i], sample((2, 5, 3), torch.float32, seed=1), _idx([[4, 0], [-2, 1]])),
    _one(
        INDEX,
        "two_adjacent",
        lambda x, i, j: x[:, i, j],
        sample((2, 4, 3, 2), torch.float32, seed=2),
        _idx([[0], [3], [-1]]),
        _idx([2, 0]),
    ),
    _one(
        INDEX,
        "two_apart",
        lambda x, i, j: x[i, :, j],
        sample((3, 2, 4), torch.float32, seed=3),
        _idx([2, 0, 1]),
        _idx([[3], [-4]]),
        tags=("broadcast",),
    ),
    _one(INDEX, "last_dim", lambda x, i: x[..., i], sample((2, 3, 4), torch.int64, seed=4), _idx([3, 3, 0])),
    _one(
        INDEX,
        "0d_index",
        lambda x, i: torch.ops.aten.index.Tensor(x, [i]),
        sample((4, 3), torch.float32, seed=5),
        _idx(2),
        tags=("0-d",),
    ),
    _one(INDEX, "empty_index", lambda x, i: x[i], sample((4, 3), torch.float32, seed=6), _idx([]), tags=("empty",)),
    _one(INDEX, "empty_self", lambda x, i: x[:, i], torch.zeros((0, 3)), _idx([2, 0]), tags=("empty",)),
    _one(
        INDEX,
        "all_dims",
        lambda x, i, j: x[i, j],
        sample((3, 4), torch.float32, seed=7),
        _idx([0, 2, -1]),
        _idx([3, 0, 1]),
    ),
]
CASES += [
    _one(INDEX, "oob", lambda x, i: x[i], sample((4, 3), torch.float32), _idx([1, 4]), tags=("error",)),
]

# --- gather / scatter / scatter_add / index_select ------------------------------------------------
GATHER = "aten::gather.out"
GIDX = _idx([[0, 2, 1], [3, 3, 0]])  # picks along dim 0 of a 4x3 (or dim 1 of a 2x4)
CASES += _all(GATHER, "dim0", lambda x, i: torch.gather(x, 0, i), lambda t: (sample((4, 3), t), GIDX))
CASES += [
    _one(
        GATHER,
        "dim1_smaller",
        lambda x, i: torch.gather(x, 1, i),
        sample((3, 5), torch.float32, seed=1),
        _idx([[4, 0], [1, 1]]),
    ),
    _one(
        GATHER,
        "negdim_3d",
        lambda x, i: torch.gather(x, -1, i),
        sample((2, 3, 4), torch.int32, seed=2),
        _idx([[[3, 0, 1, 2, 2]], [[0, 0, 3, 1, 1]]]).expand(2, 1, 5).contiguous()[:, :, :4],
        tags=("negative-dim",),
    ),
    _one(GATHER, "0d", lambda x, i: torch.gather(x, 0, i), torch.tensor(3.5), _idx(0), tags=("0-d",)),
    _one(
        GATHER,
        "empty_index",
        lambda x, i: torch.gather(x, 1, i),
        sample((2, 3), torch.float32),
        torch.zeros((2, 0), dtype=LONG),
        tags=("empty",),
    ),
    _one(
        GATHER,
        "oob",
        lambda x, i: torch.gather(x, 0, i),
        sample((4, 3), torch.float32),
        _idx([[0, -1, 1]]),
        tags=("error",),
    ),
]

SCATTER = "aten::scatter.src_out"
SIDX = _idx([[0, 2, 1], [3, 1, 0]])  # distinct targets per column (scatter's result is then defined)
CASES += _all(
    SCATTER,
    "dim0",
    lambda x, i, s: torch.scatter(x, 0, i, s),
    lambda t: (sample((4, 3), t), SIDX, sample((2, 3), t, seed=9)),
)
CASES += [
    _one(
        SCATTER,
        "dim1_src_larger",
        lambda x, i, s: torch.scatter(x, 1, i, s),
        sample((2, 5), torch.float32),
        _idx([[4, 0], [2, 3]]),
        sample((3, 4), torch.float32, seed=1),
    ),
    _one(
        SCATTER,
        "negdim",
        lambda x, i, s: torch.scatter(x, -2, i, s),
        sample((3, 2), torch.int64),
        _idx([[2], [0]]),
        sample((2, 1), torch.int64, seed=3),
        tags=("negative-dim",),
    ),
    _one(
        SCATTER,
        "empty_index",
        lambda x, i, s: torch.scatter(x, 0, i, s),
        sample((2, 3), torch.float32),
        torch.zeros((0, 3), dtype=LONG),
        sample((2, 3), torch.float32, seed=4),
        tags=("empty",),
    ),
]

SCATTER_VALUE = "aten::scatter.value_out"
CASES += _all(SCATTER_VALUE, "dim0", lambda x, i: torch.scatter(x, 0, i, 1), lambda t: (sample((4, 3), t), SIDX))
CASES += [
    _one(
        SCATTER_VALUE,
        "float_value",
        lambda x, i: torch.scatter(x, 1, i, -2.5),
        sample((2, 4), torch.float32),
        _idx([[3, 0], [1, 1]]),
    ),
    _one(
        SCATTER_VALUE, "i8_edge", lambda x, i: torch.scatter(x, 0, i, -128), sample((3, 2), torch.int8), _idx([[2, 0]])
    ),
    _one(
        SCATTER_VALUE,
        "u8_overflow",
        lambda x, i: torch.scatter(x, 0, i, 300),
        sample((3, 2), torch.uint8),
        _idx([[2, 0]]),
        tags=("overflow", "error"),
    ),
]

SCATTER_ADD = "aten::scatter_add.out"
AIDX = _idx([[0, 2, 0], [0, 1, 0], [3, 2, 0]])  # repeated targets accumulate
CASES += _all(
    SCATTER_ADD,
    "dim0_repeats",
    lambda x, i, s: torch.scatter_add(x, 0, i, s),
    lambda t: (sample((4, 3), t), AIDX, sample((3, 3), t, seed=9)),
)
CASES += [
    _one(
        SCATTER_ADD,
        "dim1",
        lambda x, i, s: torch.scatter_add(x, 1, i, s),
        sample((2, 4), torch.float32),
        _idx([[3, 3, 0], [1, 2, 1]]),
        sample((2, 5), torch.float32, seed=1),
    ),
    _one(
        SCATTER_ADD,
        "i32_overflow",
        lambda x, i, s: torch.scatter_add(x, 0, i, s),
        torch.tensor([2**31 - 1, -(2**31)], dtype=INT),
        _idx([0, 1, 1]),
        torch.tensor([1, -1, 5], dtype=INT),
        tags=("overflow",),
    ),
    _one(
        SCATTER_ADD,
        "nan",
        lambda x, i, s: torch.scatter_add(x, 0, i, s),
        torch.tensor([1.0, float("inf"), 0.0]),
        _idx([1, 2, 2]),
        torch.tensor([float("-inf"), float("nan"), 1.0]),
        tags=("nan",),
    ),
]

INDEX_SELECT = "aten::index_select.out"
CASES += _all(
    INDEX_SELECT, "dim1", lambda x, i: torch.index_select(x, 1, i), lambda t: (sample((2, 4), t), _idx([3, 0, 0, 2]))
)
CASES += [
    _one(
        INDEX_SELECT,
        "i32_negdim",
        lambda x, i: torch.index_select(x, -3, i),
        sample((3, 2, 2), torch.float32),
        _idx([2, 1], INT),
        tags=("negative-dim",),
    ),
    _one(
        INDEX_SELECT,
        "0d_index",
        lambda x, i: torch.index_select(x, 0, i),
        sample((3, 2), torch.float32),
        _idx(1),
        tags=("0-d",),
    ),
    _one(
        INDEX_SELECT,
        "0d_self",
        lambda x, i: torch.index_select(x, 0, i),
        torch.tensor(7, dtype=LONG),
        _idx([0]),
        tags=("0-d",),
    ),
    _one(
        INDEX_SELECT,
        "empty",
        lambda x, i: torch.index_select(x, 0, i),
        sample((3, 2), torch.float32),
        _idx([]),
        tags=("empty",),
    ),
    _one(
        INDEX_SELECT,
        "oob",
        lambda x, i: torch.index_select(x, 0, i),
        sample((3, 2), torch.float32),
        _idx([0, -1]),
        tags=("error",),
    ),
]

PAD_DTYPES = (*FLOAT_DTYPES, torch.uint8, torch.int8, torch.int32, torch.int64)  # ATen pads no bool

# --- padding ----------------------------------------------------------------------------------------
CPAD = "aten::constant_pad_nd.out"
CASES += _all(CPAD, "last2", lambda x: F.pad(x, (1, 2, 0, 1), value=3), lambda t: (sample((2, 3, 2), t),))
CASES += [
    _one(CPAD, "f32_neg_value", lambda x: F.pad(x, (2, 0), value=-1.5), sample((2, 2), torch.float32)),
    _one(CPAD, "f32_all_dims", lambda x: F.pad(x, (0, 1, 1, 0, 1, 1)), sample((1, 2, 2), torch.float32, seed=1)),
    _one(
        CPAD,
        "f32_nan_value",
        lambda x: F.pad(x, (1, 1), value=float("nan")),
        sample((2,), torch.float32),
        tags=("nan",),
    ),
    _one(CPAD, "f32_empty", lambda x: F.pad(x, (1, 1)), torch.zeros((0, 2)), tags=("empty",)),
    _one(
        CPAD,
        "u8_overflow",
        lambda x: F.pad(x, (1, 1), value=256),
        sample((2,), torch.uint8),
        tags=("overflow", "error"),
    ),
]
for _kind in ("reflection", "replication"):
    for _n, _shape, _pad in ((1, (2, 4), (2, 3)), (2, (1, 3, 4), (1, 2, 3, 0)), (3, (1, 2, 3, 3), (2, 1, 0, 2, 1, 1))):
        _op = f"aten::{_kind}_pad{_n}d.out"
        _fn = getattr(A, f"{_kind}_pad{_n}d")
        _p = list(_pad) if _kind == "replication" else [min(v, 2) for v in _pad]
        _keep = (f"preserve=aten.{_kind}_pad{_n}d.default",)
        CASES += _all(
            _op,
            "pad",
            lambda x, f=_fn, p=_p: f(x, p),
            lambda t, s=_shape: (sample(s, t, seed=len(s)),),
            dtypes=PAD_DTYPES,
            tags=_keep,
        )
        CASES.append(
            _one(
                _op,
                "f32_batched",
                lambda x, f=_fn, p=_p: f(x, p),
                sample((2, *_shape), torch.float32, seed=5),
                tags=_keep,
            )
        )
    _f1, _f2 = getattr(A, f"{_kind}_pad1d"), getattr(A, f"{_kind}_pad2d")
    CASES.append(
        _one(
            f"aten::{_kind}_pad2d.out",
            "f32_negative",
            lambda x, f=_f2: f(x, [-1, 2, 1, -1]),
            sample((1, 3, 4), torch.float32, seed=6),
            tags=(f"preserve=aten.{_kind}_pad2d.default",),
        )
    )
    CASES.append(
        _one(
            f"aten::{_kind}_pad1d.out",
            "f32_nan",
            lambda x, f=_f1: f(x, [1, 1]),
            torch.tensor([[float("nan"), 1.0, float("inf")]]),
            tags=("nan", f"preserve=aten.{_kind}_pad1d.default"),
        )
    )

# --- masked_select / masked_scatter / nonzero (data-dependent output shapes) / index_put -------------
MSELECT = "aten::masked_select.out"


def _sized(fn: Callable[..., torch.Tensor], *inputs: torch.Tensor) -> Callable[..., torch.Tensor]:
    """fn with its data-dependent output length pinned to the one these inputs give (torch._check), so the
    program plans a static out; the kernel still computes the length and sets it through resize_output."""
    n = fn(*inputs).shape[0]

    def pinned(*args: torch.Tensor) -> torch.Tensor:
        out = fn(*args)
        torch._check(out.shape[0] == n)
        return out

    return pinned


def _select(name: str, *inputs: torch.Tensor, tags: tuple[str, ...] = ()) -> Case:
    return _one(MSELECT, name, _sized(torch.masked_select, *inputs), *inputs, tags=tags)


CASES += per_dtype(
    MSELECT, "same_shape", ALL_DTYPES, lambda t: _select("", sample((3, 4), t), sample((3, 4), torch.bool, seed=1))
)
# A mask that selects nothing, and a self broadcast up to the mask, cannot be pinned to a static
# length for torch.export (its guard fails); they wait for data-dependent (dynamic-bound) exports.
CASES += [
    _select("f32_broadcast", sample((2, 3), torch.float32), _idx([True, False, True], torch.bool), tags=("broadcast",)),
]

MSCATTER = "aten::masked_scatter.out"
CASES += _all(
    MSCATTER,
    "same_shape",
    lambda x, m, s: x.masked_scatter(m, s),
    lambda t: (sample((3, 4), t), sample((3, 4), torch.bool, seed=1), sample((12,), t, seed=2)),
)
CASES += [
    _one(
        MSCATTER,
        "f32_broadcast_mask",
        lambda x, m, s: x.masked_scatter(m, s),
        sample((2, 3), torch.float32),
        _idx([False, True, True], torch.bool),
        sample((2, 4), torch.float32, seed=3),
        tags=("broadcast",),
    ),
    _one(
        MSCATTER,
        "f32_none",
        lambda x, m, s: x.masked_scatter(m, s),
        sample((2, 3), torch.float32),
        torch.zeros((2, 3), dtype=torch.bool),
        sample((1,), torch.float32, seed=4),
    ),
]

# nonzero.out: no cases yet. ExecuTorch plans its out with dim order [1, 0] (ATen's meta gives nonzero a
# transposed layout), which this runtime's loader refuses; the kernel writes row-major [count, rank].

INDEX_PUT = "aten::index_put.out"
CASES += _all(
    INDEX_PUT,
    "rows",
    lambda x, i, v: torch.index_put(x, (i,), v),
    lambda t: (sample((4, 3), t), _idx([2, -4]), sample((2, 3), t, seed=1)),
)
CASES += _all(
    INDEX_PUT,
    "accumulate_repeats",
    lambda x, i, v: torch.index_put(x, (i,), v, True),
    lambda t: (sample((4, 3), t), _idx([1, 3, 1, -3]), sample((4, 3), t, seed=1)),
)
CASES += [
    _one(
        INDEX_PUT,
        "f32_two_indices",
        lambda x, i, j, v: torch.index_put(x, (i, j), v),
        sample((3, 4), torch.float32),
        _idx([[0], [2]]),
        _idx([3, 1, 0]),
        sample((3,), torch.float32, seed=2),
        tags=("broadcast",),
    ),
    _one(
        INDEX_PUT,
        "f32_middle_none",
        lambda x, i, v: A.index_put(x, [None, i], v),
        sample((2, 4, 2), torch.float32),
        _idx([3, 0], INT),
        sample((1, 2, 2), torch.float32, seed=3),
        tags=("broadcast",),
    ),
    _one(
        INDEX_PUT,
        "i32_overflow",
        lambda x, i, v: torch.index_put(x, (i,), v, True),
        torch.tensor([2**31 - 1, 5], dtype=INT),
        _idx([0, 0]),
        torch.tensor([1, 1], dtype=INT),
        tags=("overflow",),
    ),
    _one(
        INDEX_PUT,
        "f32_mask",
        lambda x, m, v: torch.index_put(x, (m,), v),
        sample((2, 3), torch.float32),
        _idx([[True, False, True], [False, False, True]], torch.bool),
        sample((3,), torch.float32, seed=4),
    ),
    _one(
        INDEX_PUT,
        "oob",
        lambda x, i, v: torch.index_put(x, (i,), v),
        sample((4, 3), torch.float32),
        _idx([4]),
        sample((1, 3), torch.float32),
        tags=("error",),
    ),
]

# --- select_scatter / slice_scatter -----------------------------------------------------------------
SEL_SCATTER = "aten::select_scatter.out"
_KEEP_SEL = ("preserve=aten.select_scatter.default",)
CASES += _all(
    SEL_SCATTER,
    "dim1",
    lambda x, s: torch.select_scatter(x, s, 1, 2),
    lambda t: (sample((2, 4, 3), t), sample((2, 3), t, seed=1)),
    tags=_KEEP_SEL,
)
CASES += [
    _one(
        SEL_SCATTER,
        "f32_neg",
        lambda x, s: torch.select_scatter(x, s, -1, -3),
        sample((2, 3), torch.float32),
        sample((2,), torch.float32, seed=2),
        tags=("negative-dim", *_KEEP_SEL),
    ),
    _one(
        SEL_SCATTER,
        "f32_1d",
        lambda x, s: torch.select_scatter(x, s, 0, 1),
        sample((3,), torch.float32),
        torch.tensor(9.0),
        tags=("0-d", *_KEEP_SEL),
    ),
]
SLICE_SCATTER = "aten::slice_scatter.out"
CASES += _all(
    SLICE_SCATTER,
    "step2",
    lambda x, s: torch.slice_scatter(x, s, 1, 1, 6, 2),
    lambda t: (sample((2, 6), t), sample((2, 3), t, seed=1)),
)
CASES += [
    _one(
        SLICE_SCATTER,
        "f32_negdim_bounds",
        lambda x, s: torch.slice_scatter(x, s, -2, -3, 100),
        sample((4, 2), torch.float32),
        sample((3, 2), torch.float32, seed=2),
        tags=("negative-dim",),
    ),
    _one(
        SLICE_SCATTER,
        "f32_whole",
        lambda x, s: torch.slice_scatter(x, s),
        sample((2, 2), torch.float32),
        sample((2, 2), torch.float32, seed=3),
    ),
    _one(
        SLICE_SCATTER,
        "f32_empty",
        lambda x, s: torch.slice_scatter(x, s, 0, 2, 2),
        sample((3, 2), torch.float32),
        torch.zeros((0, 2)),
        tags=("empty",),
    ),
]

# --- pixel_shuffle / pixel_unshuffle ----------------------------------------------------------------
SHUFFLE = "aten::pixel_shuffle.out"
UNSHUFFLE = "aten::pixel_unshuffle.out"
_KEEP_PS = ("preserve=aten.pixel_shuffle.default",)
_KEEP_PU = ("preserve=aten.pixel_unshuffle.default",)
CASES += _all(SHUFFLE, "r2", lambda x: F.pixel_shuffle(x, 2), lambda t: (sample((1, 8, 2, 3), t),), tags=_KEEP_PS)
CASES += [
    _one(SHUFFLE, "f32_3d_r3", lambda x: F.pixel_shuffle(x, 3), sample((9, 2, 1), torch.float32), tags=_KEEP_PS),
    _one(SHUFFLE, "f32_5d", lambda x: F.pixel_shuffle(x, 2), sample((2, 1, 4, 1, 2), torch.float32), tags=_KEEP_PS),
]
CASES += _all(UNSHUFFLE, "r2", lambda x: F.pixel_unshuffle(x, 2), lambda t: (sample((1, 2, 4, 6), t),), tags=_KEEP_PU)
CASES += [
    _one(UNSHUFFLE, "f32_3d_r3", lambda x: F.pixel_unshuffle(x, 3), sample((1, 3, 6), torch.float32), tags=_KEEP_PU),
]

# --- upsample_bilinear2d ----------------------------------------------------------------------------
BILINEAR = "aten::upsample_bilinear2d.vec_out"


def _bilinear(**kw: object) -> Callable[[torch.Tensor], torch.Tensor]:
    return lambda x: F.interpolate(x, mode="bilinear", **kw)


CASES += _all(BILINEAR, "size", _bilinear(size=(5, 7)), lambda t: (sample((1, 2, 3, 4), t),), dtypes=FLOAT_DTYPES)
CASES += [
    _one(
        BILINEAR, "f32_align_corners", _bilinear(size=(5, 7), align_corners=True), sample((2, 1, 3, 4), torch.float32)
    ),
    _one(BILINEAR, "f32_scale_1_5", _bilinear(scale_factor=1.5), sample((1, 2, 3, 4), torch.float32, seed=1)),
    _one(
        BILINEAR, "f32_scale_ac", _bilinear(scale_factor=2.0, align_corners=True), sample((1, 1, 2, 3), torch.float32)
    ),
    _one(BILINEAR, "f32_down", _bilinear(size=(2, 3)), sample((1, 2, 5, 6), torch.float32, seed=2)),
    _one(BILINEAR, "f32_same_h", _bilinear(size=(3, 6)), sample((1, 1, 3, 4), torch.float32, seed=3)),
    _one(BILINEAR, "f32_to_1", _bilinear(size=(1, 1), align_corners=True), sample((1, 1, 3, 4), torch.float32, seed=4)),
    _one(
        BILINEAR,
        "f32_nan",
        _bilinear(size=(4, 4)),
        torch.tensor([[[[1.0, float("nan")], [float("inf"), 0.0]]]]),
        tags=("nan",),
    ),
]

# --- _upsample_bilinear2d_aa ------------------------------------------------------------------------
BILINEAR_AA = "aten::_upsample_bilinear2d_aa.out"


def _bilinear_aa(**kw: object) -> Callable[[torch.Tensor], torch.Tensor]:
    return lambda x: F.interpolate(x, mode="bilinear", antialias=True, **kw)


CASES += _all(
    BILINEAR_AA,
    "down",
    _bilinear_aa(size=(2, 3)),
    lambda t: (sample((1, 2, 5, 7), t),),
    dtypes=(*FLOAT_DTYPES, torch.uint8, torch.int16, torch.int32, torch.int64),
)
CASES += [
    _one(BILINEAR_AA, "f32_up", _bilinear_aa(size=(5, 6)), sample((1, 2, 3, 4), torch.float32, seed=1)),
    _one(
        BILINEAR_AA,
        "f32_align_corners_down",
        _bilinear_aa(size=(3, 2), align_corners=True),
        sample((2, 1, 6, 5), torch.float32, seed=2),
    ),
    _one(
        BILINEAR_AA,
        "f32_align_corners_up",
        _bilinear_aa(size=(4, 7), align_corners=True),
        sample((1, 1, 3, 3), torch.float32, seed=3),
    ),
    _one(BILINEAR_AA, "f32_mixed", _bilinear_aa(size=(2, 8)), sample((1, 1, 7, 3), torch.float32, seed=4)),
    _one(BILINEAR_AA, "f32_scale_half", _bilinear_aa(scale_factor=0.5), sample((1, 2, 6, 4), torch.float32, seed=5)),
    _one(BILINEAR_AA, "f64_to_1", _bilinear_aa(size=(1, 1)), sample((1, 1, 4, 5), torch.float64, seed=6)),
    _one(
        BILINEAR_AA,
        "f32_nan",
        _bilinear_aa(size=(1, 2)),
        torch.tensor([[[[1.0, float("nan"), 2.0, 3.0], [float("inf"), 0.0, 1.0, 2.0]]]]),
        tags=("nan",),
    ),
]

# --- grid_sampler_2d --------------------------------------------------------------------------------
GRID_SAMPLER = "aten::grid_sampler_2d.out"


def _grid_sample(mode: str, padding: str, align_corners: bool) -> Callable[[torch.Tensor, torch.Tensor], torch.Tensor]:
    return lambda x, grid: F.grid_sample(x, grid, mode=mode, padding_mode=padding, align_corners=align_corners)


def _grid_inputs(t: torch.dtype, seed: int = 0, reach: float = 1.3) -> tuple[torch.Tensor, torch.Tensor]:
    """A 2x2x3x4 image and a 2x3x2 grid of coordinates in [-reach, reach) (beyond 1: outside the image)."""
    return sample((2, 2, 3, 4), t, seed=seed), sample((2, 3, 2, 2), t, seed=seed + 100, low=-reach, high=reach)


CASES += _all(
    GRID_SAMPLER,
    "bilinear_zeros",
    _grid_sample("bilinear", "zeros", False),
    lambda t: _grid_inputs(t),
    dtypes=FLOAT_DTYPES,
)
CASES += [
    _one(
        GRID_SAMPLER,
        f"f32_{mode}_{padding}{'_ac' if ac else ''}",
        _grid_sample(mode, padding, ac),
        *_grid_inputs(torch.float32, seed=i, reach=2.7 if padding == "reflection" else 1.3),
    )
    for i, (mode, padding, ac) in enumerate(
        (m, p, ac)
        for m in ("bilinear", "nearest", "bicubic")
        for p in ("zeros", "border", "reflection")
        for ac in (False, True)
    )
    if (mode, padding, ac) != ("bilinear", "zeros", False)
]
CASES += [
    _one(
        GRID_SAMPLER,
        "f64_bicubic_reflection",
        _grid_sample("bicubic", "reflection", False),
        *_grid_inputs(torch.float64, 7),
    ),
    _one(
        GRID_SAMPLER, "f64_nearest_border_ac", _grid_sample("nearest", "border", True), *_grid_inputs(torch.float64, 8)
    ),
    _one(
        GRID_SAMPLER,
        "f32_single_pixel",
        _grid_sample("bilinear", "reflection", True),
        sample((1, 2, 1, 1), torch.float32),
        sample((1, 2, 2, 2), torch.float32, seed=9, low=-2, high=2),
    ),
]
for _mode in ("nearest", "bicubic"):
    CASES += _all(
        GRID_SAMPLER,
        f"{_mode}_reflection",
        _grid_sample(_mode, "reflection", False),
        lambda t: _grid_inputs(t, seed=11, reach=2.7),
        dtypes=(torch.float16, torch.bfloat16),
    )
    CASES += _all(
        GRID_SAMPLER,
        f"{_mode}_border_ac",
        _grid_sample(_mode, "border", True),
        lambda t: _grid_inputs(t, seed=12),
        dtypes=(torch.float16, torch.bfloat16),
    )
