"""What `python -m bot pr` prints: a few lines per target for a terminal, or JSON for scripts.

Both read the report and its verdict; PR-controlled names are made plain and redacted by the caller's
`safe` before they reach a terminal (rich markup escaped too).
"""

from __future__ import annotations

from collections.abc import Callable

from rich.markup import escape

from bot.report.comment import TOP_MOVERS, Row, changes, choice_cost, kernels_phrase, rows
from bot.report.escape import plain
from bot.report.model import LoadFailure, PrReport, SizeReport
from bot.report.verdict import Verdict

MESSAGE_LIMIT = 400  # characters of a model's error line


def lines(report: PrReport, verdict: Verdict, safe: Callable[[str], str]) -> list[str]:
    """Rich markup, one line per target and per runtime."""
    out = []
    for target in report.targets:
        name = escape(safe(plain(target.name)))
        out.append(f"  {name}:" + ("  [yellow]stale yaml[/yellow]" if target.diff.stale else ""))
        for sizes in target.sizes:
            if sizes.build_error:
                shown = "[red]head build failed: size unknown[/red]"
            else:
                shown = f"{sizes.head.vm_size:,} VM bytes" if sizes.head else "not built"
                if sizes.base_error:
                    shown += " [yellow](base build failed: change unknown)[/yellow]"
                else:
                    shown += f" ({sizes.delta:+,})" if sizes.delta is not None else " (new)"
                if verdict.over(target.name, sizes.arch):
                    shown += "  [red]over budget[/red]"
                elif verdict.warned(target.name, sizes.arch):
                    shown += "  [yellow]over the warn level[/yellow]"
                cost = choice_cost(sizes)
                if cost:
                    phrase = kernels_phrase(sizes.kernels, sizes.cpu)
                    shown += "  " + escape(safe(plain(f"{phrase}: {cost}")))
            out.append(f"    {escape(safe(plain(sizes.arch)))}: {shown}")
    out += _failures(report, safe)
    return out


def _failures(report: PrReport, safe: Callable[[str], str]) -> list[str]:
    """Each model the tracer could not run, and each failing at load whatever the yaml: its error line,
    then, when regenerating cannot fix it (report/model.py decides), what does."""

    def shown(value: str, limit: int = MESSAGE_LIMIT) -> str:
        return escape(safe(plain(value, limit)))

    found = [("could not trace", f) for f in report.model_failures]
    untraced = {f.model for f in report.model_failures}
    found += [
        (f"{plain(t.name)}: fails at load", f)
        for t in report.targets
        for f in t.load_failures
        if f.cannot_fix is not None and f.model not in untraced
    ]
    out = []
    for what, failure in found:
        out.append(f"  [red]{shown(what)}[/red] {shown(failure.model)}: {shown(failure.message)}")
        why = failure.cannot_fix
        if why is not None:
            out.append(f"    {shown(why.line)}")
    return out


def _side(size: SizeReport | None) -> dict[str, object] | None:
    if size is None:
        return None
    return {"vm_size": size.vm_size, "bss": size.bss, "file_size": size.file_size, "sections": dict(size.sections)}


def _arch_json(r: Row) -> dict[str, object]:
    s = r.sizes
    both = s.base is not None and s.head is not None
    movers = {
        key: [{"name": n, "delta": d} for n, d in changes(getattr(s.base, field), getattr(s.head, field))[:TOP_MOVERS]]
        if both
        else []
        for key, field in (("top_ops", "per_op"), ("top_symbols", "symbols"))
    }
    return {
        "arch": s.arch,
        "base": _side(s.base),
        "head": _side(s.head),
        "delta": s.delta,
        "budget": r.budget,
        "over_budget": r.over_budget,
        "warned": r.warned,
        "build_error": s.build_error.split("\n", 1)[0],
        "kernels": s.kernels,
        "cpu": s.cpu,
        "base_kernels": s.base_kernels,
        "base_cpu": s.base_cpu,
        "portable_vm_size": s.portable.vm_size if s.portable else None,
        "choice_cost": s.optimized_cost,
        **movers,
    }


def _failure_json(failure: LoadFailure) -> dict[str, object]:
    why = failure.cannot_fix
    return {"model": failure.model, "message": failure.message, "cannot_fix": why.line if why else None}


def to_json(report: PrReport, verdict: Verdict) -> dict[str, object]:
    """What scripts need, without the markdown. Sizes are VM bytes."""
    by_target: dict[str, list[Row]] = {}
    judged = {(r.target.name, r.sizes.arch): r for r in rows(report, verdict)}
    for t in report.targets:
        by_target[t.name] = [judged[(t.name, s.arch)] for s in t.sizes]  # in config order
    return {
        "passed": verdict.passed,
        "verdict": verdict.outcome,
        "failures": [r.message for r in verdict.failures],
        "waived": [r.message for r in verdict.waived],
        "warnings": [r.message for r in verdict.warnings],
        "base": report.base_sha,
        "head": report.head_sha,
        "stale": report.stale,
        "size_delta": report.size_delta,
        "stale_files": list(report.stale_files),
        "build_error": report.build_error.split("\n", 1)[0],
        "model_failures": [_failure_json(f) for f in report.model_failures],
        "targets": [
            {
                "name": t.name,
                "yaml": t.yaml,
                "stale": t.diff.stale or not t.yaml_exists,
                "yaml_error": t.yaml_error,
                "missing": [m.op for m in t.diff.missing],
                "unused": [u.op for u in t.diff.unused],
                "load_failures": [_failure_json(f) for f in t.load_failures],
                "causes": [c.detail for c in t.causes],
                "sizes": [_arch_json(r) for r in by_target.get(t.name, [])],
                "over_budget": any(r.over_budget for r in by_target.get(t.name, [])),
                "build_error": t.build_error.split("\n", 1)[0],
            }
            for t in report.targets
        ],
    }
