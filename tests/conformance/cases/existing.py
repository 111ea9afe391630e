"""Cases for the 48 ops the kernel library held before issue 10.

Every op gets a basic case in every dtype (ExecuTorch's runtime decides which it
takes: a refused dtype is recorded, see `unsupported_by_executorch`), plus the
edges where its semantics live: broadcasting, 0-d and empty tensors, negative
dims, keepdim, NaN/Inf, integer overflow (wrapping), mixed dtypes.

Left out: non-contiguous dim orders (our runtime takes contiguous tensors only,
see OPS.md's notes), and dtypes torch.export itself refuses for an op (e.g.
`sub` of two bools): those cannot become a program.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import Any

import torch
import torch.nn.functional as F

from tests.conformance.spec import ALL_DTYPES, FLOAT_DTYPES, INT_DTYPES, SHORT, Case, per_dtype, sample

TO_COPY = "dim_order_ops::_to_dim_order_copy.out"  # what to_edge inserts to cast a mixed-dtype add/sub/mul/div
NO_BOOL = tuple(d for d in ALL_DTYPES if d != torch.bool)
REAL = (*FLOAT_DTYPES, *INT_DTYPES)
SIGNED = (torch.int8, torch.int16, torch.int32, torch.int64)


def case(fn: Callable[..., Any], *inputs: torch.Tensor, also: Iterable[str] = (), tags: Iterable[str] = ()) -> Case:
    """A case whose op and name per_dtype fills in."""
    return Case("", "", fn, tuple(inputs), also=tuple(also), tags=tuple(tags))


def special(dtype: torch.dtype) -> torch.Tensor:
    """NaN, +-Inf, +-0 and ordinary values (floats only)."""
    values = [float("nan"), float("inf"), float("-inf"), -0.0, 0.0, 1.5, -2.5, 0.25]
    return torch.tensor(values, dtype=dtype)


def extremes(dtype: torch.dtype) -> torch.Tensor:
    """The ends of an integer range and their neighbours: arithmetic on them wraps."""
    info = torch.iinfo(dtype)
    values = [info.min, info.max, info.min + 1, info.max - 1, 0, 1, 2 if dtype == torch.uint8 else -1, info.max // 2]
    return torch.tensor(values, dtype=dtype)


def edge_values(dtype: torch.dtype) -> torch.Tensor:
    """special() for floats, extremes() for integers, both truth values for bool."""
    if dtype.is_floating_point:
        return special(dtype)
    if dtype == torch.bool:
        return torch.tensor([True, False, True, True, False, False, True, False])
    return extremes(dtype)


def s(shape: tuple[int, ...], dtype: torch.dtype, seed: int = 0, **kw: float) -> torch.Tensor:
    return sample(shape, dtype, seed=seed, **kw)


def one(dtype: torch.dtype) -> Any:
    """A scalar of dtype's kind: True, 3 or 0.5."""
    return True if dtype == torch.bool else 3 if not dtype.is_floating_point else 0.5


CASES: list[Case] = []


def add(op: str, name: str, dtypes: Iterable[torch.dtype], make: Callable[[torch.dtype], Case | None]) -> None:
    CASES.extend(per_dtype(op, name, dtypes, make))


# --- elementwise binary: add, sub, mul, div ---

for op, fn in (("aten::add.out", torch.add), ("aten::sub.out", torch.sub), ("aten::mul.out", torch.mul)):
    dts = NO_BOOL if op == "aten::sub.out" else ALL_DTYPES  # torch refuses `-` on bools
    add(op, "same_shape", dts, lambda d, fn=fn: case(fn, s((2, 3), d), s((2, 3), d, 1)))
    add(op, "broadcast", dts, lambda d, fn=fn: case(fn, s((2, 1, 3), d), s((4, 1), d, 1), tags=["broadcast"]))
    add(op, "0d", dts, lambda d, fn=fn: case(fn, s((2, 3), d), s((), d, 1), tags=["0-d", "broadcast"]))
    add(op, "0d_0d", dts, lambda d, fn=fn: case(fn, s((), d), s((), d, 1), tags=["0-d"]))
    add(op, "empty", dts, lambda d, fn=fn: case(fn, s((0, 3), d), s((3,), d, 1), tags=["empty", "broadcast"]))
    add(op, "edges", dts, lambda d, fn=fn: case(fn, edge_values(d), edge_values(d).flip(0), tags=["nan", "overflow"]))
    if op != "aten::mul.out":
        add(
            op,
            "alpha",
            NO_BOOL,
            lambda d, fn=fn: case(lambda x, y: fn(x, y, alpha=one(d)), s((2, 3), d), s((3,), d, 1)),
        )
    add(
        op,
        "mixed_i32_f32",
        [torch.float32],
        lambda d, fn=fn: case(fn, s((2, 3), torch.int32), s((2, 3), d, 1), also=[TO_COPY], tags=["promotion"]),
    )


def int_div_cast(d: torch.dtype) -> list[str]:
    """to_edge casts integer operands of a true division to float first (RemoveMixedTypeOperators)."""
    return [] if d.is_floating_point else [TO_COPY]


add(
    "aten::div.out",
    "same_shape",
    ALL_DTYPES,
    lambda d: case(torch.div, s((2, 3), d), s((2, 3), d, 1), also=int_div_cast(d)),
)
add(
    "aten::div.out",
    "broadcast",
    ALL_DTYPES,
    lambda d: case(torch.div, s((2, 1, 3), d), s((4, 1), d, 1), also=int_div_cast(d), tags=["broadcast"]),
)
add(
    "aten::div.out",
    "0d",
    ALL_DTYPES,
    lambda d: case(torch.div, s((2, 3), d), s((), d, 1), also=int_div_cast(d), tags=["0-d"]),
)
add("aten::div.out", "empty", FLOAT_DTYPES, lambda d: case(torch.div, s((0, 3), d), s((3,), d, 1), tags=["empty"]))
add(
    "aten::div.out",
    "by_zero",
    ALL_DTYPES,
    lambda d: case(
        torch.div, edge_values(d), torch.zeros(8, dtype=d), also=int_div_cast(d), tags=["nan", "div-by-zero"]
    ),
)
add("aten::div.out", "edges", FLOAT_DTYPES, lambda d: case(torch.div, special(d), special(d).flip(0), tags=["nan"]))
add(
    "aten::div.out",
    "mixed_i64_f32",
    [torch.float32],
    lambda d: case(torch.div, s((2, 3), torch.int64), s((2, 3), d, 1), also=[TO_COPY], tags=["promotion"]),
)

