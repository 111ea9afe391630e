"""The ops on complex tensors: view_as_real_copy (complex [...] -> real [..., 2]), _conj_physical, and the
complex branches of abs, add, mul, div, sum.IntList, bmm, cat and _to_dim_order_copy.

ExecuTorch's portable kernels take ComplexHalf, ComplexFloat and ComplexDouble (ET_SWITCH_COMPLEXH_TYPES)
for all of them but div (ET_SWITCH_COMPLEX_TYPES: ComplexFloat and ComplexDouble; its ComplexHalf case is
expected to be refused by both runtimes). view_as_real_copy writes Half, Float or Double, _conj_physical
keeps self's dtype, abs gives the magnitude in the part dtype; add, mul, div, bmm, cat and sum take one
complex dtype for every tensor (add's alpha is a real Scalar); _to_dim_order_copy converts Half, Float
and Double to complex (re + 0i) and complex to them (the real part).

The references come from ExecuTorch's Python runtime, whose add and mul are the optimized kernels: its
complex add refuses operands of different shapes (broadcast, alpha with a broadcast other) and its complex
mul refuses 0-d operands, so those cases are left out (the portable kernels, and ours, take them). The
portable complex div neither broadcasts nor converts (it reads both operands as the common complex type,
element i of each), so its cases divide same-shaped tensors of one dtype; the portable complex cat stops
at an empty input, and an all-empty cat exports as full, so cat has no empty case; the complex-to-complex
_to_dim_order_copy reads and writes both as self's dtype, so only real<->complex copies are checked. Our
kernels broadcast, and refuse mixed complex/real operands.

Route to ExecuTorch's reference outputs: the direct one. The case's program takes the complex tensor
as its input, and ExecuTorch's Python runtime (`executorch.runtime`) accepts complex32, complex64
and complex128 torch tensors as method inputs and returns complex outputs as such, so nothing has
to build the complex tensor inside the program (ExecuTorch has no view_as_complex_copy kernel, so a
`view_as_complex` of a float input would not run there). `torch.export` keeps view_as_real and
conj_physical whole; ExecuTorch's edge dialect check refuses them (not core ATen), so export.py
lowers these cases without that check, and `to_executorch` writes view_as_real_copy.out and
_conj_physical.out. In the fixtures, complex64/complex128 are NumPy's `<c8`/`<c16`; NumPy has no
complex32, so ComplexHalf tensors are stored as float16 (re, im) pairs in a last dim of 2 (layout.py).

A real self is refused by both kernels, but no program holds such a call (view_as_real_of_real records
it): torch.view_as_real rejects a real tensor in eager and in export. The real-dtype _conj_physical
cases are in unary.py.
"""

from __future__ import annotations

from collections.abc import Callable

import torch

from tests.conformance.spec import ALL_DTYPES, MAY_BE_UNEXPRESSIBLE, SHORT, Case, per_dtype, sample

COMPLEX_DTYPES = (torch.complex64, torch.complex128, torch.complex32)
PART = {torch.complex32: torch.float16, torch.complex64: torch.float32, torch.complex128: torch.float64}
SHAPE = (2, 3, 4)
NAN, INF = float("nan"), float("inf")
# Components paired so that each of NaN, +-Inf and -0.0 meets a finite, a special and itself.
SPECIAL_RE = (NAN, INF, -INF, 0.0, -0.0, 1.5, NAN, INF, -2.5, 3.0)
SPECIAL_IM = (1.0, -2.0, NAN, -0.0, 0.0, INF, NAN, -INF, -INF, NAN)

Fn = Callable[[torch.Tensor], torch.Tensor]


