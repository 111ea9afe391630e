"""Kernel resolution: which library kernels a selection registers."""

from __future__ import annotations

from dataclasses import dataclass

from bot.selection.kernel_library import KernelEntry
from bot.selection.oplist import SelectedOps


class ResolveError(ValueError):
    pass


@dataclass(frozen=True)
class Resolution:
    kernels: tuple[KernelEntry, ...]  # to register, sorted by op
    left_out: tuple[str, ...]  # library ops not selected
    # Kernels a preferred (optimized) kernel replaced: compiled, not registered; the
    # preferred kernel hands them the cases it does not take.
    fallbacks: tuple[KernelEntry, ...] = ()


def resolve(library: dict[str, KernelEntry], selection: SelectedOps) -> Resolution:
    """Every selected op must have a kernel; unselected kernels are left out.

    Only what the selection names is registered: ops that kernels reach
    through the dispatcher must be in the selection too (tracing puts them
    there), otherwise the runtime refuses the model at load. The prim ops are
    no exception: their kernels are a library of their own (kernels/prim).
    """
    if selection.include_all_operators:
        return Resolution(tuple(library[op] for op in sorted(library)), ())
    missing = sorted(op for op in selection.operators if op not in library)
    if missing:
        more = f" (and {len(missing) - 1} more: {', '.join(missing[1:])})" if len(missing) > 1 else ""
        users = ", ".join(selection.operators[missing[0]].models()) or "the selection"
        raise ResolveError(f"no kernel library implements {missing[0]} (selected by {users}){more}")
    chosen = tuple(library[op] for op in sorted(selection.operators) if op in library)
    left_out = tuple(sorted(set(library) - set(selection.operators)))
    return Resolution(chosen, left_out)
