"""What a conformance case is: one op, called once, on concrete inputs.

Each case becomes a single-op ExecuTorch program (exported with the real
`executorch` package) whose reference outputs come from ExecuTorch's own
runtime; our runtime must then match them (integers and bools exactly, floats
within the tolerance of their dtype). Cases live in `cases/<family>.py` as a
module-level `CASES: list[Case]`; one family file per group of ops that share
a mechanism (unary, binary, reductions, ...).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import torch


@dataclass(frozen=True)
class Case:
    op: str  # the out-variant under test, as it appears in the program: "aten::abs.out"
    name: str  # unique within the op: "f32_broadcast", "i64_overflow", "0d"
    fn: Callable[..., Any]  # calls the op on torch tensors: lambda x: torch.abs(x)
    inputs: tuple[torch.Tensor, ...]  # concrete, small (tens of elements), deterministic
    # Ops the exported program may hold besides `op` (ExecuTorch sometimes adds a copy or a view).
    also: tuple[str, ...] = ()
    # Why ExecuTorch's own runtime is expected to refuse this case (a dtype its kernel does not take):
    # then the case passes when our runtime refuses it too, and OPS.md says "not supported by ExecuTorch".
    unsupported_by_executorch: str = ""
    # What the case shows ("broadcast", "0-d", "empty", "negative-dim", "nan", "overflow"...), and how to
    # export and check it: see PRESERVE, SKIP_DIM_ORDER and SHAPE_ONLY.
    tags: tuple[str, ...] = field(default=())
    # Dims made dynamic at export, per input (None or absent: static), as {dim: (name, min, max)}: dims
    # of one name share one torch.export.Dim. The program is exported at every Dim's max (memory is
    # planned for the bound) and run on `inputs`, whose sizes lie within the bounds: both runtimes then
    # resize its DYNAMIC_BOUND tensors. See export.export_program.
    dynamic: tuple[dict[int, tuple[str, int, int]] | None, ...] = ()

    @property
    def id(self) -> str:
        return f"{self.op.replace('::', '.')}-{self.name}"

    def preserved_ops(self) -> tuple[str, ...]:
        """Torch ops (`aten.stack.default`) the export must keep whole instead of decomposing."""
        return tuple(tag.removeprefix(PRESERVE) for tag in self.tags if tag.startswith(PRESERVE))


# Tags that change how a case is exported or checked:
# - `preserve=<torch op overload>`: to_edge decomposes the op unless told to keep it
#   (EdgeCompileConfig.preserve_ops), as a model exported for ExecuTorch may;
# - `skip_dim_order`: the op exists only in programs exported without dim-order ops;
# - `constraint-shape-eval`: an output's size depends on the input values (masked_select, nonzero):
#   to_executorch bounds it by ConstraintBasedSymShapeEvalPass (the size's value range), not by the
#   example's size;
# - `shape-only`: the values are unspecified (rand, empty): only shapes and dtypes are compared;
# - `may-be-unexpressible`: torch.export or to_edge may not express the call in this dtype (a case
#   derived by cases/sweep.py): the exporter then records why (unexpressible.txt) instead of failing.
PRESERVE = "preserve="
SKIP_DIM_ORDER = "skip_dim_order"
SHAPE_ONLY = "shape-only"
CONSTRAINT_SHAPE_EVAL = "constraint-shape-eval"
MAY_BE_UNEXPRESSIBLE = "may-be-unexpressible"


FLOAT_DTYPES = (torch.float32, torch.float64, torch.float16, torch.bfloat16)
INT_DTYPES = (torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64)
ALL_DTYPES = (*FLOAT_DTYPES, *INT_DTYPES, torch.bool)
SHORT = {
    torch.float32: "f32", torch.float64: "f64", torch.float16: "f16", torch.bfloat16: "bf16",
    torch.uint8: "u8", torch.int8: "i8", torch.int16: "i16", torch.int32: "i32", torch.int64: "i64",
    torch.bool: "b", torch.complex32: "c32", torch.complex64: "c64", torch.complex128: "c128",
}  # fmt: skip


def sample(shape: Sequence[int], dtype: torch.dtype, seed: int = 0, low: float = -4, high: float = 4) -> torch.Tensor:
    """Deterministic values of `dtype` in [low, high) (bool: random), the same on every machine."""
    generator = torch.Generator().manual_seed(seed)
    if dtype == torch.bool:
        return torch.randint(0, 2, tuple(shape), generator=generator).to(torch.bool)
    if dtype.is_floating_point:
        return (torch.rand(tuple(shape), generator=generator, dtype=torch.float64) * (high - low) + low).to(dtype)
    info = torch.iinfo(dtype)
    lo, hi = max(int(low), info.min), min(int(high), info.max)
    return torch.randint(lo, hi + 1, tuple(shape), generator=generator, dtype=torch.int64).to(dtype)


def per_dtype(
    op: str, name: str, dtypes: Iterable[torch.dtype], make: Callable[[torch.dtype], Case | None]
) -> list[Case]:
    """One case per dtype, named `<short dtype>_<name>`; `make` returns None to skip a dtype."""
    cases = []
    for dtype in dtypes:
        made = make(dtype)
        if made is not None:
            cases.append(dataclasses.replace(made, op=op, name=f"{SHORT[dtype]}_{name}"))
    return cases
