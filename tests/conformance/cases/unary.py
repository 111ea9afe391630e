"""Element-wise unary ops, and the copies and fills that share their shape: out has the input's shape.

Three kinds, as ExecuTorch's portable kernels have them:
- floating math (exp, sin, ...): any real or bool input, floating out; an integer or bool input gives float32;
- same dtype (neg, abs, floor, round, sign, bitwise_not, ...): out has the input's dtype;
- predicates (isnan, isinf): bool out.
Then logit, glu, the copies (clone, _to_copy, alias_copy, detach_copy), fill, native_dropout and
_conj_physical.

ExecuTorch's `to_edge` decomposes some of these ops (logit, glu, fill, _conj_physical) unless the
program keeps them: their cases carry the tag `preserve=<torch op overload>` (kept with
`EdgeCompileConfig(preserve_ops=..., _core_aten_ops_exception_list=...)`). clone.out and _to_copy.out
exist only in programs exported without dim order (`_skip_dim_order=True`, tag `skip_dim_order`);
otherwise they become dim_order_ops::_clone_dim_order / _to_dim_order_copy. lift_fresh_copy never
reaches a program (to_edge always turns it into a clone), so it has no case; nor does a _to_copy to
the same dtype (to_edge drops it).

Where ExecuTorch's kernels and eager ATen differ, the kernels follow ExecuTorch (the reference):
sign(NaN) is NaN (ATen: 0). native_dropout in training scales kept values by 1 / (1 - p) as ATen
does (ExecuTorch's does not scale); only its deterministic forms have cases.
"""

from __future__ import annotations

from collections.abc import Callable

import torch

from tests.conformance.spec import ALL_DTYPES, FLOAT_DTYPES, INT_DTYPES, SHORT, Case, per_dtype, sample

SHAPE = (2, 3, 4)
NAN, INF = float("nan"), float("inf")
# Every float edge a unary op meets: NaN, both infinities, signed zeros, halfway points, tiny and large values.
SPECIAL = (NAN, INF, -INF, 0.0, -0.0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 1.0, -1.0, 1e-30, -1e-30, 1e30, -1e30, 3.7)

Fn = Callable[[torch.Tensor], torch.Tensor]


def special(dtype: torch.dtype) -> torch.Tensor:
    return torch.tensor(SPECIAL, dtype=torch.float64).to(dtype)


def extremes(dtype: torch.dtype) -> torch.Tensor:
    """The integer type's edges, where negation and abs wrap."""
    info = torch.iinfo(dtype)
    return torch.tensor([info.min, info.min + 1, -1, 0, 1, info.max - 1, info.max], dtype=torch.int64).to(dtype)


def shape_cases(op: str, fn: Fn, low: float, high: float) -> list[Case]:
    """0-d, empty and a broadcast-free 1-element case, in float32."""
    return [
        Case(op, "f32_0d", fn, (torch.tensor((low + high) / 2),), tags=("0-d",)),
        Case(op, "f32_empty", fn, (torch.zeros(0, 3),), tags=("empty",)),
        Case(op, "f32_single", fn, (sample((1, 1, 1), torch.float32, seed=3, low=low, high=high),)),
    ]


# name -> (fn, sample range). The range is the op's domain where it has one; edges are in `special`.
FLOAT_MATH: dict[str, tuple[Fn, float, float]] = {
    "exp": (torch.exp, -4, 4),
    "sqrt": (torch.sqrt, 0, 9),
    "rsqrt": (torch.rsqrt, 0, 9),
    "sin": (torch.sin, -4, 4),
    "cos": (torch.cos, -4, 4),
    "erf": (torch.erf, -3, 3),
    "reciprocal": (torch.reciprocal, -4, 4),
    "log2": (torch.log2, 0, 9),
    "log10": (torch.log10, 0, 9),
    "log1p": (torch.log1p, -1, 8),
    "expm1": (torch.expm1, -4, 4),
    "tan": (torch.tan, -1.5, 1.5),
    "sinh": (torch.sinh, -4, 4),
    "cosh": (torch.cosh, -4, 4),
    "asin": (torch.asin, -1, 1),
    "acos": (torch.acos, -1, 1),
    "atan": (torch.atan, -4, 4),
    "asinh": (torch.asinh, -4, 4),
    "acosh": (torch.acosh, 1, 9),
    "atanh": (torch.atanh, -1, 1),
}


