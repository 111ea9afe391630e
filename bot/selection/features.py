"""Which of the core's optional parts a program needs (native/core/src/features.h).

A selective runtime compiles in only the parts some program of its target needs, as it compiles only
the ops they call: the bot reads each model's .pte here and builds the target's runtime with the union.
A program that needs a part its runtime lacks is refused at load in one line naming the part, so a
wrong answer here is a load failure in the report, never a wrong result.

- `external_data`: data kept outside the .pte (a .ptd file); known from the model's data files
  (bot/feeds.py), which its runs are given.
- `dynamic_lists`: an int list holding an item written while the method runs (a size a prim op
  computes, a moved value, an input): the runtime re-reads such lists before each call that takes one.
- `dim_orders`: a tensor in another dim order than the contiguous one (channels-last).
- `control_flow`: a move or jump instruction (what ExecuTorch emits for torch.cond and loops).
- `inline_constants`: constants stored inside the flatbuffer (Program.constant_buffer), as older
  exports wrote them, rather than in the constant segment after it.
- `mutable_data`: mutable state with an initial value stored in the program (ExecuTorch's
  mutable_data_segments), copied into planned memory at load.

The answer errs towards keeping a part: a call whose last argument is a scalar counts as writing it,
whether or not its op returns there.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from bot.safety.limits import DEFAULT_LIMITS
from bot.selection import pte

EXTERNAL_DATA = "external_data"
DYNAMIC_LISTS = "dynamic_lists"
DIM_ORDERS = "dim_orders"
CONTROL_FLOW = "control_flow"
INLINE_CONSTANTS = "inline_constants"
MUTABLE_DATA = "mutable_data"
# The CMake option of each part: ON when a program of the runtime's target needs it.
CMAKE_OPTIONS = {
    EXTERNAL_DATA: "SB_EXTERNAL_DATA",
    DYNAMIC_LISTS: "SB_DYNAMIC_LISTS",
    DIM_ORDERS: "SB_DIM_ORDERS",
    CONTROL_FLOW: "SB_CONTROL_FLOW",
    INLINE_CONSTANTS: "SB_INLINE_CONSTANTS",
    MUTABLE_DATA: "SB_MUTABLE_DATA",
}
ALL = frozenset(CMAKE_OPTIONS)

_INT_LIST = pte.VALUE_KINDS.index("IntList")
_TENSOR = pte.VALUE_KINDS.index("Tensor")
_SCALARS = {pte.VALUE_KINDS.index(kind) for kind in ("Int", "Bool", "Double")}
_KERNEL_CALL = pte.INSTRUCTION_KINDS.index("KernelCall")
_MOVE_CALL = pte.INSTRUCTION_KINDS.index("MoveCall")
_JUMP_FALSE_CALL = pte.INSTRUCTION_KINDS.index("JumpFalseCall")


def _plan_has_dynamic_lists(r: pte.FlatReader, plan: pte.Table) -> bool:
    values = r.tables(plan, 2)
    kinds = [int(r.scalar(value, 0, "B")) for value in values]
    written = set(r.ints(plan, 3))  # the inputs: set_input may give a scalar input another value
    for chain in r.tables(plan, 5)[:1]:  # the runtime runs chain 0
        for ins in r.tables(chain, 2):
            kind = int(r.scalar(ins, 0, "B"))
            args = r.table(ins, 1)
            if kind == _MOVE_CALL:
                written.add(int(r.scalar(args, 1, "i")) if args is not None else 0)
            elif kind == _KERNEL_CALL:
                passed = r.ints(args, 1)
                if passed and 0 <= passed[-1] < len(kinds) and kinds[passed[-1]] in _SCALARS:
                    written.add(passed[-1])
    for value, kind in zip(values, kinds, strict=True):
        if kind == _INT_LIST and not written.isdisjoint(r.ints(r.table(value, 1), 0, "q")):
            return True
    return False


def _plan_has_dim_orders(r: pte.FlatReader, plan: pte.Table) -> bool:
    for value in r.tables(plan, 2):
        if int(r.scalar(value, 0, "B")) == _TENSOR:
            order = r.ints(r.table(value, 1), 3, "B")
            if any(d != k for k, d in enumerate(order)):
                return True
    return False


def _plan_has_control_flow(r: pte.FlatReader, plan: pte.Table) -> bool:
    for chain in r.tables(plan, 5)[:1]:
        if any(int(r.scalar(ins, 0, "B")) in (_MOVE_CALL, _JUMP_FALSE_CALL) for ins in r.tables(chain, 2)):
            return True
    return False


def needed(data: bytes) -> frozenset[str]:
    """The optional parts the program in `data` (its flatbuffer) needs, for any of its methods."""
    pte.parse(data)  # a file that is not a program: one error line, as every reader of a .pte gives
    r = pte.FlatReader(data)
    root = r.root()
    parts = set()
    if r.vector(root, 6, 4)[1]:
        parts.add(MUTABLE_DATA)
    # Without constant segment offsets, the runtime reads constants from constant_buffer.
    if not r.vector(r.table(root, 5), 1, 8)[1] and any(r.vector(b, 0, 1)[1] for b in r.tables(root, 2)):
        parts.add(INLINE_CONSTANTS)
    plans = r.tables(root, 1)
    if any(_plan_has_dynamic_lists(r, plan) for plan in plans):
        parts.add(DYNAMIC_LISTS)
    if any(_plan_has_dim_orders(r, plan) for plan in plans):
        parts.add(DIM_ORDERS)
    if any(_plan_has_control_flow(r, plan) for plan in plans):
        parts.add(CONTROL_FLOW)
    return frozenset(parts)


def needed_by(models: Iterable[Path], limit: int = DEFAULT_LIMITS.model_bytes) -> frozenset[str]:
    """The union of what the programs at `models` need."""
    parts: set[str] = set()
    for model in models:
        data = pte.read_flatbuffer(model, limit)
        try:
            parts |= needed(data)
        except pte.PteError as exc:
            raise pte.PteError(f"{model}: {exc}") from None
    return frozenset(parts)