# --- scalar-operand variants ---

add("aten::div.Scalar_out", "by_2", ALL_DTYPES, lambda d: case(lambda x: torch.ops.aten.div.Scalar(x, 2), s((2, 3), d)))
add(
    "aten::div.Scalar_out",
    "by_half",
    FLOAT_DTYPES,
    lambda d: case(lambda x: torch.ops.aten.div.Scalar(x, 0.5), s((5,), d)),
)
add(
    "aten::div.Scalar_out",
    "by_zero",
    ALL_DTYPES,
    lambda d: case(lambda x: torch.ops.aten.div.Scalar(x, 0), edge_values(d), tags=["nan", "div-by-zero"]),
)
add(
    "aten::div.Scalar_out",
    "0d",
    ALL_DTYPES,
    lambda d: case(lambda x: torch.ops.aten.div.Scalar(x, 3), s((), d), tags=["0-d"]),
)
add("aten::mul.Scalar_out", "by_3", ALL_DTYPES, lambda d: case(lambda x: torch.ops.aten.mul.Scalar(x, 3), s((2, 3), d)))
add(
    "aten::mul.Scalar_out",
    "by_half",
    FLOAT_DTYPES,
    lambda d: case(lambda x: torch.ops.aten.mul.Scalar(x, 0.5), special(d), tags=["nan"]),
)
add(
    "aten::mul.Scalar_out",
    "overflow",
    INT_DTYPES,
    lambda d: case(lambda x: torch.ops.aten.mul.Scalar(x, 100), extremes(d), tags=["overflow"]),
)
add(
    "aten::mul.Scalar_out",
    "empty",
    ALL_DTYPES,
    lambda d: case(lambda x: torch.ops.aten.mul.Scalar(x, 2), s((0,), d), tags=["empty"]),
)
add("aten::eq.Scalar_out", "int", ALL_DTYPES, lambda d: case(lambda x: x == 1, s((2, 4), d, low=-2, high=2)))
add("aten::eq.Scalar_out", "half", FLOAT_DTYPES, lambda d: case(lambda x: x == 0.25, special(d), tags=["nan"]))
add("aten::eq.Scalar_out", "true", [torch.bool], lambda d: case(lambda x: x == True, s((5,), d)))  # noqa: E712
add("aten::eq.Scalar_out", "0d", ALL_DTYPES, lambda d: case(lambda x: x == 0, s((), d, low=-1, high=1), tags=["0-d"]))
add("aten::eq.Scalar_out", "empty", ALL_DTYPES, lambda d: case(lambda x: x == 0, s((2, 0), d), tags=["empty"]))

# --- matrix products ---

add("aten::mm.out", "2x3x4", ALL_DTYPES, lambda d: case(torch.mm, s((2, 3), d), s((3, 4), d, 1)))
add("aten::mm.out", "k0", ALL_DTYPES, lambda d: case(torch.mm, s((2, 0), d), s((0, 3), d, 1), tags=["empty"]))
add(
    "aten::mm.out",
    "overflow",
    INT_DTYPES,
    lambda d: case(torch.mm, extremes(d).view(2, 4), extremes(d).view(4, 2), tags=["overflow"]),
)
add("aten::mm.out", "nan", FLOAT_DTYPES, lambda d: case(torch.mm, special(d).view(2, 4), s((4, 2), d, 1), tags=["nan"]))
add("aten::bmm.out", "2x2x3x2", ALL_DTYPES, lambda d: case(torch.bmm, s((2, 2, 3), d), s((2, 3, 2), d, 1)))
add(
    "aten::bmm.out",
    "batch0",
    ALL_DTYPES,
    lambda d: case(torch.bmm, s((0, 2, 3), d), s((0, 3, 2), d, 1), tags=["empty"]),
)
add(
    "aten::bmm.out",
    "overflow",
    INT_DTYPES,
    lambda d: case(torch.bmm, extremes(d).view(1, 2, 4), extremes(d).view(1, 4, 2), tags=["overflow"]),
)
add(
    "aten::addmm.out",
    "bias_row",
    ALL_DTYPES,
    lambda d: case(torch.addmm, s((4,), d, 2), s((2, 3), d), s((3, 4), d, 1), tags=["broadcast"]),
)
add(
    "aten::addmm.out",
    "beta_alpha",
    ALL_DTYPES,
    lambda d: case(
        lambda b, x, y: torch.addmm(b, x, y, beta=one(d), alpha=one(d)), s((2, 4), d, 2), s((2, 3), d), s((3, 4), d, 1)
    ),
)
add(
    "aten::addmm.out",
    "k0",
    FLOAT_DTYPES,
    lambda d: case(torch.addmm, s((1, 3), d, 2), s((2, 0), d), s((0, 3), d, 1), tags=["empty", "broadcast"]),
)

# --- reductions ---

