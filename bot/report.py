"""Renders a PrReport as GitHub-flavoured markdown (the sticky comment, the job
summary, the local report file).

Everything that comes from the PR (op, model and file names, build log
lines, anything read from a report artifact) goes through `text` or `code`,
which make it inert: no HTML, no links or images, no @-mentions, no breaking
out of tables or code; invisible characters (zero-width, bidi controls) shown
as <U+XXXX>; long values capped with an ellipsis.

The comment has a size limit. What is dropped to fit it is detail (breakdowns,
chart, untraced ops, log tails, size rows), in that order, whole blocks at a
time; the summary and every finding stay.
"""

from __future__ import annotations

import html
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, replace

from bot.pipeline import PrReport, TargetReport

MARKER = "<!-- selective-build-report -->"
COMMENT_LIMIT = 65_536
FIX_COMMAND = "python -m bot regenerate"
TOP_SYMBOLS = 10
NAME_LIMIT = 200  # characters of an op, model, file or target name
MESSAGE_LIMIT = 400  # characters of a one-line message (a load failure, a yaml error)
LOG_LINE_LIMIT = 300  # characters of one line of a build log tail
ELLIPSIS = "…"
COMMIT = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}|working tree")

_MARKDOWN_SPECIAL = set("\\`*_{}[]()<>#+-.!|~=:$")  # $: GitHub renders $...$ as math
_INVISIBLE_CATEGORIES = {"Cc", "Cf", "Cs", "Co", "Zl", "Zp"}
# Letters and marks that render as nothing (fillers, joiners, variation selectors).
_BLANK_LOOKING = {0x034F, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x2800, 0x3164, 0xFFA0}


def _invisible(ch: str) -> bool:
    code_point = ord(ch)
    return (
        unicodedata.category(ch) in _INVISIBLE_CATEGORIES
        or code_point in _BLANK_LOOKING
        or 0xFE00 <= code_point <= 0xFE0F
        or 0xE0100 <= code_point <= 0xE01EF
    )


def visible(value: str) -> str:
    """Control, format (zero-width, bidi) and blank-looking characters as <U+XXXX>."""
    return "".join(f"<U+{ord(ch):04X}>" if _invisible(ch) else ch for ch in value)


def cap(value: str, limit: int) -> str:
    return value if len(value) <= limit else value[: limit - 1] + ELLIPSIS


def plain(value: object, limit: int = NAME_LIMIT) -> str:
    """PR-controlled text for plain-text places (check-run titles, annotations):
    one line, capped, invisible characters shown."""
    return visible(cap(" ".join(str(value).split()), limit))


def text(value: object, limit: int = NAME_LIMIT) -> str:
    """PR-controlled text as inert markdown: entities for HTML and @, escapes for markdown."""
    out = []
    for ch in plain(value, limit):
        if ch in "&<>\"'":
            out.append(html.escape(ch, quote=True))
        elif ch == "@":
            out.append("&#64;&#8203;")  # a zero-width space after @: never a mention
        elif ch in _MARKDOWN_SPECIAL:
            out.append("\\" + ch)
        else:
            out.append(ch)
    return "".join(out)


# In <code>: every character that can start markdown inside an HTML tag (links,
# images, emphasis, strikethrough, math, escapes, code spans, table cells, HTML).
_CODE_ENTITIES = {
    "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#x27;", "@": "&#64;&#8203;", "|": "&#124;",
    "`": "&#96;", "[": "&#91;", "]": "&#93;", "*": "&#42;", "~": "&#126;", "\\": "&#92;", "$": "&#36;",
}  # fmt: skip


def code(value: object, limit: int = NAME_LIMIT) -> str:
    """PR-controlled text in monospace: an HTML <code>, not a code span (a backtick
    in the value could close that). Markdown inside an HTML tag is still markdown,
    so what could form a construct is an entity; identifiers (aten::add.out,
    models/zoo/op_x.pte) stay as they are, readable in the raw report."""
    shown = plain(value, limit)
    out = []
    for i, ch in enumerate(shown):
        before, after = shown[i - 1 : i], shown[i + 1 : i + 2]
        if ch in _CODE_ENTITIES:
            out.append(_CODE_ENTITIES[ch])
        elif ch == "_" and not (before.isalnum() and after.isalnum()):
            out.append("&#95;")  # only an underscore inside a word can never open or close emphasis
        elif ch == ":" and after == "/":
            out.append("&#58;")  # a URL scheme: GitHub would autolink it
        elif ch == "." and shown[max(0, i - 3) : i].lower() == "www" and not shown[max(0, i - 4) : i - 3].isalnum():
            out.append("&#46;")  # www. starts one of GitHub's autolinks too
        else:
            out.append(ch)
    return "<code>" + "".join(out) + "</code>"


