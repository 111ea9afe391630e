"""The dtype sweep: every op with cases gets one case in each dtype (OPS.md column) it has none in.

Each derived case, `<short dtype>_sweep`, comes from one existing case of the op (its template: a
case of the op's first dtype in OPS.md's column order, preferring an ordinary one over NaN, empty,
0-d or overflow cases) by converting it to the target dtype:
- the template's inputs of its own dtype carry the op's dtype and are converted; inputs of another
  dtype (int64 indices, bool masks, a float grid of an integer op) keep theirs;
- converted values stay valid in the target dtype: integers round and saturate, unsigned ones take
  the magnitude, bool is `value > 0`; NaN and infinities become 0;
- a dtype the template's call names (`torch.arange(5, dtype=torch.float32)`) becomes the target
  dtype too, so factories (arange, rand, empty) sweep as well as element-wise ops.

The export then decides each cell by ExecuTorch's own verdicts: its runtime computes the case
(reference outputs), or refuses it (refused.txt: "ET n/a"), or torch.export / to_edge cannot
express the call in that dtype at all (tag `may-be-unexpressible`: unexpressible.txt holds the
one-line reason, OPS.md says "no program").

`SEEDS` are cases for the ops that have none elsewhere (ops that no program holds as such, e.g.
empty.out, which to_edge always lowers to _empty_dim_order): the sweep derives their other dtypes
too, and the export records for each why no program holds it.
"""

from __future__ import annotations

import dataclasses
import importlib
from collections.abc import Callable
from typing import Any

import torch
from torch.overrides import TorchFunctionMode

from tests.conformance.layout import CASES_DIR, DTYPES, families
from tests.conformance.spec import ALL_DTYPES, MAY_BE_UNEXPRESSIBLE, SHORT, Case, sample

NAME = "sweep"
THIS = __name__.rsplit(".", 1)[-1]
BY_SHORT = {short: dtype for dtype, short in SHORT.items()}
# Cases that show an edge rather than the op's ordinary behaviour: a last resort as templates.
EDGE_TAGS = frozenset({"nan", "inf", "empty", "0-d", "overflow", "random"})
# Per-op template choice where the ordinary one cannot carry other dtypes: ExecuTorch's
# mean.dtype_out takes integer and bool inputs only with a floating dtype= (as ATen's mean).
TEMPLATE = {"aten::mean.dtype_out": "f32_to_f64"}
# Ops whose dtypes are being settled with their kernels (their own families decide them).
LEFT_OUT: frozenset[str] = frozenset()
# Families that cover their ops' dtypes themselves: the quantized ops pair their dtypes (a float input, an
# integer output, scales of a third), and ExecuTorch's quantized kernels abort the process instead of
# refusing most swept combinations, so no reference could be had for them.
LEFT_OUT_FAMILIES = frozenset({"quantized"})
# More templates, derived into more dtypes, where one derived case cannot show a dtype's semantics: ExecuTorch's
# integer grid_sampler_2d evaluates each padding mode's formulas in the integer type itself.
EXTRA: dict[str, tuple[tuple[str, ...], tuple[torch.dtype, ...]]] = {
    "aten::grid_sampler_2d.out": (
        ("f32_nearest_reflection", "f32_bicubic_border_ac", "f32_bilinear_reflection_ac", "f32_bicubic_zeros"),
        (torch.uint8, torch.int8, torch.int64),
    ),
}


class _DtypeSwap(TorchFunctionMode):
    """Within the call: every dtype argument equal to `src` becomes `dst`."""

    def __init__(self, src: torch.dtype, dst: torch.dtype) -> None:
        super().__init__()
        self.src, self.dst = src, dst

    def __torch_function__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        args = tuple(self.dst if a is self.src else a for a in args)
        kwargs = {k: (self.dst if v is self.src else v) for k, v in (kwargs or {}).items()}
        return func(*args, **kwargs)


def _swapped(fn: Callable[..., Any], src: torch.dtype, dst: torch.dtype) -> Callable[..., Any]:
    def call(*args: Any) -> Any:
        with _DtypeSwap(src, dst):
            return fn(*args)

    return call