add("aten::sum.IntList_out", "dim1", ALL_DTYPES, lambda d: case(lambda x: torch.sum(x, 1), s((2, 3, 2), d)))
add(
    "aten::sum.IntList_out",
    "keepdim",
    ALL_DTYPES,
    lambda d: case(lambda x: torch.sum(x, 1, keepdim=True), s((2, 3, 2), d), tags=["keepdim"]),
)
add(
    "aten::sum.IntList_out",
    "neg_dims",
    ALL_DTYPES,
    lambda d: case(lambda x: torch.sum(x, (-1, -3)), s((2, 3, 2), d), tags=["negative-dim"]),
)
add("aten::sum.IntList_out", "all", ALL_DTYPES, lambda d: case(torch.sum, s((3, 4), d)))
add("aten::sum.IntList_out", "0d", ALL_DTYPES, lambda d: case(torch.sum, s((), d), tags=["0-d"]))
add(
    "aten::sum.IntList_out",
    "empty",
    ALL_DTYPES,
    lambda d: case(lambda x: torch.sum(x, 0), s((0, 3), d), tags=["empty"]),
)
add(
    "aten::sum.IntList_out",
    "nan",
    FLOAT_DTYPES,
    lambda d: case(lambda x: torch.sum(x.view(2, 4), 1), special(d), tags=["nan"]),
)
add(
    "aten::sum.IntList_out",
    "overflow",
    INT_DTYPES,
    lambda d: case(lambda x: torch.sum(x, 0, dtype=d), extremes(d), tags=["overflow"]),
)
add(
    "aten::sum.IntList_out",
    "to_f64",
    ALL_DTYPES,
    lambda d: case(lambda x: torch.sum(x, 1, dtype=torch.float64), s((2, 3), d)),
)
add("aten::mean.out", "dim1", FLOAT_DTYPES, lambda d: case(lambda x: torch.mean(x, 1), s((2, 3, 2), d)))
add(
    "aten::mean.out",
    "keepdim",
    FLOAT_DTYPES,
    lambda d: case(lambda x: torch.mean(x, (0, 2), keepdim=True), s((2, 3, 2), d), tags=["keepdim"]),
)
add(
    "aten::mean.out",
    "neg_dims",
    FLOAT_DTYPES,
    lambda d: case(lambda x: torch.mean(x, (-1, -2)), s((2, 3, 2), d), tags=["negative-dim"]),
)
add(
    "aten::mean.out",
    "empty",
    FLOAT_DTYPES,
    lambda d: case(lambda x: torch.mean(x, 0), s((0, 3), d), tags=["empty", "nan"]),
)
add(
    "aten::mean.out",
    "nan",
    FLOAT_DTYPES,
    lambda d: case(lambda x: torch.mean(x.view(4, 2), 1), special(d), tags=["nan"]),
)
add(
    "aten::mean.out",
    "to_f32",
    ALL_DTYPES,
    lambda d: case(lambda x: torch.mean(x, 1, dtype=torch.float32), s((2, 3), d)),
)
add(
    "aten::any.out",
    "dim1",
    ALL_DTYPES,
    lambda d: case(lambda x: torch.ops.aten.any.dim(x, 1), s((3, 4), d, low=-1, high=1)),
)
add(
    "aten::any.out",
    "keepdim",
    ALL_DTYPES,
    lambda d: case(
        lambda x: torch.ops.aten.any.dim(x, -1, True), s((3, 2), d, low=-1, high=1), tags=["keepdim", "negative-dim"]
    ),
)
add(
    "aten::any.out",
    "empty",
    ALL_DTYPES,
    lambda d: case(lambda x: torch.ops.aten.any.dim(x, 1), s((2, 0), d), tags=["empty"]),
)
add(
    "aten::any.out",
    "nan",
    FLOAT_DTYPES,
    lambda d: case(lambda x: torch.ops.aten.any.dim(x.view(4, 2), 1), special(d), tags=["nan"]),
)

# --- unary elementwise ---


def leaky(d: torch.dtype) -> Callable[[torch.Tensor], torch.Tensor]:
    """leaky_relu with a slope of the tensor's kind (torch refuses a float slope for an integer tensor)."""
    return F.leaky_relu if d.is_floating_point else lambda x: torch.ops.aten.leaky_relu(x, 1)


# dtypes torch.export refuses are left out: elu of an integer tensor (its float
# params), leaky_relu of bools.
for op, fn, dts in (
    ("aten::relu.out", lambda d: torch.relu, ALL_DTYPES),
    ("aten::sigmoid.out", lambda d: torch.sigmoid, ALL_DTYPES),
    ("aten::tanh.out", lambda d: torch.tanh, ALL_DTYPES),
    ("aten::log.out", lambda d: torch.log, ALL_DTYPES),
    ("aten::logical_not.out", lambda d: torch.logical_not, ALL_DTYPES),
    ("aten::gelu.out", lambda d: F.gelu, ALL_DTYPES),
    ("aten::elu.out", lambda d: F.elu, FLOAT_DTYPES),
    ("aten::leaky_relu.out", leaky, NO_BOOL),
):
    add(op, "basic", dts, lambda d, fn=fn: case(fn(d), s((2, 3), d)))
    add(op, "edges", dts, lambda d, fn=fn: case(fn(d), edge_values(d), tags=["nan", "overflow"]))
    add(op, "0d", dts, lambda d, fn=fn: case(fn(d), s((), d), tags=["0-d"]))
    add(op, "empty", dts, lambda d, fn=fn: case(fn(d), s((0, 2), d), tags=["empty"]))
add(
    "aten::gelu.out",
    "tanh",
    FLOAT_DTYPES,
    lambda d: case(lambda x: F.gelu(x, approximate="tanh"), special(d), tags=["nan"]),
)
add(
    "aten::elu.out",
    "params",
    FLOAT_DTYPES,
    lambda d: case(lambda x: torch.ops.aten.elu(x, 1.5, 2.0, 0.5), special(d), tags=["nan"]),
)
add(
    "aten::leaky_relu.out",
    "slope",
    FLOAT_DTYPES,
    lambda d: case(lambda x: F.leaky_relu(x, 0.3), special(d), tags=["nan"]),
)