def commit(value: str) -> str:
    """A commit id where one is expected (the head marker, which is an HTML comment): nothing else passes."""
    return value if COMMIT.fullmatch(value) else "unknown"


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


@dataclass(frozen=True)
class Detail:
    """How much of the report to render; `LEVELS` goes from everything to the bare findings."""

    breakdowns: bool = True
    chart: bool = True
    not_traced: bool = True
    log_tails: bool = True
    size_rows: bool = True
    name_limit: int = NAME_LIMIT
    message_limit: int = MESSAGE_LIMIT
    items: int | None = None  # findings listed per kind and target; the rest are counted


FULL = Detail()
LEVELS = (
    FULL,
    replace(FULL, breakdowns=False),
    replace(FULL, breakdowns=False, chart=False),
    replace(FULL, breakdowns=False, chart=False, not_traced=False),
    replace(FULL, breakdowns=False, chart=False, not_traced=False, log_tails=False),
    replace(FULL, breakdowns=False, chart=False, not_traced=False, log_tails=False, size_rows=False),
    Detail(False, False, False, False, False, name_limit=60, message_limit=160),
    Detail(False, False, False, False, False, name_limit=60, message_limit=160, items=20),
    Detail(False, False, False, False, False, name_limit=40, message_limit=100, items=3),
)
OMITTED = {
    "breakdowns": "per-target breakdowns",
    "chart": "the chart",
    "not_traced": "untraced ops",
    "log_tails": "build log tails",
    "size_rows": "the size table",
}


def _failed_builds(report: PrReport) -> list[TargetReport]:
    return [t for t in report.targets if t.build_error]


def summary_line(report: PrReport, name: Callable[[object], str] = text) -> str:
    """One line: the verdict and every kind of finding. `name` formats PR-controlled
    names (markdown by default; `plain` for a check-run title)."""
    if report.build_error:
        return "❌ the head's kernels do not build: nothing else could be checked"
    stale = [t for t in report.targets if t.diff.stale or not t.yaml_exists]
    broken = [t for t in report.targets if t.load_failures]
    unusable = [t for t in report.targets if t.yaml_error]
    failed = _failed_builds(report)
    over = [t for t in report.targets if t.over_budget]
    total_base = sum(t.base.stripped for t in report.targets if t.base and t.head)
    delta = report.size_delta
    size_part = "no size change" if delta == 0 else f"size {'▲' if delta > 0 else '▼'} {delta:+,} bytes"
    if total_base and delta:
        size_part += f" ({delta / total_base:+.2%})"
    new = [t for t in report.targets if t.base is None and t.head is not None]
    parts = [f"{len(report.targets)} target(s)"]
    if failed:
        first = failed[0].build_error.split("\n", 1)[0]
        names = ", ".join(name(cap(t.name, 40)) for t in failed[:3]) + (", …" if len(failed) > 3 else "")
        parts.insert(0, f"build failed: target {names} ({name(cap(first, 120))})")
    parts.append(size_part)
    if new:
        parts.append(f"{len(new)} new target(s) of {sum(t.head.stripped for t in new if t.head):,} bytes")
    if stale:
        parts.append(f"{len(stale)} stale yaml")
    if unusable:
        parts.append(f"{len(unusable)} unusable yaml")
    if broken:
        parts.append(f"{len(broken)} target(s) fail at load")
    if report.model_failures:
        parts.append(f"{len(report.model_failures)} model(s) could not be traced")
    if over:
        parts.append(f"{len(over)} target(s) over budget")
    findings = failed or stale or broken or unusable or report.model_failures or over
    if not findings and not new and delta == 0:
        return "✅ **No change**: " + ", ".join(parts)
    icon = "❌" if failed or broken or unusable or report.model_failures else "⚠️" if stale or over else "📦"
    return f"{icon} " + ", ".join(parts)


def _listed(lines: list[str], detail: Detail, kind: str) -> list[str]:
    """At most `detail.items` lines; the rest counted, so the finding itself is never lost."""
    if detail.items is None or len(lines) <= detail.items:
        return lines
    return [*lines[: detail.items], f"- … and {len(lines) - detail.items} more {kind}"]


def _codes(values: tuple[str, ...] | list[str], detail: Detail) -> str:
    shown = values if detail.items is None else values[: detail.items]
    more = f" and {len(values) - len(shown)} more" if len(shown) < len(values) else ""
    return ", ".join(code(v, detail.name_limit) for v in shown) + more


