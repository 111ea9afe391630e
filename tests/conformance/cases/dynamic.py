"""Dynamic shapes: programs exported with torch.export.Dim dims, run at another shape within bounds.

Each case's `dynamic` names, per input, the dims exported as a torch.export.Dim (min, max); the
program is exported at every Dim's max, so its DYNAMIC_BOUND tensors are planned for the bound, and
both runtimes run the case's `inputs`, smaller than the bound, resizing inputs and outs as they go
(export.export_program). Such a program may also read sizes at run time (sym_size) and compute
with them (executorch_prim ops): those are allowed besides the case's op.

Data-dependent output sizes (masked_select with a mask that selects nothing or a broadcast self,
nonzero) are tagged `constraint-shape-eval`: to_executorch bounds them by the size's value range.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch
import torch.nn.functional as F

from tests.conformance.spec import CONSTRAINT_SHAPE_EVAL, Case, sample

Dyn = dict[int, tuple[str, int, int]] | None

# Dim names and bounds shared by the cases.
B = ("batch", 1, 6)
S = ("seq", 1, 8)


def _dyn(
    op: str,
    name: str,
    fn: Callable[..., Any],
    inputs: tuple[torch.Tensor, ...],
    dynamic: tuple[Dyn, ...],
    tags: tuple[str, ...] = (),
    also: tuple[str, ...] = (),
) -> Case:
    return Case(op, name, fn, inputs, also=also, tags=("dynamic", *tags), dynamic=dynamic)


f32 = torch.float32

CASES: list[Case] = [
    # --- element-wise binary with broadcasting ------------------------------------------------------
    _dyn(
        "aten::add.out",
        "f32_dynamic_broadcast",
        torch.add,
        (sample((3, 4), f32), sample((4,), f32, seed=1)),
        ({0: B}, None),
        tags=("broadcast",),
    ),
    _dyn(
        "aten::add.out",
        "f32_dynamic_both",
        torch.add,
        (sample((3, 5), f32), sample((1, 5), f32, seed=1)),
        ({0: B, 1: S}, {1: S}),
        tags=("broadcast",),
    ),
    _dyn(
        "aten::mul.out",
        "i64_dynamic_broadcast",
        torch.mul,
        (sample((2, 3, 1), torch.int64), sample((3, 4), torch.int64, seed=1)),
        ({0: B}, {1: S}),
        tags=("broadcast",),
    ),
    _dyn(
        "aten::where.self_out",
        "f32_dynamic_broadcast",
        torch.where,
        (sample((2, 5), torch.bool), sample((2, 5), f32, seed=1), sample((5,), f32, seed=2)),
        ({0: B, 1: S}, {0: B, 1: S}, {0: S}),
        tags=("broadcast",),
    ),
    # --- reductions ---------------------------------------------------------------------------------
    _dyn(
        "aten::sum.IntList_out",
        "f32_dynamic_keepdim",
        lambda x: torch.sum(x, 1, keepdim=True),
        (sample((3, 5), f32),),
        ({0: B, 1: S},),
    ),
    _dyn(
        "aten::mean.out",
        "f32_dynamic_keepdim",
        lambda x: torch.mean(x, 0, keepdim=True),
        (sample((4, 3), f32),),
        ({0: B},),
    ),
    _dyn(
        "aten::_softmax.out",
        "f32_dynamic",
        lambda x: torch.softmax(x, -1),
        (sample((2, 5), f32),),
        ({0: B, 1: S},),
    ),
    # --- shape ----------------------------------------------------------------------------------------
    _dyn(
        "aten::cat.out",
        "f32_dynamic_other_dim",
        lambda a, b: torch.cat([a, b], 1),
        (sample((3, 2), f32), sample((3, 4), f32, seed=1)),
        ({0: B}, {0: B, 1: S}),
    ),
    _dyn(
        "aten::cat.out",
        "f32_dynamic_cat_dim",
        lambda a, b: torch.cat([a, b], 0),
        (sample((2, 3), f32), sample((3, 3), f32, seed=1)),
        ({0: B}, {0: S}),
    ),
    _dyn(
        "aten::permute_copy.out",
        "f32_dynamic",
        lambda x: x.permute(2, 0, 1),
        (sample((3, 2, 4), f32),),
        ({0: B, 2: S},),
    ),
    _dyn(
        "aten::view_copy.out",
        "f32_dynamic",
        lambda x: x.reshape(x.shape[0], -1),
        (sample((3, 2, 3), f32),),
        ({0: B},),
    ),
    # --- matmul -----------------------------------------------------------------------------------------
    _dyn(
        "aten::mm.out",
        "f32_dynamic",
        torch.mm,
        (sample((3, 4), f32), sample((4, 2), f32, seed=1)),
        ({0: B}, None),
    ),
    _dyn(
        "aten::addmm.out",
        "f32_dynamic",
        torch.addmm,
        (sample((5,), f32, seed=2), sample((3, 4), f32), sample((4, 5), f32, seed=1)),
        ({0: S}, {0: B}, {1: S}),
        tags=("broadcast",),
    ),
    _dyn(
        "aten::bmm.out",
        "f32_dynamic",
        torch.bmm,
        (sample((2, 3, 4), f32), sample((2, 4, 3), f32, seed=1)),
        ({0: B, 1: S}, {0: B}),
    ),
    # --- indexing ---------------------------------------------------------------------------------------
    _dyn(
        "aten::index_select.out",
        "f32_dynamic",
        lambda x, i: torch.index_select(x, 0, i),
        (sample((3, 4), f32), torch.tensor([2, 0, 2, 1, 0])),
        ({0: B}, {0: S}),
    ),
    _dyn(
        "aten::embedding.out",
        "f32_dynamic",
        lambda w, i: F.embedding(i, w),
        (sample((7, 3), f32), torch.tensor([[6, 0, 3], [2, 2, 5]])),
        (None, {0: B, 1: S}),
    ),
    # --- convolution and normalization --------------------------------------------------------------
    _dyn(
        "aten::convolution.out",
        "f32_dynamic_batch",
        lambda x, w, b: F.conv2d(x, w, b, padding=1),
        (sample((3, 2, 5, 5), f32), sample((3, 2, 3, 3), f32, seed=1), sample((3,), f32, seed=2)),
        ({0: B}, None, None),
    ),
    _dyn(
        "aten::native_layer_norm.out",
        "f32_dynamic",
        lambda x, w, b: torch.ops.aten.native_layer_norm(x, [6], w, b, 1e-5),
        (sample((2, 3, 6), f32), sample((6,), f32, seed=1), sample((6,), f32, seed=2)),
        ({0: B, 1: S}, None, None),
    ),
]

# --- data-dependent output sizes --------------------------------------------------------------------
MSELECT = "aten::masked_select.out"
NONZERO = "aten::nonzero.out"
NO_MASK = torch.zeros((3, 4), dtype=torch.bool)
CASES += [
    Case(
        MSELECT,
        "f32_selects_nothing",
        torch.masked_select,
        (sample((3, 4), f32), NO_MASK),
        tags=(CONSTRAINT_SHAPE_EVAL, "empty"),
    ),
    # torch's fake masked_select bounds the selected count by self's numel, not the broadcast shape's:
    # the program plans the out for 4 elements where 8 are selected.
    Case(
        MSELECT,
        "f32_broadcast_self",
        torch.masked_select,
        (sample((1, 4), f32), sample((3, 4), torch.bool, seed=1)),
        tags=(CONSTRAINT_SHAPE_EVAL, "broadcast"),
        unsupported_by_executorch="the export bounds the out by self's numel, smaller than the broadcast shape's",
    ),
    Case(
        MSELECT,
        "i32_broadcast_mask",
        torch.masked_select,
        (sample((3, 4), torch.int32), sample((1, 4), torch.bool, seed=2)),
        tags=(CONSTRAINT_SHAPE_EVAL, "broadcast"),
    ),
    Case(
        NONZERO,
        "f32_data_dependent",
        torch.nonzero,
        (sample((3, 4), f32, low=-1, high=2).round(),),
        tags=(CONSTRAINT_SHAPE_EVAL,),
    ),
    Case(
        NONZERO,
        "i64_none",
        torch.nonzero,
        (torch.zeros((2, 3), dtype=torch.int64),),
        tags=(CONSTRAINT_SHAPE_EVAL, "empty"),
    ),
    Case(NONZERO, "b_3d", torch.nonzero, (sample((2, 2, 3), torch.bool, seed=3),), tags=(CONSTRAINT_SHAPE_EVAL,)),
]
