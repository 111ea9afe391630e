"""The ops on complex tensors: view_as_real_copy (complex [...] -> real [..., 2]) and _conj_physical.

ExecuTorch's portable kernels take ComplexHalf, ComplexFloat and ComplexDouble (ET_SWITCH_COMPLEXH_TYPES)
for both; view_as_real_copy writes Half, Float or Double, and _conj_physical keeps self's dtype.

Route to ExecuTorch's reference outputs: the direct one. The case's program takes the complex tensor
as its input, and ExecuTorch's Python runtime (`executorch.runtime`) accepts complex32, complex64
and complex128 torch tensors as method inputs and returns complex outputs as such, so nothing has
to build the complex tensor inside the program (ExecuTorch has no view_as_complex_copy kernel, so a
`view_as_complex` of a float input would not run there). `torch.export` keeps view_as_real and
conj_physical whole; ExecuTorch's edge dialect check refuses them (not core ATen), so export.py
lowers these cases without that check, and `to_executorch` writes view_as_real_copy.out and
_conj_physical.out. In the fixtures, complex64/complex128 are NumPy's `<c8`/`<c16`; NumPy has no
complex32, so ComplexHalf tensors are stored as float16 (re, im) pairs in a last dim of 2 (layout.py).

A real self is refused by both kernels, but no program holds such a call: torch.view_as_real
rejects a real tensor in eager and in export, and the real-dtype _conj_physical cases are in unary.py.
"""

from __future__ import annotations

from collections.abc import Callable

import torch

from tests.conformance.spec import Case, per_dtype, sample

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


CASES: list[Case] = [
    *op_cases("aten::view_as_real_copy.out", torch.view_as_real),
    *op_cases("aten::_conj_physical.out", torch.conj_physical),
]