def _stale_section(report: PrReport, detail: Detail) -> list[str]:
    n = detail.name_limit
    lines: list[str] = []
    for t in report.targets:
        if not (t.diff.stale or t.load_failures or not t.yaml_exists or t.yaml_error):
            continue
        lines.append(f"#### {text(t.name, n)}: {code(t.yaml, n)}")
        if t.yaml_error:
            lines.append(f"- ❌ **the checked-in yaml cannot be used**: {text(t.yaml_error, detail.message_limit)}")
        elif not t.yaml_exists:
            lines.append(f"- the yaml does not exist yet: create it with `{FIX_COMMAND}`")
        failures = [
            f"- ❌ **this PR breaks {code(f.model, n)} at load unless the yaml is regenerated**: "
            f"{text(f.message, detail.message_limit)}"
            for f in t.load_failures
        ]
        lines += _listed(failures, detail, "models failing at load")
        new_models = [f"- new model {code(m, n)} has no ops in the checked-in yaml" for m in t.models_without_yaml]
        lines += _listed(new_models, detail, "new models")
        missing = []
        for m in t.diff.missing:
            via = f", called by {_codes(m.callers, detail)}" if m.callers else ""
            missing.append(f"- missing {code(m.op, n)} (needed by {_codes(m.models, detail)}{via}): fails at load")
        lines += _listed(missing, detail, "missing ops")
        lines += _listed([f"- unused {code(u.op, n)}: wastes bytes" for u in t.diff.unused], detail, "unused ops")
        dtypes = []
        for c in t.diff.dtype_changes:
            before = ", ".join(c.before) if c.before is not None else "all"
            after = ", ".join(c.after) if c.after is not None else "all"
            dtypes.append(f"- dtypes of {code(c.op, n)}: {text(before, n)} → {text(after, n)}")
        lines += _listed(dtypes, detail, "dtype changes")
        causes = []
        for cause in t.causes:
            if cause.kind == "kernel":
                causes.append(
                    f"- cause: kernel {code(cause.kernel, n)} ({code(cause.path, n)}) {text(cause.change, n)} "
                    f"{_codes(cause.ops, detail)}"
                )
            else:
                causes.append(f"- cause: model {code(cause.path, n)} changed")
        lines += _listed(causes, detail, "causes")
        lines.append("")
    if lines:
        lines = ["### Stale yaml", "", *lines, f"Fix: run `{FIX_COMMAND}` and commit the result.", ""]
    return lines


def _model_failures(report: PrReport, detail: Detail) -> list[str]:
    if not report.model_failures:
        return []
    lines = [
        f"- ❌ {code(f.model, detail.name_limit)}: {text(f.message, detail.message_limit)}"
        for f in report.model_failures
    ]
    return ["### Models the tracer could not run", "", *_listed(lines, detail, "models"), ""]


def _graph_section(report: PrReport, detail: Detail) -> list[str]:
    n = detail.name_limit
    edges: list[str] = []
    for label, found in (("new", report.graph_added), ("removed", report.graph_removed)):
        for e in found:
            via = f" via {code(e.via_name, n)}" if e.via_name else ""
            edges.append(f"- {label}: {code(e.caller, n)} → {code(e.callee, n)} ({code(e.source, n)}{via})")
    lines = _listed(edges, detail, "edges")
    closures = []
    for t in report.targets:
        for c in t.closure_changes:
            parts = []
            if c.added:
                parts.append("now reaches " + _codes(c.added, detail))
            if c.removed:
                parts.append("no longer reaches " + _codes(c.removed, detail))
            lacking = (
                "; ⚠️ the checked-in yaml lacks " + _codes(c.lacking, detail)
                if c.lacking
                else "; the checked-in yaml covers it"
            )
            closures.append(f"- {text(t.name, n)}: {code(c.model, n)} {' and '.join(parts)}{lacking}")
    lines += _listed(closures, detail, "closure changes")
    if not lines:
        return []
    return ["### Op graph changes (static, from the compiled kernels)", "", *lines, ""]


def _not_traced(report: PrReport, detail: Detail) -> list[str]:
    rows = [(t.name, n) for t in report.targets for n in t.not_traced]
    if not rows or not detail.not_traced:
        return []
    lines = ["<details><summary>Reachable, not traced: ops a model can reach that no traced run reached</summary>", ""]
    for target, n in rows:
        lines.append(f"- {text(target)}: {code(n.model)}: " + ", ".join(code(op) for op in n.ops))
    return [*lines, "", "</details>", ""]


def _size_table(report: PrReport, detail: Detail) -> list[str]:
    if not detail.size_rows:
        return []
    lines = ["### Sizes", "", "| target | base | head | Δ bytes | Δ % | budget |", "|---|---:|---:|---:|---:|---:|"]
    for t in report.targets:
        base = t.base.stripped if t.base else None
        head = t.head.stripped if t.head else None
        delta, pct = _delta(base, head)
        budget = "n/a" if t.budget is None else (f"{'❌ over' if t.over_budget else '✅'} {t.budget:,}")
        lines.append(f"| {text(t.name)} | {_bytes(base)} | {_bytes(head)} | {delta} | {pct} | {budget} |")
    return [*lines, ""]