def float_math_cases(name: str, fn: Fn, low: float, high: float) -> list[Case]:
    op = f"aten::{name}.out"
    cases = per_dtype(op, "basic", ALL_DTYPES, lambda d: Case(op, "", fn, (sample(SHAPE, d, low=low, high=high),)))
    cases += per_dtype(op, "special", FLOAT_DTYPES, lambda d: Case(op, "", fn, (special(d),), tags=("nan", "inf")))
    # An integer input is promoted: out is float32 even for int64.
    cases.append(Case(op, "i64_wide", fn, (sample((4, 4), torch.int64, seed=1, low=-50, high=50),)))
    return cases + shape_cases(op, fn, low, high)


def rounding_cases(name: str, fn: Fn) -> list[Case]:
    """floor, ceil, trunc, round: identity on integers, halfway points and NaN/Inf on floats."""
    op = f"aten::{name}.out"
    cases = per_dtype(op, "basic", FLOAT_DTYPES + INT_DTYPES, lambda d: Case(op, "", fn, (sample(SHAPE, d),)))
    cases += per_dtype(op, "special", FLOAT_DTYPES, lambda d: Case(op, "", fn, (special(d),), tags=("nan", "inf")))
    return cases + shape_cases(op, fn, -4, 4)


def wrapping_cases(name: str, fn: Fn) -> list[Case]:
    """neg, abs: real dtypes; the integer minimum wraps to itself, as in ATen."""
    op = f"aten::{name}.out"
    cases = per_dtype(op, "basic", FLOAT_DTYPES + INT_DTYPES, lambda d: Case(op, "", fn, (sample(SHAPE, d),)))
    cases += per_dtype(op, "special", FLOAT_DTYPES, lambda d: Case(op, "", fn, (special(d),), tags=("nan", "inf")))
    cases += per_dtype(op, "overflow", INT_DTYPES, lambda d: Case(op, "", fn, (extremes(d),), tags=("overflow",)))
    return cases + shape_cases(op, fn, -4, 4)


def sign_cases() -> list[Case]:
    op = "aten::sign.out"
    fn = torch.sign
    cases = per_dtype(op, "basic", ALL_DTYPES, lambda d: Case(op, "", fn, (sample(SHAPE, d),)))
    cases += per_dtype(op, "special", FLOAT_DTYPES, lambda d: Case(op, "", fn, (special(d),), tags=("nan", "inf")))
    cases += per_dtype(op, "extremes", INT_DTYPES, lambda d: Case(op, "", fn, (extremes(d),)))
    return cases + shape_cases(op, fn, -4, 4)


def bitwise_not_cases() -> list[Case]:
    op = "aten::bitwise_not.out"
    fn = torch.bitwise_not
    cases = per_dtype(op, "basic", (*INT_DTYPES, torch.bool), lambda d: Case(op, "", fn, (sample(SHAPE, d),)))
    cases += per_dtype(op, "extremes", INT_DTYPES, lambda d: Case(op, "", fn, (extremes(d),), tags=("overflow",)))
    cases.append(Case(op, "i32_0d", fn, (torch.tensor(5, dtype=torch.int32),), tags=("0-d",)))
    cases.append(Case(op, "i64_empty", fn, (torch.zeros(2, 0, dtype=torch.int64),), tags=("empty",)))
    return cases


def predicate_cases(name: str, fn: Fn) -> list[Case]:
    op = f"aten::{name}.out"
    cases = per_dtype(op, "basic", ALL_DTYPES, lambda d: Case(op, "", fn, (sample(SHAPE, d),)))
    cases += per_dtype(op, "special", FLOAT_DTYPES, lambda d: Case(op, "", fn, (special(d),), tags=("nan", "inf")))
    return cases + shape_cases(op, fn, -4, 4)