def hardtanh(d: torch.dtype) -> Callable[[torch.Tensor], torch.Tensor]:
    """torch refuses negative limits for an unsigned tensor (and any hardtanh of bools)."""
    return (lambda x: F.hardtanh(x, 0, 2)) if d == torch.uint8 else (lambda x: F.hardtanh(x, -1.0, 2.0))


add("aten::hardtanh.out", "basic", NO_BOOL, lambda d: case(hardtanh(d), s((2, 3), d)))
add("aten::hardtanh.out", "relu6", FLOAT_DTYPES, lambda d: case(F.relu6, special(d) * 4, tags=["nan"]))
add(
    "aten::hardtanh.out",
    "int_bounds",
    INT_DTYPES,
    lambda d: case(lambda x: F.hardtanh(x, 0, 100), extremes(d), tags=["overflow"]),
)
add("aten::hardtanh.out", "0d", NO_BOOL, lambda d: case(hardtanh(d), s((), d), tags=["0-d"]))
add("aten::hardtanh.out", "empty", NO_BOOL, lambda d: case(hardtanh(d), s((0,), d), tags=["empty"]))


def low(d: torch.dtype) -> int:
    """-1, or 0 for uint8: ExecuTorch refuses a clamp bound its dtype cannot hold (a case of its own)."""
    return 0 if d == torch.uint8 else -1


add("aten::clamp.out", "min_max", ALL_DTYPES, lambda d: case(lambda x: torch.clamp(x, low(d), 2), s((2, 4), d)))
add(
    "aten::clamp.out",
    "negative_min",
    [torch.uint8],
    lambda d: replace(
        case(lambda x: torch.clamp(x, -1, 2), s((2, 4), d)),
        unsupported_by_executorch="ExecuTorch's portable clamp refuses a bound outside the tensor's dtype",
    ),
)
add("aten::clamp.out", "min_only", ALL_DTYPES, lambda d: case(lambda x: torch.clamp(x, min=0), s((2, 4), d)))
add("aten::clamp.out", "max_only", ALL_DTYPES, lambda d: case(lambda x: torch.clamp(x, max=1), s((2, 4), d)))
add("aten::clamp.out", "min_above_max", REAL, lambda d: case(lambda x: torch.clamp(x, 2, 1), s((5,), d)))
add(
    "aten::clamp.out",
    "float_bounds",
    FLOAT_DTYPES,
    lambda d: case(lambda x: torch.clamp(x, -0.5, 1.25), special(d), tags=["nan"]),
)
add(
    "aten::clamp.out",
    "int_bounds",
    INT_DTYPES,
    lambda d: case(lambda x: torch.clamp(x, 0, 100), extremes(d), tags=["overflow"]),
)
add("aten::clamp.out", "0d", ALL_DTYPES, lambda d: case(lambda x: torch.clamp(x, low(d), 1), s((), d), tags=["0-d"]))
add(
    "aten::clamp.out",
    "empty",
    ALL_DTYPES,
    lambda d: case(lambda x: torch.clamp(x, low(d), 1), s((0, 3), d), tags=["empty"]),
)

# --- softmax family ---

for op, fn in (("aten::_softmax.out", torch.softmax), ("aten::_log_softmax.out", torch.log_softmax)):
    # torch refuses log_softmax of bools (it subtracts)
    dts = NO_BOOL if op == "aten::_log_softmax.out" else ALL_DTYPES
    add(op, "last_dim", dts, lambda d, fn=fn: case(lambda x: fn(x, -1), s((2, 5), d), tags=["negative-dim"]))
    add(op, "dim0", FLOAT_DTYPES, lambda d, fn=fn: case(lambda x: fn(x, 0), s((3, 2, 2), d)))
    add(op, "middle_dim", FLOAT_DTYPES, lambda d, fn=fn: case(lambda x: fn(x, 1), s((2, 3, 2), d)))
    add(op, "edges", FLOAT_DTYPES, lambda d, fn=fn: case(lambda x: fn(x.view(2, 4), 1), special(d), tags=["nan"]))
    add(
        op,
        "neg_inf_row",
        FLOAT_DTYPES,
        lambda d, fn=fn: case(
            lambda x: fn(x, 1), torch.tensor([[float("-inf"), 0.0, 1.0], [float("-inf")] * 3], dtype=d), tags=["nan"]
        ),
    )
    add(op, "0d", FLOAT_DTYPES, lambda d, fn=fn: case(lambda x: fn(x, 0), s((), d), tags=["0-d"]))
    add(op, "empty", FLOAT_DTYPES, lambda d, fn=fn: case(lambda x: fn(x, 1), s((0, 3), d), tags=["empty"]))

# --- normalization ---

