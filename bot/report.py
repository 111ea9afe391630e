"""Renders a PrReport as GitHub-flavoured markdown (the sticky comment, the job
summary, the local report file).

Everything that comes from the PR (op, model and file names, build log
lines) goes through `text` or `code`, which make it inert: no HTML, no
links or images, no @-mentions, no breaking out of tables or code.
"""

from __future__ import annotations

import html

from bot.pipeline import PrReport, TargetReport

MARKER = "<!-- selective-build-report -->"
COMMENT_LIMIT = 65_536
FIX_COMMAND = "python -m bot regenerate"
TOP_SYMBOLS = 10

_MARKDOWN_SPECIAL = set("\\`*_{}[]()<>#+-.!|~=:")


def text(value: object) -> str:
    """PR-controlled text as inert markdown: entities for HTML and @, escapes for markdown."""
    out = []
    for ch in " ".join(str(value).split()):
        if ch in "&<>\"'":
            out.append(html.escape(ch, quote=True))
        elif ch == "@":
            out.append("&#64;&#8203;")  # a zero-width space after @: never a mention
        elif ch in _MARKDOWN_SPECIAL:
            out.append("\\" + ch)
        else:
            out.append(ch)
    return "".join(out)


def code(value: object) -> str:
    """PR-controlled text in monospace. <code> with entities, since a backtick in
    the value could close a markdown code span."""
    escaped = html.escape(" ".join(str(value).split()), quote=True)
    escaped = escaped.replace("@", "&#64;&#8203;").replace("|", "&#124;").replace("`", "&#96;")
    return "<code>" + escaped + "</code>"


def _bytes(n: int | None) -> str:
    if n is None:
        return "n/a"
    return f"{n:,}"


def _delta(base: int | None, head: int | None) -> tuple[str, str]:
    if base is None or head is None:
        return "new" if base is None and head is not None else "n/a", "n/a"
    change = head - base
    arrow = "▲" if change > 0 else "▼" if change < 0 else ""
    pct = f"{change / base:+.2%}" if base else "n/a"
    return f"{arrow} {change:+,}".strip(), pct


def summary_line(report: PrReport) -> str:
    stale = [t for t in report.targets if t.diff.stale or not t.yaml_exists]
    broken = [t for t in report.targets if t.load_failures]
    total_base = sum(t.base.stripped for t in report.targets if t.base and t.head)
    delta = report.size_delta
    size_part = "no size change" if delta == 0 else f"size {'▲' if delta > 0 else '▼'} {delta:+,} bytes"
    if total_base and delta:
        size_part += f" ({delta / total_base:+.2%})"
    new = [t for t in report.targets if t.base is None and t.head is not None]
    parts = [f"{len(report.targets)} target(s)", size_part]
    if new:
        parts.append(f"{len(new)} new target(s) of {sum(t.head.stripped for t in new if t.head):,} bytes")
    if stale:
        parts.append(f"{len(stale)} stale yaml")
    if broken:
        parts.append(f"{len(broken)} target(s) fail at load")
    if report.build_error:
        return "❌ the head's kernels do not build: nothing else could be checked"
    if not stale and not broken and not new and delta == 0:
        return "✅ **No change**: " + ", ".join(parts)
    icon = "❌" if broken else "⚠️" if stale else "📦"
    return f"{icon} " + ", ".join(parts)