A = torch.ops.aten


def _keep(op: str) -> str:
    return f"preserve={op}"


def logit_cases() -> list[Case]:
    op = "aten::logit.out"
    keep = (_keep("aten.logit.default"),)
    half = "ExecuTorch's logit writes float32 or float64 only"

    def basic(d: torch.dtype) -> Case:
        x = sample(SHAPE, d, low=0, high=1) if d.is_floating_point else sample(SHAPE, d, low=-1, high=2)
        return Case(
            op,
            "",
            lambda t: torch.logit(t),
            (x,),
            tags=keep,
            unsupported_by_executorch=half if d in (torch.float16, torch.bfloat16) else "",
        )

    cases = per_dtype(op, "basic", ALL_DTYPES, basic)
    cases += per_dtype(
        op,
        "eps",
        (torch.float32, torch.float64),
        lambda d: Case(op, "", lambda t: torch.logit(t, 0.2), (sample(SHAPE, d, low=-0.5, high=1.5),), tags=keep),
    )
    cases += [
        Case(op, "f32_special", lambda t: torch.logit(t), (special(torch.float32),), tags=(*keep, "nan", "inf")),
        Case(
            op, "f32_special_eps", lambda t: torch.logit(t, 1e-6), (special(torch.float32),), tags=(*keep, "nan", "inf")
        ),
        Case(op, "f32_0d", lambda t: torch.logit(t, 0.25), (torch.tensor(0.75),), tags=(*keep, "0-d")),
        Case(op, "f32_empty", lambda t: torch.logit(t), (torch.zeros(0, 2),), tags=(*keep, "empty")),
        Case(op, "i64_eps", lambda t: torch.logit(t, 0.3), (sample(SHAPE, torch.int64, low=-1, high=2),), tags=keep),
    ]
    return cases


def glu_cases() -> list[Case]:
    op = "aten::glu.out"
    keep = (_keep("aten.glu.default"),)
    glu = torch.nn.functional.glu
    cases = per_dtype(
        op, "last_dim", FLOAT_DTYPES, lambda d: Case(op, "", lambda t: glu(t, -1), (sample((2, 3, 4), d),), tags=keep)
    )
    cases += per_dtype(
        op, "dim0", FLOAT_DTYPES, lambda d: Case(op, "", lambda t: glu(t, 0), (sample((4, 3), d, seed=1),), tags=keep)
    )
    cases += [
        Case(op, "f32_middle_dim", lambda t: glu(t, 1), (sample((2, 6, 3), torch.float32, seed=2),), tags=keep),
        Case(
            op,
            "f32_negative_dim",
            lambda t: glu(t, -3),
            (sample((2, 1, 3), torch.float32, seed=3),),
            tags=(*keep, "negative-dim"),
        ),
        Case(op, "f32_special", lambda t: glu(t, 0), (special(torch.float32),), tags=(*keep, "nan", "inf")),
        Case(op, "f32_empty", lambda t: glu(t, 1), (torch.zeros(0, 4),), tags=(*keep, "empty")),
        Case(op, "f32_large_gate", lambda t: glu(t, -1), (torch.tensor([[1.0, 2.0, 100.0, -100.0]]),), tags=keep),
    ]
    return cases


