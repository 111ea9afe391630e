"""Element-wise binary ops: comparisons, logical and bitwise ops, shifts, min/max, the Scalar
forms of add/sub/rsub, rounding division, pow, fmod, remainder, atan2, clamp with tensor
bounds and masked_fill. They broadcast and promote their operands as ATen does.

Rules, as ExecuTorch's portable kernels have them:
- comparisons and logical ops: any dtypes, bool out;
- bitwise ops and shifts: integers and bool only;
- maximum/minimum/clamp: any real or bool dtype, NaN propagates;
- pow/fmod/remainder/division with rounding: any real dtype but bool; an integer zero divisor is refused;
- atan2: integers promote to float32.

Some ops exist in a program only when the export keeps them from decomposing
(floor_divide, rsub.Scalar, div.Scalar_mode, masked_fill): their cases carry a `preserve=` tag
naming the torch op to keep (`PRESERVE_OPS`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import torch

from tests.conformance.spec import ALL_DTYPES, FLOAT_DTYPES, INT_DTYPES, PRESERVE, Case, per_dtype, sample

Fn = Callable[..., torch.Tensor]
NAN, INF = float("nan"), float("inf")
REAL_DTYPES = (*FLOAT_DTYPES, *INT_DTYPES)
INTB_DTYPES = (*INT_DTYPES, torch.bool)
A = (2, 3)  # broadcast against B: out is (2, 3)
B = (3,)
COPY = "dim_order_ops::_to_dim_order_copy.out"


def grid(shape: tuple[int, ...], dtype: torch.dtype, seed: int, low: int = -3, high: int = 3) -> torch.Tensor:
    """Small whole numbers of `dtype` (so that comparisons meet equal values), unsigned kept non-negative."""
    if dtype == torch.uint8:
        low = max(low, 0)
    return sample(shape, dtype, seed=seed, low=low, high=high)


def specials(dtype: torch.dtype) -> tuple[torch.Tensor, torch.Tensor]:
    """Pairs that cover NaN, infinities and signed zeros against ordinary values."""
    a = torch.tensor([NAN, 1.0, NAN, INF, -INF, 0.0, -0.0, 2.5, -1.5], dtype=torch.float64)
    b = torch.tensor([1.0, NAN, NAN, INF, 3.0, -0.0, 0.0, -2.5, -1.5], dtype=torch.float64)
    return a.to(dtype), b.to(dtype)


def nonzero_divisor_specials(dtype: torch.dtype) -> tuple[torch.Tensor, torch.Tensor]:
    """specials() without the zero divisors: there ExecuTorch's floor division differs from ATen's
    (0 / 0 gives inf, x / -0.0 ignores the zero's sign); ours follows ATen."""
    a, b = specials(dtype)
    keep = b != 0
    return a[keep], b[keep]


def quarters(t: torch.Tensor) -> torch.Tensor:
    """Rounded to multiples of 0.25: exact in every float dtype, so float32 and float64 arithmetic agree."""
    return (t * 4).round() / 4


def extremes(dtype: torch.dtype) -> torch.Tensor:
    info = torch.iinfo(dtype)
    return torch.tensor([info.min, info.min + 1, -1, 0, 1, info.max - 1, info.max], dtype=torch.int64).to(dtype)


def tensor_cases(
    op: str,
    fn: Fn,
    dtypes: tuple[torch.dtype, ...],
    low: int = -3,
    high: int = 3,
    other_low: int | None = None,
    other_high: int | None = None,
) -> list[Case]:
    """fn(a, b) with a (2, 3) and b (3,) of each dtype, plus 0-d and empty shapes."""
    olow = low if other_low is None else other_low
    ohigh = high if other_high is None else other_high

    def make(d: torch.dtype) -> Case:
        return Case(op, "", fn, (grid(A, d, 1, low, high), grid(B, d, 2, olow, ohigh)), tags=("broadcast",))

    cases = per_dtype(op, "broadcast", dtypes, make)
    d = dtypes[0]
    cases += [
        Case(op, f"{short(d)}_0d", fn, (grid((), d, 3, low, high), grid((), d, 4, olow, ohigh)), tags=("0-d",)),
        Case(
            op,
            f"{short(d)}_0d_with_2d",
            fn,
            (grid(A, d, 5, low, high), grid((), d, 6, olow, ohigh)),
            tags=("0-d", "broadcast"),
        ),
        Case(op, f"{short(d)}_empty", fn, (torch.zeros(0, 3, dtype=d), grid(B, d, 7, olow, ohigh)), tags=("empty",)),
    ]
    return cases


def short(dtype: torch.dtype) -> str:
    from tests.conformance.spec import SHORT

    return SHORT[dtype]


def scalar_cases(op: str, fn: Fn, dtypes: tuple[torch.dtype, ...], low: int = -3, high: int = 3) -> list[Case]:
    """fn(a) with the Scalar inside fn, a (2, 3) of each dtype, plus 0-d and empty."""
    cases = per_dtype(op, "basic", dtypes, lambda d: Case(op, "", fn, (grid(A, d, 8, low, high),)))
    d = dtypes[0]
    cases += [
        Case(op, f"{short(d)}_0d", fn, (grid((), d, 9, low, high),), tags=("0-d",)),
        Case(op, f"{short(d)}_empty", fn, (torch.zeros(2, 0, dtype=d),), tags=("empty",)),
    ]
    return cases


def comparison_cases(name: str, fn2: Fn, fn1: Fn, fn1_float: Fn) -> list[Case]:
    top = f"aten::{name}.Tensor_out"
    sop = f"aten::{name}.Scalar_out"
    cases = tensor_cases(top, fn2, ALL_DTYPES)
    cases += per_dtype(top, "special", FLOAT_DTYPES, lambda d: Case(top, "", fn2, specials(d), tags=("nan", "inf")))
    # Mixed dtypes promote: int32 with float32, uint8 with int8 (int16), float16 with float64.
    cases += [
        Case(top, "i32_f32_mixed", fn2, (grid(A, torch.int32, 10), grid(B, torch.float32, 11) + 0.5)),
        Case(top, "u8_i8_mixed", fn2, (grid(A, torch.uint8, 12, 0, 200), grid(B, torch.int8, 13, -100, 100))),
        Case(top, "f16_f64_mixed", fn2, (grid(A, torch.float16, 14), grid(B, torch.float64, 15))),
        Case(top, "i64_extremes", fn2, (extremes(torch.int64), extremes(torch.int64).flip(0)), tags=("overflow",)),
    ]
    if name != "eq":
        cases += scalar_cases(sop, fn1, ALL_DTYPES)
        cases += per_dtype(sop, "special", FLOAT_DTYPES, lambda d: Case(sop, "", fn1, specials(d)[:1], tags=("nan",)))
        # A floating Scalar with an integer tensor compares in float32.
        cases.append(Case(sop, "i32_float_scalar", fn1_float, (grid(A, torch.int32, 16),)))
        cases.append(Case(sop, "b_float_scalar", fn1_float, (grid(A, torch.bool, 17),)))
    return cases


def bitwise_cases(name: str, fn2: Fn, fn1: Fn) -> list[Case]:
    top = f"aten::{name}.Tensor_out"
    sop = f"aten::{name}.Scalar_out"
    cases = tensor_cases(top, fn2, INTB_DTYPES, -100, 100)
    cases += per_dtype(
        top,
        "extremes",
        INT_DTYPES,
        lambda d: Case(top, "", fn2, (extremes(d), extremes(d).flip(0)), tags=("overflow",)),
    )
    cases.append(
        Case(top, "i8_i32_mixed", fn2, (grid(A, torch.int8, 18, -100, 100), grid(B, torch.int32, 19, -999, 999)))
    )
    cases.append(
        Case(
            top,
            "f32_refused",
            fn2,
            (grid(A, torch.float32, 20), grid(B, torch.float32, 21)),
            unsupported_by_executorch="bitwise ops take integers and bool only",
        )
    )
    cases += scalar_cases(sop, fn1, INTB_DTYPES, -100, 100)
    return cases


def shift_cases(name: str, fn2: Fn, fn1: Fn) -> list[Case]:
    top = f"aten::{name}.Tensor_out"
    sop = f"aten::{name}.Tensor_Scalar_out"
    # Shift amounts stay within [0, bits): beyond them ATen's result is defined but ExecuTorch's is not.
    cases = per_dtype(
        top,
        "broadcast",
        INT_DTYPES,
        lambda d: Case(top, "", fn2, (grid(A, d, 22, -100, 100), grid(B, d, 23, 0, 7)), tags=("broadcast",)),
    )
    cases += per_dtype(
        top,
        "extremes",
        INT_DTYPES,
        lambda d: Case(top, "", fn2, (extremes(d), torch.tensor([1, 7, 3, 0, 2, 1, 1], dtype=d)), tags=("overflow",)),
    )
    cases.append(
        Case(
            top,
            "i32_0d",
            fn2,
            (torch.tensor(-37, dtype=torch.int32), torch.tensor(3, dtype=torch.int32)),
            tags=("0-d",),
        )
    )
    cases.append(Case(top, "i64_wide", fn2, (grid(A, torch.int64, 24, -9999, 9999), torch.tensor([0, 40, 63]))))
    cases += per_dtype(sop, "basic", INT_DTYPES, lambda d: Case(sop, "", fn1, (grid(A, d, 25, -100, 100),)))
    cases.append(Case(sop, "i32_empty", fn1, (torch.zeros(0, dtype=torch.int32),), tags=("empty",)))
    return cases


def logical_cases(name: str, fn: Fn) -> list[Case]:
    op = f"aten::{name}.out"
    cases = tensor_cases(op, fn, ALL_DTYPES, -1, 1)
    cases += [
        Case(op, "f32_nan", fn, specials(torch.float32), tags=("nan",)),
        Case(op, "f32_i64_mixed", fn, (grid(A, torch.float32, 26, -1, 1), grid(B, torch.int64, 27, -1, 1))),
    ]
    return cases


def minmax_cases(name: str, fn: Fn) -> list[Case]:
    op = f"aten::{name}.out"
    cases = tensor_cases(op, fn, ALL_DTYPES)
    cases += per_dtype(op, "special", FLOAT_DTYPES, lambda d: Case(op, "", fn, specials(d), tags=("nan", "inf")))
    cases += [
        # ExecuTorch's export may cast an operand to the common dtype first (it does for minimum).
        Case(op, "i32_f32_mixed", fn, (grid(A, torch.int32, 28), grid(B, torch.float32, 29) + 0.5), also=(COPY,)),
        Case(
            op, "u8_i8_mixed", fn, (grid(A, torch.uint8, 30, 0, 200), grid(B, torch.int8, 31, -100, 100)), also=(COPY,)
        ),
        Case(op, "i64_extremes", fn, (extremes(torch.int64), extremes(torch.int64).flip(0))),
    ]
    return cases


def add_sub_scalar_cases() -> list[Case]:
    cases: list[Case] = []
    op = "aten::add.Scalar_out"
    add = torch.ops.aten.add.Scalar
    cases += scalar_cases(op, lambda x: add(x, 2, alpha=3), REAL_DTYPES)
    cases += per_dtype(
        op, "float_scalar", FLOAT_DTYPES, lambda d: Case(op, "", lambda x: add(x, 0.75, alpha=2), (grid(A, d, 32),))
    )
    cases += per_dtype(
        op,
        "overflow",
        INT_DTYPES,
        lambda d: Case(op, "", lambda x: add(x, 1, alpha=1), (extremes(d),), tags=("overflow",)),
    )
    cases.append(Case(op, "b_bool_scalar", lambda x: add(x, True, alpha=True), (grid(A, torch.bool, 33),)))
    cases.append(Case(op, "f32_nan", lambda x: add(x, 1.5), specials(torch.float32)[:1], tags=("nan",)))
    op = "aten::sub.Scalar_out"
    sub = torch.ops.aten.sub.Scalar
    cases += scalar_cases(op, lambda x: sub(x, 2, alpha=3), REAL_DTYPES)
    cases += per_dtype(
        op, "float_scalar", FLOAT_DTYPES, lambda d: Case(op, "", lambda x: sub(x, 0.75, alpha=2), (grid(A, d, 34),))
    )
    cases += per_dtype(
        op, "overflow", INT_DTYPES, lambda d: Case(op, "", lambda x: sub(x, 1), (extremes(d),), tags=("overflow",))
    )
    return cases


def division_cases() -> list[Case]:
    cases: list[Case] = []
    op = "aten::div.out_mode"
    for mode in ("trunc", "floor"):

        def fn(x: torch.Tensor, y: torch.Tensor, mode: str = mode) -> torch.Tensor:
            return torch.div(x, y, rounding_mode=mode)

        # Divisors avoid 0 for integers (refused); floats get it in the special case.
        cases += per_dtype(
            op,
            f"{mode}_broadcast",
            REAL_DTYPES,
            lambda d, fn=fn: Case(
                op,
                "",
                fn,
                (grid(A, d, 35, -9, 9), grid(B, d, 36, 1, 4) * (1 if d == torch.uint8 else -1) + 0),
                tags=("broadcast",),
            ),
        )
        cases += per_dtype(
            op,
            f"{mode}_signs",
            (torch.int32, torch.float32),
            lambda d, fn=fn: Case(
                op,
                "",
                fn,
                (torch.tensor([7, -7, 7, -7, 6, -6, 0], dtype=d), torch.tensor([2, 2, -2, -2, 3, 3, 5], dtype=d)),
            ),
        )
        cases += per_dtype(
            op,
            f"{mode}_special",
            FLOAT_DTYPES,
            lambda d, fn=fn: Case(op, "", fn, nonzero_divisor_specials(d), tags=("nan", "inf")),
        )
        cases.append(
            Case(
                op,
                f"i32_{mode}_0d",
                fn,
                (torch.tensor(-9, dtype=torch.int32), torch.tensor(4, dtype=torch.int32)),
                tags=("0-d",),
            )
        )
        cases.append(
            Case(
                op,
                f"f32_{mode}_by_zero",
                fn,
                (torch.tensor([1.0, -1.0, 2.5, -3.0]), torch.zeros(4)),
                tags=("inf",),
            )
        )
        cases.append(
            Case(
                op,
                f"i32_f32_{mode}_mixed",
                fn,
                (grid(A, torch.int32, 37, -9, 9), torch.tensor([1.5, -2.0, 0.25])),
                also=(COPY,),  # the export casts the int32 operand to float32 first
            )
        )
    cases.append(
        Case(
            op,
            "i32_trunc_extremes",
            lambda x, y: torch.div(x, y, rounding_mode="trunc"),
            (extremes(torch.int32), torch.tensor([3, -3, 2, 5, -1, 7, 1], dtype=torch.int32)),
            tags=("overflow",),
        )
    )
    return cases


def pow_cases() -> list[Case]:
    cases: list[Case] = []
    op = "aten::pow.Tensor_Tensor_out"
    tt = torch.pow
    cases += per_dtype(
        op,
        "broadcast",
        FLOAT_DTYPES,
        lambda d: Case(op, "", tt, (grid(A, d, 39, 0, 3) + 0.5, grid(B, d, 40, -2, 2)), tags=("broadcast",)),
    )
    cases += per_dtype(
        op,
        "broadcast",
        INT_DTYPES,
        lambda d: Case(
            op, "", tt, (grid(A, d, 41, 0 if d == torch.uint8 else -3, 3), grid(B, d, 42, 0, 3)), tags=("broadcast",)
        ),
    )
    cases += [
        Case(op, "f32_special", tt, specials(torch.float32), tags=("nan", "inf")),
        Case(
            op, "f32_negative_base", tt, (torch.tensor([-2.0, -2.0, -8.0, 0.0]), torch.tensor([2.0, 0.5, 1 / 3, -1.0]))
        ),
        Case(op, "i32_f32_mixed", tt, (grid(A, torch.int32, 43), torch.tensor([0.5, 2.0, -1.0]))),
        Case(op, "f32_0d", tt, (torch.tensor(1.5), torch.tensor(3.0)), tags=("0-d",)),
        Case(op, "f32_empty", tt, (torch.zeros(0, 3), torch.ones(3)), tags=("empty",)),
    ]
    op = "aten::pow.Tensor_Scalar_out"
    cases += scalar_cases(op, lambda x: torch.pow(x, 2), REAL_DTYPES)
    cases += per_dtype(op, "cube", INT_DTYPES, lambda d: Case(op, "", lambda x: torch.pow(x, 3), (grid(A, d, 44),)))
    cases += per_dtype(
        op, "half", FLOAT_DTYPES, lambda d: Case(op, "", lambda x: torch.pow(x, 0.5), (grid(A, d, 45, 0, 9),))
    )
    cases.append(Case(op, "f32_special", lambda x: torch.pow(x, -1.5), specials(torch.float32)[:1], tags=("nan",)))
    op = "aten::pow.Scalar_out"
    cases += per_dtype(
        op, "basic", FLOAT_DTYPES, lambda d: Case(op, "", lambda x: torch.pow(2.5, x), (grid(A, d, 46),))
    )
    cases += per_dtype(
        op, "basic", INT_DTYPES, lambda d: Case(op, "", lambda x: torch.pow(3, x), (grid(A, d, 47, 0, 4),))
    )
    cases.append(Case(op, "i32_float_base", lambda x: torch.pow(0.5, x), (grid(A, torch.int32, 48),)))
    cases.append(Case(op, "f32_0d", lambda x: torch.pow(2, x), (torch.tensor(-1.5),), tags=("0-d",)))
    return cases


def modulo_cases(name: str, fn2: Fn, fn1: Fn) -> list[Case]:
    top = f"aten::{name}.Tensor_out"
    sop = f"aten::{name}.Scalar_out"
    # Integer operands are non-negative, where ExecuTorch's integer remainder (C's %) agrees with ATen's;
    # float operands are quarters, exact in float32, in which ExecuTorch computes even float64 remainders.
    cases = per_dtype(
        top,
        "broadcast",
        FLOAT_DTYPES,
        lambda d: Case(
            top, "", fn2, (quarters(grid(A, d, 49, -9, 9)), quarters(grid(B, d, 50, 1, 4)) * -1), tags=("broadcast",)
        ),
    )
    cases += per_dtype(
        top,
        "broadcast",
        INT_DTYPES,
        lambda d: Case(top, "", fn2, (grid(A, d, 51, 0, 50), grid(B, d, 52, 1, 7)), tags=("broadcast",)),
    )
    cases += [
        Case(
            top,
            "f32_signs",
            fn2,
            (torch.tensor([7.5, -7.5, 7.5, -7.5, 6.0]), torch.tensor([2.0, 2.0, -2.0, -2.0, 3.0])),
        ),
        Case(top, "f32_special", fn2, specials(torch.float32), tags=("nan", "inf")),
        Case(top, "i32_f32_mixed", fn2, (grid(A, torch.int32, 53, -9, 9), torch.tensor([1.5, -2.0, 0.75]))),
        Case(top, "f32_0d", fn2, (torch.tensor(-5.5), torch.tensor(2.0)), tags=("0-d",)),
        Case(top, "f32_empty", fn2, (torch.zeros(0, 3), torch.ones(3)), tags=("empty",)),
    ]
    if name == "fmod":
        cases.append(
            Case(
                top,
                "i32_signs",
                fn2,
                (torch.tensor([7, -7, 7, -7], dtype=torch.int32), torch.tensor([2, 2, -2, -2], dtype=torch.int32)),
            )
        )
    cases += per_dtype(
        sop, "basic", FLOAT_DTYPES, lambda d: Case(sop, "", lambda x: fn1(x, -1.5), (quarters(grid(A, d, 54, -9, 9)),))
    )
    cases += per_dtype(sop, "basic", INT_DTYPES, lambda d: Case(sop, "", lambda x: fn1(x, 3), (grid(A, d, 55, 0, 50),)))
    cases.append(Case(sop, "i32_float_scalar", lambda x: fn1(x, 2.5), (grid(A, torch.int32, 56, -9, 9),)))
    cases.append(Case(sop, "f32_0d", lambda x: fn1(x, 2), (torch.tensor(-5.5),), tags=("0-d",)))
    return cases


def atan2_cases() -> list[Case]:
    op = "aten::atan2.out"
    cases = tensor_cases(op, torch.atan2, (torch.float32, *FLOAT_DTYPES[1:], *INT_DTYPES, torch.bool))
    cases.append(Case(op, "f32_special", torch.atan2, specials(torch.float32), tags=("nan", "inf")))
    cases.append(Case(op, "i32_f64_mixed", torch.atan2, (grid(A, torch.int32, 57), grid(B, torch.float64, 58))))
    return cases


def clamp_tensor_cases() -> list[Case]:
    op = "aten::clamp.Tensor_out"

    def both(x: torch.Tensor, lo: torch.Tensor, hi: torch.Tensor) -> torch.Tensor:
        return torch.clamp(x, lo, hi)

    cases = per_dtype(
        op,
        "broadcast",
        ALL_DTYPES,
        lambda d: Case(
            op,
            "",
            both,
            (grid((2, 3, 4), d, 59, -5, 5), grid((3, 1), d, 60, -3, 0), grid((4,), d, 61, 0, 3)),
            tags=("broadcast",),
        ),
    )
    cases += [
        Case(
            op,
            "f32_min_only",
            lambda x, lo: torch.clamp(x, min=lo),
            (grid(A, torch.float32, 62), grid(B, torch.float32, 63)),
        ),
        Case(
            op,
            "f32_max_only",
            lambda x, hi: torch.clamp(x, max=hi),
            (grid(A, torch.float32, 64), grid(B, torch.float32, 65)),
        ),
        Case(
            op,
            "f32_nan",
            both,
            (
                torch.tensor([NAN, 1.0, 5.0, -5.0]),
                torch.tensor([0.0, NAN, 0.0, 0.0]),
                torch.tensor([1.0, 1.0, NAN, 1.0]),
            ),
            tags=("nan",),
        ),
        Case(op, "i32_f32_mixed", both, (grid(A, torch.int32, 66), torch.tensor([-0.5]), torch.tensor([1.5]))),
        Case(op, "f32_0d", both, (torch.tensor(3.0), torch.tensor(-1.0), torch.tensor(1.0)), tags=("0-d",)),
        Case(op, "f32_empty", both, (torch.zeros(0, 3), torch.zeros(3), torch.ones(3)), tags=("empty",)),
    ]
    return cases


CASES: list[Case] = [
    *comparison_cases("ge", lambda x, y: x >= y, lambda x: x >= 1, lambda x: x >= 0.5),
    *comparison_cases("eq", lambda x, y: x == y, lambda x: x == 1, lambda x: x == 0.5),
    *comparison_cases("ne", lambda x, y: x != y, lambda x: x != 1, lambda x: x != 0.5),
    *comparison_cases("gt", lambda x, y: x > y, lambda x: x > 1, lambda x: x > 0.5),
    *comparison_cases("le", lambda x, y: x <= y, lambda x: x <= 1, lambda x: x <= 0.5),
    *comparison_cases("lt", lambda x, y: x < y, lambda x: x < 1, lambda x: x < 0.5),
    *bitwise_cases("bitwise_and", lambda x, y: x & y, lambda x: x & 5),
    *bitwise_cases("bitwise_or", lambda x, y: x | y, lambda x: x | 5),
    *bitwise_cases("bitwise_xor", lambda x, y: x ^ y, lambda x: x ^ 5),
    *shift_cases("bitwise_left_shift", torch.bitwise_left_shift, lambda x: torch.bitwise_left_shift(x, 3)),
    *shift_cases("bitwise_right_shift", torch.bitwise_right_shift, lambda x: torch.bitwise_right_shift(x, 2)),
    *logical_cases("logical_and", torch.logical_and),
    *logical_cases("logical_or", torch.logical_or),
    *logical_cases("logical_xor", torch.logical_xor),
    *minmax_cases("maximum", torch.maximum),
    *minmax_cases("minimum", torch.minimum),
    *add_sub_scalar_cases(),
    *division_cases(),
    *pow_cases(),
    *modulo_cases("fmod", torch.fmod, torch.fmod),
    *modulo_cases("remainder", torch.remainder, torch.remainder),
    *atan2_cases(),
    *clamp_tensor_cases(),
]  # fmt: skip


def preserved_cases() -> list[Case]:
    aten = torch.ops.aten
    cases: list[Case] = []
    op = "aten::floor_divide.out"
    cases += per_dtype(
        op,
        "broadcast",
        REAL_DTYPES,
        lambda d: Case(
            op,
            "",
            torch.floor_divide,
            (grid(A, d, 67, -9, 9), grid(B, d, 68, 1, 4) * (1 if d == torch.uint8 else -1)),
            tags=("broadcast",),
        ),
    )
    cases.append(Case(op, "f32_special", torch.floor_divide, specials(torch.float32), tags=("nan", "inf")))
    cases.append(
        Case(
            op,
            "i32_signs",
            torch.floor_divide,
            (torch.tensor([7, -7, 7, -7], dtype=torch.int32), torch.tensor([2, 2, -2, -2], dtype=torch.int32)),
        )
    )
    op = "aten::rsub.Scalar_out"
    cases += scalar_cases(op, lambda x: aten.rsub.Scalar(x, 2, alpha=3), REAL_DTYPES)
    cases += per_dtype(
        op,
        "overflow",
        INT_DTYPES,
        lambda d: Case(op, "", lambda x: aten.rsub.Scalar(x, -1), (extremes(d),), tags=("overflow",)),
    )
    cases.append(
        Case(op, "f32_float_scalar", lambda x: aten.rsub.Scalar(x, 0.25, alpha=2), (grid(A, torch.float32, 69),))
    )
    op = "aten::div.Scalar_mode_out"
    for mode in ("trunc", "floor"):
        cases += per_dtype(
            op,
            f"{mode}_basic",
            REAL_DTYPES,
            lambda d, mode=mode: Case(
                op,
                "",
                lambda x: aten.div.Scalar_mode(x, 3 if d == torch.uint8 else -3, rounding_mode=mode),
                (grid(A, d, 70, -9, 9),),
            ),
        )
        cases.append(
            Case(
                op,
                f"f32_{mode}_float_scalar",
                lambda x, mode=mode: aten.div.Scalar_mode(x, 0.75, rounding_mode=mode),
                (grid(A, torch.float32, 71, -9, 9),),
            )
        )
    op = "aten::masked_fill.Scalar_out"
    cases += per_dtype(
        op,
        "broadcast",
        ALL_DTYPES,
        lambda d: Case(
            op,
            "",
            lambda x, m: x.masked_fill(m, 2.5 if d.is_floating_point else 1),
            (grid(A, d, 72), grid(B, torch.bool, 73)),
            tags=("broadcast",),
        ),
    )
    cases.append(
        Case(
            op,
            "f32_nan_fill",
            lambda x, m: x.masked_fill(m, NAN),
            (grid(A, torch.float32, 74), grid(A, torch.bool, 75)),
            tags=("nan",),
        )
    )
    cases.append(
        Case(
            op,
            "f32_0d_mask",
            lambda x, m: x.masked_fill(m, -1.0),
            (grid(A, torch.float32, 76), torch.tensor(True)),
            tags=("0-d",),
        )
    )
    return cases


# Ops that ExecuTorch's export decomposes unless told to keep them: case op -> torch op to preserve.
PRESERVE_OPS: dict[str, str] = {
    "aten::floor_divide.out": "aten.floor_divide.default",
    "aten::rsub.Scalar_out": "aten.rsub.Scalar",
    "aten::div.Scalar_mode_out": "aten.div.Scalar_mode",
    "aten::masked_fill.Scalar_out": "aten.masked_fill.Scalar",
}
CASES += [dataclasses.replace(case, tags=(*case.tags, PRESERVE + PRESERVE_OPS[case.op])) for case in preserved_cases()]