def _stale_section(report: PrReport) -> list[str]:
    lines: list[str] = []
    for t in report.targets:
        if not (t.diff.stale or t.load_failures or not t.yaml_exists):
            continue
        lines.append(f"#### {text(t.name)}: {code(t.yaml)}")
        if not t.yaml_exists:
            lines.append(f"- the yaml does not exist yet: create it with `{FIX_COMMAND}`")
        for failure in t.load_failures:
            lines.append(
                f"- ❌ **this PR breaks {code(failure.model)} at load unless the yaml is regenerated**: "
                f"{text(failure.message)}"
            )
        for model in t.models_without_yaml:
            lines.append(f"- new model {code(model)} has no ops in the checked-in yaml")
        for m in t.diff.missing:
            via = f", called by {', '.join(code(c) for c in m.callers)}" if m.callers else ""
            users = ", ".join(code(u) for u in m.models)
            lines.append(f"- missing {code(m.op)} (needed by {users}{via}): fails at load")
        for u in t.diff.unused:
            lines.append(f"- unused {code(u.op)}: wastes bytes")
        for c in t.diff.dtype_changes:
            before = ", ".join(c.before) if c.before is not None else "all"
            after = ", ".join(c.after) if c.after is not None else "all"
            lines.append(f"- dtypes of {code(c.op)}: {text(before)} → {text(after)}")
        for cause in t.causes:
            if cause.kind == "kernel":
                ops = ", ".join(code(op) for op in cause.ops)
                lines.append(f"- cause: kernel {code(cause.kernel)} ({code(cause.path)}) {cause.change} {ops}")
            else:
                lines.append(f"- cause: model {code(cause.path)} changed")
        lines.append("")
    if lines:
        lines = ["### Stale yaml", "", *lines, f"Fix: run `{FIX_COMMAND}` and commit the result.", ""]
    return lines


def _graph_section(report: PrReport) -> list[str]:
    lines: list[str] = []
    for label, edges in (("new", report.graph_added), ("removed", report.graph_removed)):
        for e in edges:
            via = f" via {code(e.via_name)}" if e.via_name else ""
            lines.append(f"- {label}: {code(e.caller)} → {code(e.callee)} ({code(e.source)}{via})")
    for t in report.targets:
        for c in t.closure_changes:
            parts = []
            if c.added:
                parts.append("now reaches " + ", ".join(code(op) for op in c.added))
            if c.removed:
                parts.append("no longer reaches " + ", ".join(code(op) for op in c.removed))
            lacking = (
                "; ⚠️ the checked-in yaml lacks " + ", ".join(code(op) for op in c.lacking)
                if c.lacking
                else "; the checked-in yaml covers it"
            )
            lines.append(f"- {text(t.name)}: {code(c.model)} {' and '.join(parts)}{lacking}")
    if not lines:
        return []
    return ["### Op graph changes (static, from the compiled kernels)", "", *lines, ""]


def _not_traced(report: PrReport) -> list[str]:
    rows = [(t.name, n) for t in report.targets for n in t.not_traced]
    if not rows:
        return []
    lines = ["<details><summary>Reachable, not traced: ops a model can reach that no traced run reached</summary>", ""]
    for target, n in rows:
        lines.append(f"- {text(target)}: {code(n.model)}: " + ", ".join(code(op) for op in n.ops))
    return [*lines, "", "</details>", ""]


def _size_table(report: PrReport) -> list[str]:
    lines = ["### Sizes", "", "| target | base | head | Δ bytes | Δ % | budget |", "|---|---:|---:|---:|---:|---:|"]
    for t in report.targets:
        base = t.base.stripped if t.base else None
        head = t.head.stripped if t.head else None
        delta, pct = _delta(base, head)
        budget = "n/a" if t.budget is None else (f"{'❌ over' if t.over_budget else '✅'} {t.budget:,}")
        lines.append(f"| {text(t.name)} | {_bytes(base)} | {_bytes(head)} | {delta} | {pct} | {budget} |")
    return [*lines, ""]


def _breakdown(t: TargetReport) -> list[str]:
    if t.head is None:
        return []
    base_sections = t.base.sections if t.base else {}
    base_ops = t.base.per_op if t.base else {}
    base_syms = t.base.symbols if t.base else {}
    lines = [f"<details><summary>{text(t.name)}: sections, per operator, top symbols</summary>", ""]
    lines += ["| section | base | head | Δ |", "|---|---:|---:|---:|"]
    for name in sorted(set(base_sections) | set(t.head.sections)):
        b, h = base_sections.get(name), t.head.sections.get(name)
        lines.append(f"| {code(name)} | {_bytes(b)} | {_bytes(h)} | {_delta(b, h)[0]} |")
    lines += ["", "| operator | base | head | Δ |", "|---|---:|---:|---:|"]
    ops = sorted(set(base_ops) | set(t.head.per_op), key=lambda o: -abs(t.head.per_op.get(o, 0) - base_ops.get(o, 0)))
    for op in ops:
        b, h = base_ops.get(op), t.head.per_op.get(op)
        lines.append(f"| {code(op)} | {_bytes(b)} | {_bytes(h)} | {_delta(b, h)[0]} |")
    changes = {
        name: t.head.symbols.get(name, 0) - base_syms.get(name, 0)
        for name in set(base_syms) | set(t.head.symbols)
        if t.head.symbols.get(name, 0) != base_syms.get(name, 0)
    }
    if changes:
        lines += ["", "| top symbol changes | Δ bytes |", "|---|---:|"]
        for name, change in sorted(changes.items(), key=lambda kv: (-abs(kv[1]), kv[0]))[:TOP_SYMBOLS]:
            lines.append(f"| {code(name)} | {change:+,} |")
    return [*lines, "", "</details>", ""]