def complex_of(re: torch.Tensor, im: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """The complex tensor re + i*im of `dtype` (torch.complex has no complex32: built from float16 pairs)."""
    part = PART[dtype]
    return torch.view_as_complex(torch.stack((re.to(part), im.to(part)), dim=-1).contiguous())


def complex_sample(shape: tuple[int, ...], dtype: torch.dtype, seed: int) -> torch.Tensor:
    re = sample(shape, torch.float64, seed=seed)
    im = sample(shape, torch.float64, seed=seed + 1)
    return complex_of(re, im, dtype)


def special(dtype: torch.dtype) -> torch.Tensor:
    return complex_of(torch.tensor(SPECIAL_RE), torch.tensor(SPECIAL_IM), dtype)


def op_cases(op: str, fn: Fn, keep: tuple[str, ...] = ()) -> list[Case]:
    def make(name: str, build: Callable[[torch.dtype], torch.Tensor], tags: tuple[str, ...] = ()) -> list[Case]:
        return per_dtype(op, name, COMPLEX_DTYPES, lambda d: Case(op, "", fn, (build(d),), tags=(*tags, *keep)))

    return [
        *make("sample", lambda d: complex_sample(SHAPE, d, seed=1)),
        *make("special", special, tags=("nan", "inf")),
        *make("0d", lambda d: complex_sample((), d, seed=2), tags=("0-d",)),
        *make("empty", lambda d: complex_sample((0, 3), d, seed=3), tags=("empty",)),
    ]


BinaryFn = Callable[[torch.Tensor, torch.Tensor], torch.Tensor]


def rolled_special(dtype: torch.dtype) -> torch.Tensor:
    """special() shifted by 3, so each special value meets finite and special partners."""
    return torch.roll(special(dtype), 3)


def binary_cases(
    op: str, fn: BinaryFn, dtypes: tuple[torch.dtype, ...], broadcast: bool = True, zero_d: bool = True
) -> list[Case]:
    def make(name: str, a: Callable[[torch.dtype], torch.Tensor], b: Callable[[torch.dtype], torch.Tensor],
             tags: tuple[str, ...] = ()) -> list[Case]:  # fmt: skip
        return per_dtype(op, name, dtypes, lambda d: Case(op, "", fn, (a(d), b(d)), tags=tags))

    cases = [
        *make("sample", lambda d: complex_sample(SHAPE, d, 11), lambda d: complex_sample(SHAPE, d, 13)),
        *make("special", special, rolled_special, tags=("nan", "inf")),
        *make("empty", lambda d: complex_sample((0, 3), d, 19), lambda d: complex_sample((0, 3), d, 21),
              tags=("empty",)),
    ]  # fmt: skip
    if zero_d:
        cases += make("0d", lambda d: complex_sample((), d, 15), lambda d: complex_sample((), d, 17), tags=("0-d",))
    if broadcast:
        cases += make(
            "broadcast", lambda d: complex_sample((2, 1, 4), d, 23), lambda d: complex_sample((3, 1), d, 25),
            tags=("broadcast",),
        )  # fmt: skip
    return cases


ALL = COMPLEX_DTYPES
ADD, MUL, DIV = "aten::add.out", "aten::mul.out", "aten::div.out"
SUM, BMM, CAT, ABS = "aten::sum.IntList_out", "aten::bmm.out", "aten::cat.out", "aten::abs.out"
TO_COPY = "dim_order_ops::_to_dim_order_copy.out"


def alpha_cases() -> list[Case]:
    def make(name: str, alpha: float) -> list[Case]:
        return per_dtype(
            ADD, name, ALL,
            lambda d: Case(ADD, "", lambda a, b: torch.add(a, b, alpha=alpha),
                           (complex_sample(SHAPE, d, 27), complex_sample(SHAPE, d, 29))),
        )  # fmt: skip

    return [*make("alpha2", 2), *make("alpha_neg_frac", -1.5)]


def div_cases() -> list[Case]:
    # ComplexFloat and ComplexDouble only; same shapes (ExecuTorch's complex div does not broadcast).
    cases = binary_cases(DIV, torch.div, (torch.complex64, torch.complex128), broadcast=False)
    zero = per_dtype(
        DIV, "by_zero", (torch.complex64, torch.complex128),
        lambda d: Case(DIV, "", torch.div, (special(d), complex_of(torch.zeros(10), torch.zeros(10), d)),
                       tags=("nan", "inf")),
    )  # fmt: skip
    half = Case(
        DIV, "c32_sample", torch.div, (complex_sample(SHAPE, torch.complex32, 31),
                                       complex_sample(SHAPE, torch.complex32, 33)),
        unsupported_by_executorch="div.out's complex branch takes ComplexFloat and ComplexDouble only",
    )  # fmt: skip
    return [*cases, *zero, half]


def sum_cases() -> list[Case]:
    def make(name: str, fn: Fn, shape: tuple[int, ...], seed: int, tags: tuple[str, ...] = ()) -> list[Case]:
        return per_dtype(SUM, name, ALL, lambda d: Case(SUM, "", fn, (complex_sample(shape, d, seed),), tags=tags))

    return [
        *make("dim1", lambda x: torch.sum(x, dim=1), SHAPE, 35),
        *make("dims_keepdim", lambda x: torch.sum(x, dim=(0, 2), keepdim=True), SHAPE, 37),
        *make("neg_dim", lambda x: torch.sum(x, dim=-1), SHAPE, 39, tags=("negative-dim",)),
        *make("all", lambda x: torch.sum(x, dim=(0, 1, 2)), SHAPE, 41),
        *make("empty_dim", lambda x: torch.sum(x, dim=1), (2, 0, 3), 43, tags=("empty",)),
        *make("0d", lambda x: torch.sum(x, dim=()), (), 45, tags=("0-d",)),
        *per_dtype(SUM, "special", ALL,
                   lambda d: Case(SUM, "", lambda x: torch.sum(x, dim=1), (special(d).reshape(2, 5),),
                                  tags=("nan", "inf"))),
    ]  # fmt: skip


def bmm_cases() -> list[Case]:
    def make(name: str, a: tuple[int, ...], b: tuple[int, ...], tags: tuple[str, ...] = ()) -> list[Case]:
        return per_dtype(
            BMM, name, ALL,
            lambda d: Case(BMM, "", torch.bmm, (complex_sample(a, d, 47), complex_sample(b, d, 49)), tags=tags),
        )  # fmt: skip

    special_bmm = per_dtype(
        BMM, "special", ALL,
        lambda d: Case(BMM, "", torch.bmm, (special(d).reshape(1, 2, 5), rolled_special(d).reshape(1, 5, 2)),
                       tags=("nan", "inf")),
    )  # fmt: skip
    return [
        *make("sample", (2, 3, 4), (2, 4, 5)),
        *make("empty_k", (2, 3, 0), (2, 0, 4), tags=("empty",)),
        *make("empty_batch", (0, 3, 4), (0, 4, 2), tags=("empty",)),
        *special_bmm,
    ]


def cat_cases() -> list[Case]:
    def make(name: str, dim: int, shapes: tuple[tuple[int, ...], ...], tags: tuple[str, ...] = ()) -> list[Case]:
        return per_dtype(
            CAT, name, ALL,
            lambda d: Case(CAT, "", lambda *xs: torch.cat(xs, dim=dim),
                           tuple(complex_sample(s, d, 51 + i) for i, s in enumerate(shapes)), tags=tags),
        )  # fmt: skip

    return [
        *make("dim1", 1, ((2, 1, 4), (2, 3, 4), (2, 2, 4))),
        *make("dim0", 0, ((1, 3), (2, 3))),
        *make("neg_dim", -1, ((2, 3, 1), (2, 3, 2)), tags=("negative-dim",)),
    ]


def abs_cases() -> list[Case]:
    return op_cases(ABS, torch.abs)


def to_copy_cases() -> list[Case]:
    cases: list[Case] = []
    for dtype, part in PART.items():
        short = SHORT[part]
        cases.append(Case(TO_COPY, f"{SHORT[dtype]}_from_{short}", lambda x, d=dtype: x.to(d),
                          (torch.cat((sample((5,), part, 57), torch.tensor([NAN, INF, -INF, -0.0]).to(part))),),
                          tags=("nan", "inf")))  # fmt: skip
        cases.append(Case(TO_COPY, f"{SHORT[dtype]}_to_{short}", lambda x, p=part: x.to(p),
                          (special(dtype),), tags=("nan", "inf")))  # fmt: skip
        cases.append(Case(TO_COPY, f"{SHORT[dtype]}_0d_from_{short}", lambda x, d=dtype: x.to(d),
                          (sample((), part, 59),), tags=("0-d",)))  # fmt: skip
    return cases


def view_as_real_of_real() -> list[Case]:
    """view_as_real_copy on each real dtype: the exporter records whether any program can hold the call
    (torch.view_as_real refuses a real tensor, so the report says "no program" with torch's reason)."""
    return per_dtype(
        "aten::view_as_real_copy.out",
        "real_self",
        ALL_DTYPES,
        lambda dtype: Case("", "", torch.view_as_real, (sample((2, 3), dtype, 61),), tags=(MAY_BE_UNEXPRESSIBLE,)),
    )


CASES: list[Case] = [
    *op_cases("aten::view_as_real_copy.out", torch.view_as_real),
    *view_as_real_of_real(),
    *op_cases("aten::_conj_physical.out", torch.conj_physical),
    *abs_cases(),
    *binary_cases(ADD, torch.add, ALL, broadcast=False),
    *alpha_cases(),
    *binary_cases(MUL, torch.mul, ALL, zero_d=False),
    *div_cases(),
    *sum_cases(),
    *bmm_cases(),
    *cat_cases(),
    *to_copy_cases(),
]