add(
    "aten::native_layer_norm.out",
    "affine",
    FLOAT_DTYPES,  # torch cannot export an integer layer_norm (its mean)
    lambda d: case(lambda x, w, b: F.layer_norm(x, (4,), w, b), s((2, 3, 4), d), s((4,), d, 1), s((4,), d, 2)),
)
add(
    "aten::native_layer_norm.out",
    "no_affine_2d",
    FLOAT_DTYPES,
    lambda d: case(lambda x: F.layer_norm(x, (3, 4), eps=1e-3), s((2, 3, 4), d)),
)
add(
    "aten::native_layer_norm.out",
    "all_outputs",
    FLOAT_DTYPES,
    lambda d: case(
        lambda x, w, b: torch.ops.aten.native_layer_norm(x, [3], w, b, 1e-5), s((4, 3), d), s((3,), d, 1), s((3,), d, 2)
    ),
)
add(
    "aten::native_layer_norm.out",
    "constant_row",
    FLOAT_DTYPES,
    lambda d: case(lambda x: F.layer_norm(x, (3,)), torch.ones(2, 3, dtype=d)),
)
add(
    "aten::native_layer_norm.out",
    "empty",
    FLOAT_DTYPES,
    lambda d: case(lambda x: F.layer_norm(x, (3,)), s((0, 3), d), tags=["empty"]),
)
BN = "aten::_native_batch_norm_legit_no_training.out"
add(
    BN,
    "affine",
    NO_BOOL,  # torch refuses bools (it subtracts)
    lambda d: case(
        lambda x, m, v, w, b: F.batch_norm(x, m, v, w, b, eps=1e-3),
        s((2, 3, 2), d), s((3,), d, 1), s((3,), d, 2, low=0.5, high=2), s((3,), d, 3), s((3,), d, 4),
    ),
)  # fmt: skip
add(
    BN,
    "no_affine_4d",
    FLOAT_DTYPES,
    lambda d: case(
        lambda x, m, v: F.batch_norm(x, m, v), s((1, 2, 2, 2), d), s((2,), d, 1), s((2,), d, 2, low=0.5, high=2)
    ),
)
add(
    BN,
    "all_outputs",
    FLOAT_DTYPES,
    lambda d: case(
        lambda x, m, v, w, b: torch.ops.aten._native_batch_norm_legit_no_training(x, w, b, m, v, 0.1, 1e-5),
        s((2, 3), d), s((3,), d, 1), s((3,), d, 2, low=0.5, high=2), s((3,), d, 3), s((3,), d, 4),
    ),
)  # fmt: skip

# --- pooling, convolution, upsampling ---

MP = "aten::max_pool2d_with_indices.out"
add(MP, "k2", ALL_DTYPES, lambda d: case(lambda x: F.max_pool2d(x, 2, return_indices=True), s((1, 2, 4, 4), d)))
add(MP, "k3_s2_p1", ALL_DTYPES, lambda d: case(lambda x: F.max_pool2d(x, 3, 2, 1), s((1, 1, 5, 5), d)))
add(
    MP,
    "ceil_dilation",
    FLOAT_DTYPES,
    lambda d: case(lambda x: F.max_pool2d(x, 2, 2, 0, 2, ceil_mode=True, return_indices=True), s((2, 1, 5, 6), d)),
)
add(MP, "3d_input", FLOAT_DTYPES, lambda d: case(lambda x: F.max_pool2d(x, 2), s((2, 4, 4), d)))
add(
    MP,
    "nan",
    FLOAT_DTYPES,
    lambda d: case(lambda x: F.max_pool2d(x.view(1, 2, 4), (1, 2), return_indices=True), special(d), tags=["nan"]),
)
add(
    MP,
    "int_extremes",
    INT_DTYPES,
    lambda d: case(lambda x: F.max_pool2d(x.view(1, 2, 4), (2, 2), 1), extremes(d), tags=["overflow"]),
)
AP = "aten::avg_pool2d.out"
AP_DTYPES = tuple(d for d in ALL_DTYPES if d != torch.uint8)  # torch has no uint8 avg_pool2d
add(AP, "k2", AP_DTYPES, lambda d: case(lambda x: F.avg_pool2d(x, 2), s((1, 2, 4, 4), d)))
add(
    AP,
    "pad_exclude",
    FLOAT_DTYPES,
    lambda d: case(lambda x: F.avg_pool2d(x, 3, 2, 1, count_include_pad=False), s((1, 1, 5, 5), d)),
)
add(
    AP,
    "pad_include_ceil",
    FLOAT_DTYPES,
    lambda d: case(lambda x: F.avg_pool2d(x, 2, 2, 1, ceil_mode=True), s((1, 1, 5, 4), d)),
)
add(AP, "divisor", FLOAT_DTYPES, lambda d: case(lambda x: F.avg_pool2d(x, (2, 3), divisor_override=5), s((2, 6, 6), d)))
add(AP, "i64_rounding", [torch.int64], lambda d: case(lambda x: F.avg_pool2d(x, 2), s((1, 1, 4, 4), d, low=-9, high=9)))
CONV = "aten::convolution.out"
add(CONV, "conv1d_bias", ALL_DTYPES, lambda d: case(F.conv1d, s((1, 2, 5), d), s((3, 2, 2), d, 1), s((3,), d, 2)))
add(
    CONV,
    "conv2d_stride_pad_groups",
    FLOAT_DTYPES,
    lambda d: case(lambda x, w: F.conv2d(x, w, None, 2, 1, 1, 2), s((1, 4, 5, 5), d), s((2, 2, 3, 3), d, 1)),
)
add(
    CONV,
    "conv2d_dilation",
    FLOAT_DTYPES,
    lambda d: case(
        lambda x, w, b: F.conv2d(x, w, b, 1, 2, 2), s((2, 1, 4, 4), d), s((2, 1, 2, 2), d, 1), s((2,), d, 2)
    ),
)
add(
    CONV,
    "depthwise",
    FLOAT_DTYPES,
    lambda d: case(lambda x, w: F.conv2d(x, w, groups=3), s((1, 3, 4, 4), d), s((3, 1, 3, 3), d, 1)),
)
add(
    CONV,
    "transposed",
    FLOAT_DTYPES,
    lambda d: case(
        lambda x, w, b: F.conv_transpose2d(x, w, b, 2, 1, 1), s((1, 2, 3, 3), d), s((2, 3, 3, 3), d, 1), s((3,), d, 2)
    ),
)
add(
    CONV,
    "transposed_groups_dilation_output_padding",
    FLOAT_DTYPES,
    lambda d: case(
        lambda x, w: F.conv_transpose2d(x, w, None, 2, 1, output_padding=1, groups=2, dilation=2),
        s((1, 4, 3, 3), d),
        s((4, 1, 2, 2), d, 1),
    ),
)
add(
    CONV,
    "transposed_1d",
    FLOAT_DTYPES,
    lambda d: case(lambda x, w, b: F.conv_transpose1d(x, w, b, 3), s((2, 2, 4), d), s((2, 1, 3), d, 1), s((1,), d, 2)),
)
add(CONV, "nan", FLOAT_DTYPES, lambda d: case(F.conv1d, special(d).view(1, 1, 8), s((1, 1, 3), d, 1), tags=["nan"]))
UP = "aten::upsample_nearest2d.vec_out"
add(
    UP, "x2", ALL_DTYPES, lambda d: case(lambda x: F.interpolate(x, scale_factor=2, mode="nearest"), s((1, 2, 2, 3), d))
)
add(UP, "size", ALL_DTYPES, lambda d: case(lambda x: F.interpolate(x, size=(3, 5), mode="nearest"), s((1, 1, 2, 3), d)))
add(
    UP,
    "downscale",
    FLOAT_DTYPES,
    lambda d: case(lambda x: F.interpolate(x, size=(2, 3), mode="nearest"), s((2, 1, 5, 7), d)),
)
add(
    UP,
    "scale_1_5",
    FLOAT_DTYPES,
    lambda d: case(lambda x: F.interpolate(x, scale_factor=1.5, mode="nearest"), s((1, 1, 2, 4), d)),
)