def _chart(report: PrReport) -> list[str]:
    measured = [t for t in report.targets if t.head]
    if not measured:
        return []
    names = ", ".join('"' + "".join(ch for ch in t.name if ch.isalnum() or ch in "-_.") + '"' for t in measured)
    head = ", ".join(str(t.head.stripped) for t in measured if t.head)
    lines = ["```mermaid", "xychart-beta", '  title "Stripped runtime size per target (bytes)"', f"  x-axis [{names}]"]
    if all(t.base for t in measured):
        lines.append(f"  bar [{', '.join(str(t.base.stripped) for t in measured if t.base)}]")
    lines += [f"  bar [{head}]", "```", ""]
    return lines


def _build_errors(report: PrReport) -> list[str]:
    lines = []
    failures = [("head kernels", report.build_error)] + [(t.name, t.build_error) for t in report.targets]
    for name, error in failures:
        if error:
            message, _, log = error.partition("\n")
            lines += [f"#### {text(name)}: build failed", "", text(message), ""]
            if log:
                escaped = html.escape(log).replace("@", "&#64;&#8203;")
                lines += ["<details><summary>build log (tail)</summary>", "", f"<pre>{escaped}</pre>", "</details>", ""]
    return ["### Build failures", "", *lines] if lines else []


def render(report: PrReport, limit: int = COMMENT_LIMIT) -> str:
    head_label = report.head_sha if report.head_sha == "working tree" else report.head_sha[:12]
    header = [
        MARKER,
        f"<!-- selective-build-head: {report.head_sha} -->",
        "## Selective build report",
        "",
        summary_line(report),
        "",
        f"Base {code(report.base_ref)} ({code(report.base_sha[:12])}) → head {code(head_label)}",
        "",
    ]
    body = (
        _stale_section(report)
        + _graph_section(report)
        + _build_errors(report)
        + _size_table(report)
        + _chart(report)
        + _not_traced(report)
    )
    details = [line for t in report.targets for line in _breakdown(t)]
    full = "\n".join(header + body + details)
    if len(full) <= limit:
        return full
    note = "\n_Report truncated to fit GitHub's comment limit: per-target breakdowns omitted._\n"
    short = "\n".join(header + body) + note
    if len(short) <= limit:
        return short
    cut = "\n_Report truncated to fit GitHub's comment limit._\n"
    return short[: limit - len(cut)].rsplit("\n", 1)[0] + cut


def to_json(report: PrReport) -> dict[str, object]:
    """What scripts (and the Action's outputs) need, without the markdown."""
    return {
        "base": report.base_sha,
        "head": report.head_sha,
        "stale": report.stale,
        "size_delta": report.size_delta,
        "stale_files": list(report.stale_files),
        "targets": [
            {
                "name": t.name,
                "yaml": t.yaml,
                "stale": t.diff.stale or not t.yaml_exists,
                "missing": [m.op for m in t.diff.missing],
                "unused": [u.op for u in t.diff.unused],
                "load_failures": [{"model": f.model, "message": f.message} for f in t.load_failures],
                "causes": [c.detail for c in t.causes],
                "base_bytes": t.base.stripped if t.base else None,
                "head_bytes": t.head.stripped if t.head else None,
                "budget": t.budget,
                "over_budget": t.over_budget,
                "build_error": t.build_error.split("\n", 1)[0],
            }
            for t in report.targets
        ],
    }