def copy_cases() -> list[Case]:
    """clone, _to_copy, alias_copy, detach_copy: out takes the input's shape (and values)."""
    cases: list[Case] = []
    for op, fn, tags, also in (
        ("aten::clone.out", torch.clone, ("skip_dim_order",), ()),
        ("aten::alias_copy.out", A.alias_copy.default, (), ("dim_order_ops::_clone_dim_order.out",)),
        ("aten::detach_copy.out", A.detach_copy.default, (), ()),
    ):
        cases += per_dtype(
            op,
            "basic",
            ALL_DTYPES,
            lambda d, op=op, fn=fn, tags=tags, also=also: Case(op, "", fn, (sample(SHAPE, d),), tags=tags, also=also),
        )
        cases.append(Case(op, "f32_0d", fn, (torch.tensor(1.5),), tags=(*tags, "0-d"), also=also))
        cases.append(Case(op, "f32_empty", fn, (torch.zeros(3, 0),), tags=(*tags, "empty"), also=also))
        cases.append(Case(op, "f32_special", fn, (special(torch.float32),), tags=(*tags, "nan", "inf"), also=also))
    cases.append(
        Case(
            "aten::clone.out",
            "f32_contiguous",
            lambda t: torch.clone(t, memory_format=torch.contiguous_format),
            (sample(SHAPE, torch.float32),),
            tags=("skip_dim_order",),
        )
    )
    op = "aten::_to_copy.out"
    conversions = (
        (torch.float32, torch.float64),
        (torch.float32, torch.float16),
        (torch.float32, torch.bfloat16),
        (torch.float32, torch.int32),
        (torch.float32, torch.bool),
        (torch.float64, torch.float32),
        (torch.float16, torch.float32),
        (torch.bfloat16, torch.float32),
        (torch.float16, torch.bfloat16),
        (torch.int64, torch.float32),
        (torch.int32, torch.int64),
        (torch.int64, torch.int8),
        (torch.int16, torch.uint8),
        (torch.uint8, torch.int64),
        (torch.int8, torch.float16),
        (torch.bool, torch.float32),
        (torch.bool, torch.int64),
        (torch.int32, torch.bool),
    )
    for src, dst in conversions:
        low, high = (-300, 300) if not src.is_floating_point else (-4, 4)
        cases.append(
            Case(
                op,
                f"{SHORT[src]}_to_{SHORT[dst]}",
                lambda t, dst=dst: t.to(dst),
                (sample(SHAPE, src, low=low, high=high),),
                tags=("skip_dim_order",),
            )
        )
    cases += [
        Case(
            op,
            "f32_special_to_f16",
            lambda t: t.to(torch.float16),
            (special(torch.float32),),
            tags=("skip_dim_order", "nan", "inf"),
        ),
        Case(op, "f32_0d_to_i64", lambda t: t.to(torch.int64), (torch.tensor(-2.75),), tags=("skip_dim_order", "0-d")),
        Case(
            op,
            "f32_empty_to_f64",
            lambda t: t.to(torch.float64),
            (torch.zeros(0, 2),),
            tags=("skip_dim_order", "empty"),
        ),
    ]
    return cases


def fill_cases() -> list[Case]:
    cases: list[Case] = []
    op = "aten::fill.Scalar_out"
    keep = (_keep("aten.fill.Scalar"),)
    cases += per_dtype(
        op,
        "int_value",
        ALL_DTYPES,
        lambda d: Case(op, "", lambda t: A.fill.Scalar(t, 1), (sample(SHAPE, d),), tags=keep),
    )
    cases += per_dtype(
        op,
        "float_value",
        FLOAT_DTYPES,
        lambda d: Case(op, "", lambda t: A.fill.Scalar(t, -2.5), (sample(SHAPE, d),), tags=keep),
    )
    cases += [
        Case(op, "f32_nan", lambda t: A.fill.Scalar(t, NAN), (sample(SHAPE, torch.float32),), tags=(*keep, "nan")),
        Case(op, "f32_bool_value", lambda t: A.fill.Scalar(t, True), (sample(SHAPE, torch.float32),), tags=keep),
        Case(op, "i64_large", lambda t: A.fill.Scalar(t, 2**40 + 1), (sample(SHAPE, torch.int64),), tags=keep),
        Case(
            op,
            "u8_overflow",
            lambda t: A.fill.Scalar(t, 300),
            (sample(SHAPE, torch.uint8),),
            tags=(*keep, "overflow"),
            unsupported_by_executorch="300 does not fit uint8",
        ),
        Case(op, "f32_0d", lambda t: A.fill.Scalar(t, 7), (torch.tensor(1.0),), tags=(*keep, "0-d")),
        Case(op, "f32_empty", lambda t: A.fill.Scalar(t, 7), (torch.zeros(0, 3),), tags=(*keep, "empty")),
    ]
    op = "aten::fill.Tensor_out"
    keep = (_keep("aten.fill.Tensor"),)
    cases += per_dtype(
        op,
        "basic",
        ALL_DTYPES,
        lambda d: Case(
            op,
            "",
            lambda t, v: A.fill.Tensor(t, v),
            (sample(SHAPE, d), sample((), d, seed=9, low=1, high=4)),
            tags=keep,
        ),
    )
    cases += [
        Case(
            op,
            "f32_from_i64",
            lambda t, v: A.fill.Tensor(t, v),
            (sample(SHAPE, torch.float32), torch.tensor(-3)),
            tags=keep,
        ),
        Case(
            op,
            "i32_from_bool",
            lambda t, v: A.fill.Tensor(t, v),
            (sample(SHAPE, torch.int32), torch.tensor(True)),
            tags=keep,
        ),
        Case(
            op,
            "f16_from_f64",
            lambda t, v: A.fill.Tensor(t, v),
            (sample(SHAPE, torch.float16), torch.tensor(0.1, dtype=torch.float64)),
            tags=keep,
        ),
        Case(
            op,
            "f32_nan",
            lambda t, v: A.fill.Tensor(t, v),
            (sample(SHAPE, torch.float32), torch.tensor(NAN)),
            tags=(*keep, "nan"),
        ),
        Case(
            op,
            "f32_empty",
            lambda t, v: A.fill.Tensor(t, v),
            (torch.zeros(0, 3), torch.tensor(2.0)),
            tags=(*keep, "empty"),
        ),
    ]
    return cases