# --- data movement and shape ---

add(
    "aten::cat.out",
    "dim_neg1",
    ALL_DTYPES,
    lambda d: case(lambda x, y: torch.cat([x, y], -1), s((2, 3), d), s((2, 1), d, 1), tags=["negative-dim"]),
)
add(
    "aten::cat.out",
    "dim0",
    ALL_DTYPES,
    lambda d: case(lambda x, y, z: torch.cat([x, y, z]), s((1, 2), d), s((2, 2), d, 1), s((1, 2), d, 2)),
)
add(
    "aten::cat.out",
    "with_empty",
    ALL_DTYPES,
    lambda d: case(lambda x, y: torch.cat([x, y], 1), s((2, 0), d), s((2, 2), d, 1), tags=["empty"]),
)
add(
    "aten::cat.out",
    "legacy_empty_1d",
    ALL_DTYPES,
    lambda d: case(lambda x, y: torch.cat([x, y], 0), s((0,), d), s((2, 2), d, 1), tags=["empty"]),
)
add(
    "aten::cat.out",
    "mixed_i32_f32",
    [torch.float32],
    lambda d: case(lambda x, y: torch.cat([x, y]), s((2,), torch.int32), s((3,), d, 1), tags=["promotion"]),
)
add(
    "aten::cat.out",
    "mixed_u8_b",
    [torch.uint8],
    lambda d: case(lambda x, y: torch.cat([x, y]), s((2,), torch.bool), s((3,), d, 1), tags=["promotion"]),
)
add("aten::copy.out", "same", ALL_DTYPES, lambda d: case(torch.ops.aten.copy.default, s((2, 3), d), s((2, 3), d, 1)))
add(
    "aten::copy.out",
    "broadcast",
    ALL_DTYPES,
    lambda d: case(torch.ops.aten.copy.default, s((2, 3), d), s((3,), d, 1), tags=["broadcast"]),
)
add(
    "aten::copy.out",
    "from_f32",
    ALL_DTYPES,
    lambda d: case(
        torch.ops.aten.copy.default, s((2, 3), d), s((2, 3), torch.float32, 1, low=0, high=3), tags=["promotion"]
    ),
)
add(
    "aten::copy.out", "0d", ALL_DTYPES, lambda d: case(torch.ops.aten.copy.default, s((), d), s((), d, 1), tags=["0-d"])
)
CLONE = "dim_order_ops::_clone_dim_order.out"
add(CLONE, "basic", ALL_DTYPES, lambda d: case(torch.clone, s((2, 3), d)))
add(CLONE, "0d", ALL_DTYPES, lambda d: case(torch.clone, s((), d), tags=["0-d"]))
add(CLONE, "empty", ALL_DTYPES, lambda d: case(torch.clone, s((0, 3), d), tags=["empty"]))
add(CLONE, "edges", ALL_DTYPES, lambda d: case(torch.clone, edge_values(d), tags=["nan"]))
CAST = "dim_order_ops::_to_dim_order_copy.out"


def cast(to: torch.dtype, x: torch.Tensor, tags: Iterable[str] = ()) -> Case | None:
    """x.to(to); None when x already has that dtype (the program would hold no op)."""
    return None if x.dtype == to else case(lambda t: t.to(to), x, tags=tags)