def convert(t: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """`t`'s values in `dtype`, kept valid there (see the module docstring)."""
    v = t.detach().to(torch.float64)
    v = torch.where(torch.isfinite(v), v, torch.zeros_like(v))
    if dtype == torch.bool:
        return v > 0
    if dtype.is_floating_point:
        return v.to(dtype)
    info = torch.iinfo(dtype)
    v = v.round()
    if info.min == 0:
        v = v.abs()
    return v.clamp(info.min, info.max).to(dtype)


def derive(template: Case, dtype: torch.dtype, suffix: str = "") -> Case:
    """`template` in `dtype`, named `<short dtype>_sweep` (then `_<suffix>`)."""
    src = BY_SHORT[column(template)]
    inputs = tuple(convert(t, dtype) if t.dtype == src else t.clone() for t in template.inputs)
    tags = (*(tag for tag in template.tags if tag != MAY_BE_UNEXPRESSIBLE), MAY_BE_UNEXPRESSIBLE)
    return dataclasses.replace(
        template,
        name=f"{SHORT[dtype]}_{NAME}" + (f"_{suffix}" if suffix else ""),
        fn=_swapped(template.fn, src, dtype),
        inputs=inputs,
        unsupported_by_executorch="",
        tags=tags,
    )


def _rank(case: Case) -> tuple[int, int, int, int, int]:
    """Lower is a better template: a case ExecuTorch computes, of the first column, not an edge case."""
    prefix = case.name.split("_", 1)[0]
    column = DTYPES.index(prefix) if prefix in DTYPES else len(DTYPES)
    edges = len(EDGE_TAGS.intersection(case.tags))
    refused = 1 if case.unsupported_by_executorch else 0
    return (refused, column, edges, 0 if "basic" in case.name else 1, len(case.name))


def template_for(op: str, cases: list[Case]) -> Case | None:
    """The case the op's other dtypes derive from: only a case of a real or bool dtype (OPS.md's columns)."""
    named = [c for c in cases if c.name == TEMPLATE.get(op)]
    real = [c for c in cases if column(c) in DTYPES and not any(t.is_complex() for t in c.inputs)]
    return named[0] if named else min(real, key=_rank) if real else None


def column(case: Case) -> str:
    prefix = case.name.split("_", 1)[0]
    if prefix in DTYPES:
        return prefix
    return SHORT.get(case.inputs[0].dtype, "") if case.inputs else "f32"


# --- seeds: ops that no other family has a case for ----------------------------------------------
F32 = torch.float32
A = torch.ops.aten


def seed(op: str, fn: Callable[..., Any], *inputs: torch.Tensor, tags: tuple[str, ...] = ()) -> Case:
    return Case(op, "f32_seed", fn, inputs, tags=(*tags, MAY_BE_UNEXPRESSIBLE))


def _bn_legit(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor, m: torch.Tensor, v: torch.Tensor) -> Any:
    return A._native_batch_norm_legit.default(x, w, b, m, v, True, 0.1, 1e-5)


def _device_copy(name: str) -> Callable[[torch.Tensor], Any]:
    """et_copy::_h2d_copy / _d2h_copy: the ops ExecuTorch inserts at device boundaries (its registry
    defines them; on the host they copy)."""

    def call(x: torch.Tensor) -> Any:
        import executorch.exir.passes._device_copy_ops_registry  # noqa: F401  (defines torch.ops.et_copy)

        return getattr(torch.ops.et_copy, name).default(x)

    return call


SEEDS: list[Case] = [
    seed("aten::empty.out", lambda: torch.empty(2, 3, dtype=F32), tags=("shape-only",)),
    seed("aten::lift_fresh_copy.out", lambda x: A.lift_fresh_copy.default(x), sample((2, 3), F32)),
    seed("aten::nonzero.out", lambda x: torch.nonzero(x), sample((2, 3), F32, low=-1, high=1)),
    seed("aten::index_put_", lambda x, i, v: x.index_put_((i,), v), sample((4, 3), F32), torch.tensor([2, 0]),
         sample((2, 3), F32, seed=1)),
    seed("aten::_native_batch_norm_legit.out", _bn_legit, sample((2, 3, 2), F32), sample((3,), F32, 1),
         sample((3,), F32, 2), sample((3,), F32, 3), sample((3,), F32, 4, 0.5, 2)),
    seed("et_copy::_h2d_copy.out", _device_copy("_h2d_copy"), sample((2, 3), F32),
         tags=("preserve=et_copy._h2d_copy.default",)),
    seed("et_copy::_d2h_copy.out", _device_copy("_d2h_copy"), sample((2, 3), F32),
         tags=("preserve=et_copy._d2h_copy.default",)),
]  # fmt: skip


def _other_cases() -> list[Case]:
    """The other families' cases, and the seeds of the ops they have none for."""
    found: list[Case] = []
    for family in families(CASES_DIR):
        if family != THIS and family not in LEFT_OUT_FAMILIES:
            found += importlib.import_module(f"tests.conformance.cases.{family}").CASES
    have = {case.op for case in found}
    return [seed for seed in SEEDS if seed.op not in have] + found


def sweep(cases: list[Case]) -> list[Case]:
    by_op: dict[str, list[Case]] = {}
    for case in cases:
        by_op.setdefault(case.op, []).append(case)
    derived = []
    for op, op_cases in sorted(by_op.items()):
        have = {column(c) for c in op_cases}
        # A seed stays its op's template when another family has cases for the op too (they may change).
        template = next((c for c in SEEDS if c.op == op), None) or template_for(op, op_cases)
        if template is None or op in LEFT_OUT:
            continue
        derived += [derive(template, d) for d in ALL_DTYPES if SHORT[d] not in have]
        names, dtypes = EXTRA.get(op, ((), ()))
        for extra in (c for c in op_cases if c.name in names):
            derived += [derive(extra, d, extra.name.split("_", 1)[1]) for d in dtypes]
    return derived


_ALL = _other_cases()
_USED = {id(case) for case in _ALL}
CASES: list[Case] = [seed for seed in SEEDS if id(seed) in _USED] + sweep(_ALL)