def dropout_cases() -> list[Case]:
    """Only the deterministic forms: evaluation, p = 0 and p = 1 (random masks cannot be compared)."""
    op = "aten::native_dropout.out"
    cases = per_dtype(
        op,
        "eval",
        FLOAT_DTYPES,
        lambda d: Case(op, "", lambda t: A.native_dropout.default(t, 0.5, False), (sample(SHAPE, d),)),
    )
    cases += per_dtype(
        op,
        "p0_train",
        FLOAT_DTYPES,
        lambda d: Case(op, "", lambda t: A.native_dropout.default(t, 0.0, True), (sample(SHAPE, d),)),
    )
    cases += [
        Case(op, "f32_p1_train", lambda t: A.native_dropout.default(t, 1.0, True), (sample(SHAPE, torch.float32),)),
        Case(
            op,
            "f32_p0_train_none",
            lambda t: A.native_dropout.default(t, 0.0, None),
            (special(torch.float32),),
            tags=("nan", "inf"),
        ),
        Case(op, "f32_empty", lambda t: A.native_dropout.default(t, 0.5, True), (torch.zeros(0, 3),), tags=("empty",)),
        Case(op, "f32_0d_eval", lambda t: A.native_dropout.default(t, 0.3, False), (torch.tensor(2.0),), tags=("0-d",)),
    ]
    return cases


def conj_physical_cases() -> list[Case]:
    op = "aten::_conj_physical.out"
    keep = (_keep("aten._conj_physical.default"),)
    return per_dtype(
        op,
        "real",
        (torch.float32, torch.int64),
        lambda d: Case(
            op,
            "",
            A._conj_physical.default,
            (sample(SHAPE, d),),
            tags=keep,
            unsupported_by_executorch="ExecuTorch's _conj_physical takes complex tensors only",
        ),
    )


CASES: list[Case] = [
    *wrapping_cases("neg", torch.neg),
    *[c for name, (fn, low, high) in FLOAT_MATH.items() for c in float_math_cases(name, fn, low, high)],
    *wrapping_cases("abs", torch.abs),
    *[c for name, fn in (("floor", torch.floor), ("ceil", torch.ceil), ("round", torch.round),
                         ("trunc", torch.trunc)) for c in rounding_cases(name, fn)],
    *sign_cases(),
    *predicate_cases("isnan", torch.isnan),
    *predicate_cases("isinf", torch.isinf),
    *bitwise_not_cases(),
    *logit_cases(),
    *copy_cases(),
    *fill_cases(),
    *glu_cases(),
    *dropout_cases(),
    *conj_physical_cases(),
]  # fmt: skip