add(CAST, "from_f32", ALL_DTYPES, lambda d: cast(d, s((2, 4), torch.float32, low=0, high=100)))
add(CAST, "to_f32", ALL_DTYPES, lambda d: cast(torch.float32, edge_values(d), tags=["nan", "overflow"]))
add(CAST, "to_i64", ALL_DTYPES, lambda d: cast(torch.int64, s((2, 3), d)))
add(CAST, "to_b", ALL_DTYPES, lambda d: cast(torch.bool, edge_values(d), tags=["nan"]))
add(CAST, "to_f16", ALL_DTYPES, lambda d: cast(torch.float16, s((2, 3), d)))
add(CAST, "to_bf16", ALL_DTYPES, lambda d: cast(torch.bfloat16, s((2, 3), d)))
add(
    CAST,
    "f64_to_f32_rounding",
    [torch.float64],
    lambda d: case(lambda x: x.to(torch.float32), torch.tensor([1 + 2**-30, 1e-50, 1e300, -1e300, 0.1], dtype=d)),
)
add(
    CAST,
    "i64_to_i8_wrap",
    [torch.int64],
    lambda d: case(
        lambda x: x.to(torch.int8), torch.tensor([127, 128, 255, 256, -129, 2**40 + 3], dtype=d), tags=["overflow"]
    ),
)
add(CAST, "0d", ALL_DTYPES, lambda d: cast(torch.float64 if d != torch.float64 else torch.float32, s((), d), ["0-d"]))
add(
    CAST, "empty", ALL_DTYPES, lambda d: cast(torch.int32 if d != torch.int32 else torch.int64, s((0, 2), d), ["empty"])
)
add(
    "aten::expand_copy.out",
    "basic",
    ALL_DTYPES,
    lambda d: case(lambda x: x.expand(2, 3, 4), s((3, 1), d), tags=["broadcast"]),
)
add("aten::expand_copy.out", "minus_one", ALL_DTYPES, lambda d: case(lambda x: x.expand(2, -1, 3), s((4, 1), d)))
add("aten::expand_copy.out", "0d", ALL_DTYPES, lambda d: case(lambda x: x.expand(2, 2), s((), d), tags=["0-d"]))
add(
    "aten::expand_copy.out",
    "to_empty",
    ALL_DTYPES,
    lambda d: case(lambda x: x.expand(0, 3), s((1, 3), d), tags=["empty"]),
)
add("aten::permute_copy.out", "3d", ALL_DTYPES, lambda d: case(lambda x: x.permute(2, 0, 1), s((2, 3, 4), d)))
add(
    "aten::permute_copy.out",
    "neg_dims",
    ALL_DTYPES,
    lambda d: case(lambda x: x.permute(-1, 0, -2), s((2, 3, 2), d), tags=["negative-dim"]),
)
add(
    "aten::permute_copy.out",
    "empty",
    ALL_DTYPES,
    lambda d: case(lambda x: x.permute(1, 0), s((0, 3), d), tags=["empty"]),
)
add("aten::select_copy.int_out", "dim1", ALL_DTYPES, lambda d: case(lambda x: x.select(1, 2), s((2, 3, 2), d)))
add(
    "aten::select_copy.int_out",
    "neg",
    ALL_DTYPES,
    lambda d: case(lambda x: x.select(-1, -1), s((2, 3), d), tags=["negative-dim"]),
)
add(
    "aten::select_copy.int_out", "to_0d", ALL_DTYPES, lambda d: case(lambda x: x.select(0, 1), s((3,), d), tags=["0-d"])
)
add(
    "aten::select_copy.int_out",
    "empty",
    ALL_DTYPES,
    lambda d: case(lambda x: x.select(1, 0), s((0, 2), d), tags=["empty"]),
)
SLICE = "aten::slice_copy.Tensor_out"
add(SLICE, "basic", ALL_DTYPES, lambda d: case(lambda x: x[:, 1:3], s((2, 4), d)))
add(SLICE, "step", ALL_DTYPES, lambda d: case(lambda x: x[1::2], s((5, 2), d)))
add(SLICE, "negative", ALL_DTYPES, lambda d: case(lambda x: x[:, -3:-1], s((2, 5), d), tags=["negative-dim"]))
add(
    SLICE,
    "neg_dim",
    ALL_DTYPES,
    lambda d: case(lambda x: torch.ops.aten.slice_copy.Tensor(x, -1, 1, 100, 2), s((2, 5), d), tags=["negative-dim"]),
)
add(
    SLICE,
    "empty_range",
    ALL_DTYPES,
    lambda d: case(lambda x: torch.ops.aten.slice_copy.Tensor(x, 1, 3, 1), s((2, 4), d), tags=["empty"]),
)
SPLIT = "aten::split_with_sizes_copy.out"
add(
    SPLIT,
    "sizes",
    ALL_DTYPES,
    lambda d: case(lambda x: torch.split(x, [1, 2], -1), s((2, 3), d), tags=["negative-dim"]),
)
add(SPLIT, "chunks", ALL_DTYPES, lambda d: case(lambda x: torch.split(x, 2, 0), s((5, 2), d)))
add(
    SPLIT, "zero_size", ALL_DTYPES, lambda d: case(lambda x: torch.split(x, [0, 2, 1], 1), s((2, 3), d), tags=["empty"])
)
SQ = "aten::squeeze_copy.dims_out"
add(SQ, "dims", ALL_DTYPES, lambda d: case(lambda x: x.squeeze((0, 2)), s((1, 3, 1), d)))
add(SQ, "neg_dim", ALL_DTYPES, lambda d: case(lambda x: x.squeeze(-1), s((2, 1), d), tags=["negative-dim"]))
add(SQ, "not_one", ALL_DTYPES, lambda d: case(lambda x: x.squeeze((0, 1)), s((1, 2), d)))
add(SQ, "to_0d", ALL_DTYPES, lambda d: case(lambda x: x.squeeze(0), s((1,), d), tags=["0-d"]))
add("aten::unsqueeze_copy.out", "dim0", ALL_DTYPES, lambda d: case(lambda x: x.unsqueeze(0), s((2, 3), d)))
add(
    "aten::unsqueeze_copy.out",
    "neg",
    ALL_DTYPES,
    lambda d: case(lambda x: x.unsqueeze(-1), s((2, 3), d), tags=["negative-dim"]),
)
add("aten::unsqueeze_copy.out", "0d", ALL_DTYPES, lambda d: case(lambda x: x.unsqueeze(0), s((), d), tags=["0-d"]))
add("aten::view_copy.out", "basic", ALL_DTYPES, lambda d: case(lambda x: x.view(3, 2), s((2, 3), d)))
add("aten::view_copy.out", "minus_one", ALL_DTYPES, lambda d: case(lambda x: x.view(-1), s((2, 3), d)))
add("aten::view_copy.out", "0d", ALL_DTYPES, lambda d: case(lambda x: x.view(1, 1), s((), d), tags=["0-d"]))
add("aten::view_copy.out", "empty", ALL_DTYPES, lambda d: case(lambda x: x.view(3, 0), s((0, 3), d), tags=["empty"]))
add(
    "aten::where.self_out",
    "broadcast",
    ALL_DTYPES,
    lambda d: case(torch.where, s((2, 1, 3), torch.bool), s((4, 1), d, 1), s((3,), d, 2), tags=["broadcast"]),
)
add(
    "aten::where.self_out",
    "0d",
    ALL_DTYPES,
    lambda d: case(torch.where, s((), torch.bool), s((2,), d, 1), s((), d, 2), tags=["0-d"]),
)
add(
    "aten::where.self_out",
    "nan",
    FLOAT_DTYPES,
    lambda d: case(torch.where, s((8,), torch.bool), special(d), special(d).flip(0), tags=["nan"]),
)
add(
    "aten::where.self_out",
    "empty",
    ALL_DTYPES,
    lambda d: case(torch.where, s((0, 2), torch.bool), s((2,), d, 1), s((2,), d, 2), tags=["empty"]),
)
add(
    "aten::where.self_out",
    "mixed_i32_f32",
    [torch.float32],
    lambda d: case(torch.where, s((4,), torch.bool), s((4,), torch.int32, 1), s((4,), d, 2), tags=["promotion"]),
)