def _budget_findings(report: PrReport, detail: Detail) -> list[str]:
    """Budget breaches as findings of their own: they survive when the size table is dropped."""
    if detail.size_rows:
        return []
    over = [t for t in report.targets if t.over_budget and t.head and t.budget is not None]
    lines = [
        f"- ❌ {text(t.name, detail.name_limit)}: {t.head.stripped:,} bytes, over its budget of {t.budget:,}"
        for t in over
        if t.head and t.budget is not None
    ]
    return ["### Over budget", "", *_listed(lines, detail, "targets"), ""] if lines else []


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


def _chart(report: PrReport, detail: Detail) -> list[str]:
    measured = [t for t in report.targets if t.head]
    if not measured or not detail.chart:
        return []
    names = ", ".join(
        '"' + cap("".join(ch for ch in t.name if ch.isascii() and (ch.isalnum() or ch in "-_.")), 40) + '"'
        for t in measured
    )
    head = ", ".join(str(t.head.stripped) for t in measured if t.head)
    lines = ["```mermaid", "xychart-beta", '  title "Stripped runtime size per target (bytes)"', f"  x-axis [{names}]"]
    if all(t.base for t in measured):
        lines.append(f"  bar [{', '.join(str(t.base.stripped) for t in measured if t.base)}]")
    lines += [f"  bar [{head}]", "```", ""]
    return lines


def _log_tail(log: str) -> str:
    """A build log tail inside <pre>: entities only (the block is raw HTML), each line capped."""
    lines = [visible(cap(line.rstrip("\r"), LOG_LINE_LIMIT)) for line in log.split("\n")]
    return html.escape("\n".join(lines)).replace("@", "&#64;&#8203;")


def _build_errors(report: PrReport, detail: Detail) -> list[str]:
    lines = []
    failures = [("head kernels", report.build_error)] + [(t.name, t.build_error) for t in report.targets]
    for name, error in failures:
        if error:
            message, _, log = error.partition("\n")
            lines += [f"#### {text(name, detail.name_limit)}: build failed", ""]
            lines += [text(message, detail.message_limit), ""]
            if log and detail.log_tails:
                lines += ["<details><summary>build log (tail)</summary>", "", f"<pre>{_log_tail(log)}</pre>"]
                lines += ["</details>", ""]
    return ["### Build failures", "", *lines] if lines else []


def _header(report: PrReport) -> list[str]:
    head_label = report.head_sha if report.head_sha == "working tree" else report.head_sha[:12]
    return [
        MARKER,
        f"<!-- selective-build-head: {commit(report.head_sha)} -->",
        "## Selective build report",
        "",
        summary_line(report),
        "",
        f"Base {code(report.base_ref)} ({code(report.base_sha[:12])}) → head {code(head_label)}",
        "",
    ]


def _compose(report: PrReport, detail: Detail) -> str:
    lines = (
        _header(report)
        + _build_errors(report, detail)
        + _stale_section(report, detail)
        + _model_failures(report, detail)
        + _budget_findings(report, detail)
        + _graph_section(report, detail)
        + _size_table(report, detail)
        + _chart(report, detail)
        + _not_traced(report, detail)
    )
    if detail.breakdowns:
        lines += [line for t in report.targets for line in _breakdown(t)]
    omitted = [label for key, label in OMITTED.items() if not getattr(detail, key)]
    if detail.name_limit < NAME_LIMIT:
        omitted.append("long names shortened")
    if detail.items is not None:
        omitted.append("long lists counted")
    if omitted:
        lines.append(f"_Report shortened to fit GitHub's comment limit: {', '.join(omitted)}._")
    return "\n".join(lines)


def render(report: PrReport, limit: int = COMMENT_LIMIT) -> str:
    """The comment: the most detailed level that fits in `limit` characters."""
    for detail in LEVELS:
        rendered = _compose(report, detail)
        if len(rendered) <= limit:
            return rendered
    # Only a pathological report (tens of thousands of targets) gets here. The
    # last level is headings and list items, so whole lines can be dropped safely.
    cut = "\n_Report truncated to fit GitHub's comment limit._"
    kept = rendered[: limit - len(cut)].rsplit("\n", 1)[0]
    return kept + cut


def to_json(report: PrReport) -> dict[str, object]:
    """What scripts (and the Action's outputs) need, without the markdown."""
    return {
        "base": report.base_sha,
        "head": report.head_sha,
        "stale": report.stale,
        "size_delta": report.size_delta,
        "stale_files": list(report.stale_files),
        "build_error": report.build_error.split("\n", 1)[0],
        "model_failures": [{"model": f.model, "message": f.message} for f in report.model_failures],
        "targets": [
            {
                "name": t.name,
                "yaml": t.yaml,
                "stale": t.diff.stale or not t.yaml_exists,
                "yaml_error": t.yaml_error,
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
