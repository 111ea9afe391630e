"""Stale-yaml detection: what a checked-in selection lacks or wastes, and why."""

from __future__ import annotations

from collections.abc import Iterable

from bot.report.model import Cause, DtypeChange, OpUse, SelectionDiff
from bot.selection.oplist import SelectedOps


def _dtypes(sel: SelectedOps, op: str) -> tuple[str, ...] | None:
    found = sel.dtypes(op)
    return None if found is None else tuple(sorted(found))


def diff(checked_in: SelectedOps, regenerated: SelectedOps) -> SelectionDiff:
    if checked_in.include_all_operators:
        return SelectionDiff()
    missing = tuple(
        OpUse(name, tuple(sorted(op.models())), tuple(sorted(op.callers())))
        for name, op in sorted(regenerated.operators.items())
        if name not in checked_in.operators
    )
    unused = tuple(
        OpUse(name, tuple(sorted(op.models())), tuple(sorted(op.callers())))
        for name, op in sorted(checked_in.operators.items())
        if name not in regenerated.operators
    )
    changes = tuple(
        DtypeChange(name, before, after)
        for name in sorted(set(checked_in.operators) & set(regenerated.operators))
        if (before := _dtypes(checked_in, name)) != (after := _dtypes(regenerated, name))
    )
    return SelectionDiff(missing, unused, changes)


def causes(
    selection_diff: SelectionDiff,
    changed_files: Iterable[str],
    model_paths: Iterable[str],
    kernel_files: dict[str, str],
) -> tuple[Cause, ...]:
    """Why the selection changed, from the files the PR touched.

    `kernel_files` maps op name to the source file of its kernel.
    """
    changed = set(changed_files)
    found: list[Cause] = []
    for model in sorted(set(model_paths) & changed):
        ops = tuple(m.op for m in selection_diff.missing if model in m.models)
        found.append(Cause("model", model, f"model {model} changed", ops))
    # A kernel whose source changed explains the ops it now reaches (missing)
    # and the ops it no longer reaches (unused).
    for label, uses in (("now calls", selection_diff.missing), ("no longer calls", selection_diff.unused)):
        by_caller: dict[str, list[str]] = {}
        for use in uses:
            for caller in use.callers:
                by_caller.setdefault(caller, []).append(use.op)
        for caller, ops in sorted(by_caller.items()):
            source = kernel_files.get(caller)
            if source in changed:
                detail = f"kernel {caller} ({source}) {label} {', '.join(sorted(ops))}"
                found.append(Cause("kernel", source, detail, tuple(sorted(ops)), kernel=caller, change=label))
    return tuple(found)