# --- lookups and constants ---

add(
    "aten::embedding.out",
    "i64_indices",
    ALL_DTYPES,
    lambda d: case(lambda w, i: F.embedding(i, w), s((5, 3), d), torch.tensor([[0, 4], [2, 2]])),
)
add(
    "aten::embedding.out",
    "i32_indices",
    ALL_DTYPES,
    lambda d: case(lambda w, i: F.embedding(i, w), s((4, 2), d), torch.tensor([3, 0, 1], dtype=torch.int32)),
)
add(
    "aten::embedding.out",
    "0d_index",
    FLOAT_DTYPES,
    lambda d: case(lambda w, i: F.embedding(i, w), s((4, 2), d), torch.tensor(2), tags=["0-d"]),
)
add(
    "aten::embedding.out",
    "empty_indices",
    FLOAT_DTYPES,
    lambda d: case(lambda w, i: F.embedding(i, w), s((4, 2), d), torch.zeros(0, 3, dtype=torch.int64), tags=["empty"]),
)


def _full_value(d: torch.dtype) -> Any:
    return True if d == torch.bool else -7 if not d.is_floating_point else -1.75


add("aten::full.out", "2x3", ALL_DTYPES, lambda d: case(lambda: torch.full((2, 3), _full_value(d), dtype=d)))
add("aten::full.out", "0d", ALL_DTYPES, lambda d: case(lambda: torch.full((), _full_value(d), dtype=d), tags=["0-d"]))
add(
    "aten::full.out",
    "empty",
    ALL_DTYPES,
    lambda d: case(lambda: torch.full((0, 2), _full_value(d), dtype=d), tags=["empty"]),
)
add(
    "aten::full.out",
    "inf",
    FLOAT_DTYPES,
    lambda d: case(lambda: torch.full((2,), float("-inf"), dtype=d), tags=["nan"]),
)
add(
    "aten::full_like.out",
    "basic",
    ALL_DTYPES,
    lambda d: case(lambda x: torch.full_like(x, _full_value(d)), s((2, 3), d)),
)
add(
    "aten::full_like.out",
    "to_f32",
    ALL_DTYPES,
    lambda d: case(lambda x: torch.full_like(x, 2.5, dtype=torch.float32), s((3,), d)),
)
add(
    "aten::full_like.out",
    "0d",
    ALL_DTYPES,
    lambda d: case(lambda x: torch.full_like(x, _full_value(d)), s((), d), tags=["0-d"]),
)
add(
    "aten::full_like.out",
    "empty",
    ALL_DTYPES,
    lambda d: case(lambda x: torch.full_like(x, _full_value(d)), s((0, 2), d), tags=["empty"]),
)
add(
    "aten::scalar_tensor.out",
    "value",
    ALL_DTYPES,
    lambda d: case(lambda: torch.ops.aten.scalar_tensor.default(_full_value(d), dtype=d)),
)
add(
    "aten::scalar_tensor.out",
    "nan",
    FLOAT_DTYPES,
    lambda d: case(lambda: torch.ops.aten.scalar_tensor.default(float("nan"), dtype=d), tags=["nan"]),
)


# --- what ExecuTorch's runtime refuses (read from its portable kernels, checked by the export) ---

_NOT_BOOL = ((torch.bool,), "takes real, Half and BFloat16 dtypes, not Bool")
_NOT_INT = ((*INT_DTYPES, torch.bool), "takes floating dtypes only")
REFUSED: dict[str, tuple[tuple[torch.dtype, ...], str]] = {
    **dict.fromkeys(
        (
            "aten::addmm.out",
            "aten::bmm.out",
            "aten::mm.out",
            "aten::relu.out",
            "aten::hardtanh.out",
            "aten::convolution.out",
            "aten::max_pool2d_with_indices.out",
            "aten::upsample_nearest2d.vec_out",
        ),
        _NOT_BOOL,
    ),
    **dict.fromkeys(
        (
            "aten::elu.out",
            "aten::gelu.out",
            "aten::leaky_relu.out",
            "aten::_softmax.out",
            "aten::_log_softmax.out",
            "aten::native_layer_norm.out",
            "aten::_native_batch_norm_legit_no_training.out",
        ),
        _NOT_INT,
    ),
    "aten::avg_pool2d.out": (
        tuple(d for d in (*INT_DTYPES, torch.bool) if d != torch.int64),
        "takes floating dtypes and Long only",
    ),
}


REFUSED["aten::_log_softmax.out"] = (
    (torch.float64, *_NOT_INT[0]),
    "takes floating dtypes only; the wheel's runtime runs ExecuTorch's optimized one, which refuses Double",
)


def _declare(c: Case) -> Case:
    refused = REFUSED.get(c.op)
    dtype = next((d for d, short in SHORT.items() if c.name.startswith(short + "_")), None)
    if refused is not None and dtype in refused[0]:
        return replace(c, unsupported_by_executorch=f"ExecuTorch's portable {c.op} {refused[1]}")
    return c


CASES = [_declare(c) for c in CASES]
