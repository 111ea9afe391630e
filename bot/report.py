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

from bot.pipeline import ArchSizes, PrReport, TargetReport
from bot.size import SizeReport

MARKER = "<!-- selective-build-report -->"
COMMENT_LIMIT = 65_536
FIX_COMMAND = "python -m bot regenerate"
TOP_SYMBOLS = 10  # symbol changes per runtime, in its breakdown
TOP_MOVERS = 5  # ops and symbols in the top movers tables
CHART_BARS = 20
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


def _signed(n: int) -> str:
    return f"{'▲' if n > 0 else '▼' if n < 0 else ''} {n:+,}".strip()


def _delta(base: int | None, head: int | None) -> tuple[str, str]:
    if base is None or head is None:
        return "new" if base is None and head is not None else "n/a", "n/a"
    change = head - base
    pct = f"{change / base:+.2%}" if base else "n/a"
    return _signed(change), pct


@dataclass(frozen=True)
class Detail:
    """How much of the report to render; `LEVELS` goes from everything to the bare findings."""

    breakdowns: bool = True
    chart: bool = True
    not_traced: bool = True
    movers: bool = True
    log_tails: bool = True
    size_rows: bool = True
    name_limit: int = NAME_LIMIT
    message_limit: int = MESSAGE_LIMIT
    items: int | None = None  # findings listed per kind and target; the rest are counted


FULL = Detail()
_BARE = Detail(False, False, False, False, False, False)
LEVELS = (
    FULL,
    replace(FULL, breakdowns=False),
    replace(FULL, breakdowns=False, chart=False),
    replace(FULL, breakdowns=False, chart=False, not_traced=False),
    replace(FULL, breakdowns=False, chart=False, not_traced=False, movers=False),
    replace(FULL, breakdowns=False, chart=False, not_traced=False, movers=False, log_tails=False),
    _BARE,
    replace(_BARE, name_limit=60, message_limit=160),
    replace(_BARE, name_limit=60, message_limit=160, items=20),
    replace(_BARE, name_limit=40, message_limit=100, items=3),
)
OMITTED = {
    "breakdowns": "per-target breakdowns",
    "chart": "the chart",
    "not_traced": "untraced ops",
    "movers": "top movers",
    "log_tails": "build log tails",
    "size_rows": "the size table",
}


@dataclass(frozen=True)
class Row:
    """One runtime: a target on one architecture."""

    target: TargetReport
    sizes: ArchSizes

    @property
    def changed(self) -> bool:
        """Worth a row of its own: it moved, is new, failed, or breaks its budget."""
        s = self.sizes
        return s.delta != 0 or s.over_budget or bool(s.build_error)

    def label(self, limit: int = NAME_LIMIT) -> str:
        return f"{text(self.target.name, limit)} on {text(self.sizes.arch, limit)}"


def rows(report: PrReport) -> list[Row]:
    """Every target x architecture, largest absolute change first (failures and new ones after the moves)."""
    found = [Row(t, s) for t in report.targets for s in t.sizes]
    return sorted(found, key=lambda r: -abs(r.sizes.delta or 0))


def _changes(base: dict[str, int] | None, head: dict[str, int] | None) -> list[tuple[str, int]]:
    """(name, head - base) for every name that moved, largest absolute change first."""
    before, after = base or {}, head or {}
    moved = [(n, after.get(n, 0) - before.get(n, 0)) for n in set(before) | set(after)]
    return sorted(((n, d) for n, d in moved if d), key=lambda nd: (-abs(nd[1]), nd[0]))


def _biggest_mover(report: PrReport, name: Callable[[object], str]) -> str:
    moved = [r for r in rows(report) if r.sizes.delta]
    if not moved:
        return ""
    top = moved[0]
    s = top.sizes
    assert s.delta is not None and s.base is not None and s.head is not None
    what = _changes(s.base.per_op, s.head.per_op) or _changes(s.base.symbols, s.head.symbols)
    by = f" ({name(cap(what[0][0], 80))} {what[0][1]:+,})" if what else ""
    return f"biggest: {name(cap(top.target.name, 40))} on {name(s.arch)} {s.delta:+,}{by}"


def _size_part(report: PrReport, name: Callable[[object], str]) -> str:
    measured = [r.sizes for r in rows(report) if r.sizes.delta is not None]
    delta = sum(s.delta or 0 for s in measured)
    if not any(s.delta for s in measured):
        return "no size change"
    per_arch: dict[str, list[ArchSizes]] = {}
    for s in measured:
        per_arch.setdefault(s.arch, []).append(s)
    if len(per_arch) == 1:
        total_base = sum(s.base.vm_size for s in measured if s.base)
        part = f"size {_signed(delta)} bytes"
        part += f" ({delta / total_base:+.2%})" if total_base else ""
    else:
        part = "size " + ", ".join(
            f"{_signed(sum(s.delta or 0 for s in group))} bytes on {name(arch)}" for arch, group in per_arch.items()
        )
    return f"{part}, {_biggest_mover(report, name)}"


def _failed_builds(report: PrReport) -> list[TargetReport]:
    return [t for t in report.targets if t.build_error]


def _graph_part(report: PrReport) -> str:
    added, removed = len(report.graph_added), len(report.graph_removed)
    if not added and not removed:
        return ""
    edges = [f"{added} new edge(s)" if added else "", f"{removed} removed" if removed else ""]
    reached = {c.model for t in report.targets for c in t.closure_changes}
    reach = f", reached by {len(reached)} model(s)" if reached else ""
    return "op graph: " + " and ".join(e for e in edges if e) + reach


def _unchanged(report: PrReport) -> bool:
    """No finding and no change of any kind: the PR gets the short comment."""
    return (
        not report.build_error
        and not report.stale
        and not report.model_failures
        and not report.graph_added
        and not report.graph_removed
        and not any(t.build_error for t in report.targets)
        and not any(r.changed for r in rows(report))
    )


def summary_line(report: PrReport, name: Callable[[object], str] = text) -> str:
    """One line: the verdict and every kind of finding, then the size change and its biggest mover.
    `name` formats PR-controlled names (markdown by default; `plain` for a check-run title)."""
    if report.build_error:
        return "❌ the head's kernels do not build: nothing else could be checked"
    stale = [t for t in report.targets if t.diff.stale or not t.yaml_exists]
    broken = [t for t in report.targets if t.load_failures]
    unusable = [t for t in report.targets if t.yaml_error]
    failed = _failed_builds(report)
    over = [r for r in rows(report) if r.sizes.over_budget]
    new = [r.sizes for r in rows(report) if r.sizes.base is None and r.sizes.head is not None]
    graph = _graph_part(report)
    runtimes = sum(len(t.sizes) for t in report.targets)
    parts = [f"{len(report.targets)} target(s)"]
    if runtimes > len(report.targets):
        arch_names = list(dict.fromkeys(s.arch for t in report.targets for s in t.sizes))
        parts[0] += f" on {', '.join(name(a) for a in arch_names)} ({runtimes} runtimes)"
    if failed:
        first = failed[0].build_error.split("\n", 1)[0]
        names = ", ".join(name(cap(t.name, 40)) for t in failed[:3]) + (", …" if len(failed) > 3 else "")
        parts.insert(0, f"build failed: target {names} ({name(cap(first, 120))})")
    if stale:
        parts.append(f"{len(stale)} stale yaml")
    if unusable:
        parts.append(f"{len(unusable)} unusable yaml")
    if broken:
        models = len({f.model for t in broken for f in t.load_failures})
        parts.append(f"{len(broken)} target(s) fail at load ({models} model(s))")
    if report.model_failures:
        parts.append(f"{len(report.model_failures)} model(s) could not be traced")
    if graph:
        parts.append(graph)
    if over:
        where = ", ".join(f"{name(cap(r.target.name, 40))} on {name(r.sizes.arch)}" for r in over[:3])
        parts.append(
            f"{len({r.target.name for r in over})} target(s) over budget ({where}{', …' if len(over) > 3 else ''})"
        )
    size_part = _size_part(report, name)
    parts.append(size_part)
    if new:
        parts.append(f"{len(new)} new runtime(s) of {sum(s.head.vm_size for s in new if s.head):,} bytes")
    if _unchanged(report):
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
    """Ops static analysis says a model can reach that no traced run reached: context for a PR that
    changes something; the same on every PR otherwise, so a PR that changes nothing does not repeat it."""
    rows = [(t.name, n) for t in report.targets for n in t.not_traced]
    if not rows or not detail.not_traced or _unchanged(report):
        return []
    lines = ["<details><summary>Reachable, not traced: ops a model can reach that no traced run reached</summary>", ""]
    for target, n in rows:
        lines.append(f"- {text(target)}: {code(n.model)}: " + ", ".join(code(op) for op in n.ops))
    return [*lines, "", "</details>", ""]


def _budget_cell(s: ArchSizes) -> str:
    if s.budget is None:
        return "n/a"
    return f"{'❌ over' if s.over_budget else '✅'} {s.budget:,}"


def _size_table(report: PrReport, detail: Detail) -> list[str]:
    """Runtimes that moved (or are new, failed or over budget), largest change first; the rest counted."""
    if not detail.size_rows:
        return []
    all_rows = rows(report)
    shown = [r for r in all_rows if r.changed]
    unchanged = len(all_rows) - len(shown)
    if not shown:
        return [f"Sizes (VM bytes): all {unchanged} runtime(s) unchanged.", ""] if unchanged else []
    n = detail.name_limit
    lines = [
        "### Sizes",
        "",
        "VM bytes: the loadable sections of the stripped runtime, as it ships.",
        "",
        "| target | arch | base | head | Δ bytes | Δ % | budget |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for r in shown:
        s = r.sizes
        base = s.base.vm_size if s.base else None
        head = s.head.vm_size if s.head else None
        delta, pct = _delta(base, head)
        if s.build_error:
            delta = "build failed"
        elif s.base_error:
            delta = "base not built"
        lines.append(
            f"| {text(r.target.name, n)} | {text(s.arch, n)} | {_bytes(base)} | {_bytes(head)} | {delta} | {pct} "
            f"| {_budget_cell(s)} |"
        )
    if unchanged:
        lines += ["", f"…and {unchanged} unchanged runtime(s)."]
    return [*lines, ""]


def _budget_findings(report: PrReport, detail: Detail) -> list[str]:
    """Budget breaches as findings of their own: they survive when the size table is dropped."""
    if detail.size_rows:
        return []
    lines = [
        f"- ❌ {r.label(detail.name_limit)}: {r.sizes.head.vm_size:,} bytes, over its budget of {r.sizes.budget:,}"
        for r in rows(report)
        if r.sizes.over_budget and r.sizes.head and r.sizes.budget is not None
    ]
    return ["### Over budget", "", *_listed(lines, detail, "runtimes"), ""] if lines else []


def _movers(report: PrReport, detail: Detail) -> list[str]:
    """The ops and symbols that moved most: one line per name, architecture and change, naming the targets."""
    if not detail.movers:
        return []
    out: list[str] = []
    for kind, field in (("op", "per_op"), ("symbol", "symbols")):
        grouped: dict[tuple[str, str, int], list[str]] = {}
        for r in rows(report):
            s = r.sizes
            if s.base is None or s.head is None or not s.delta:
                continue
            for what, change in _changes(getattr(s.base, field), getattr(s.head, field)):
                grouped.setdefault((what, s.arch, change), []).append(r.target.name)
        if not grouped:
            continue
        ordered = sorted(grouped.items(), key=lambda kv: (-abs(kv[0][2]), kv[0][0], kv[0][1]))
        out += [f"| {kind} | arch | Δ bytes | targets |", "|---|---|---:|---|"]
        for (what, arch, change), targets in ordered[:TOP_MOVERS]:
            names = ", ".join(text(t) for t in targets[:3]) + (
                f" and {len(targets) - 3} more" if len(targets) > 3 else ""
            )
            out.append(f"| {code(what)} | {text(arch)} | {_signed(change)} | {names} |")
        if len(ordered) > TOP_MOVERS:
            out.append(f"| …and {len(ordered) - TOP_MOVERS} more | | | |")
        out.append("")
    return ["### Top movers", "", *out] if out else []


def _breakdown(r: Row) -> list[str]:
    s = r.sizes
    if s.head is None or not r.changed:
        return []
    base = s.base
    lines = [f"<details><summary>{r.label()}: sections, .bss, file size, operators, symbols</summary>", ""]
    lines += ["| | base | head | Δ |", "|---|---:|---:|---:|"]
    for label, attr in (("VM bytes", "vm_size"), (".bss", "bss"), ("file (page padded)", "file_size")):
        b, h = (getattr(base, attr) if base else None), getattr(s.head, attr)
        lines.append(f"| {label} | {_bytes(b)} | {_bytes(h)} | {_delta(b, h)[0]} |")
    if s.base_error:
        lines += ["", f"The base could not be built for {text(s.arch)}: {text(s.base_error, MESSAGE_LIMIT)}"]
    for heading, base_map, head_map in (
        ("section", base.sections if base else {}, s.head.sections),
        ("operator", base.per_op if base else {}, s.head.per_op),
    ):
        moved = _changes(base_map, head_map)
        if not moved:
            continue
        lines += ["", f"| {heading} | base | head | Δ |", "|---|---:|---:|---:|"]
        for what, _ in moved:
            b, h = base_map.get(what), head_map.get(what)
            lines.append(f"| {code(what)} | {_bytes(b)} | {_bytes(h)} | {_delta(b, h)[0]} |")
        same = len(set(base_map) | set(head_map)) - len(moved)
        if same:
            lines.append(f"| …and {same} unchanged | | | |")
    symbols = _changes(base.symbols if base else {}, s.head.symbols)
    if symbols:
        lines += ["", "| top symbol changes | Δ bytes |", "|---|---:|"]
        for what, change in symbols[:TOP_SYMBOLS]:
            lines.append(f"| {code(what)} | {_signed(change)} |")
    return [*lines, "", "</details>", ""]


def _chart_label(r: Row) -> str:
    def safe(value: str) -> str:
        return cap("".join(ch for ch in value if ch.isascii() and (ch.isalnum() or ch in "-_.")), 30)

    return f'"{safe(r.target.name)}/{safe(r.sizes.arch)}"'


def _chart(report: PrReport, detail: Detail) -> list[str]:
    """Only when something moved: how much each runtime grew or shrank, as two labelled series."""
    moved = [r for r in rows(report) if r.sizes.delta][:CHART_BARS]
    if not moved or not detail.chart:
        return []
    deltas = [r.sizes.delta or 0 for r in moved]
    top = max(abs(d) for d in deltas)
    lines = [
        "```mermaid",
        "xychart-beta",
        '  title "Size change per target and architecture (VM bytes, head - base)"',
        f"  x-axis [{', '.join(_chart_label(r) for r in moved)}]",
        f'  y-axis "bytes" 0 --> {top}',
    ]
    if any(d > 0 for d in deltas):
        lines.append(f'  bar "grew" [{", ".join(str(max(d, 0)) for d in deltas)}]')
    if any(d < 0 for d in deltas):
        lines.append(f'  bar "shrank" [{", ".join(str(max(-d, 0)) for d in deltas)}]')
    return [*lines, "```", ""]


def _log_tail(log: str) -> str:
    """A build log tail inside <pre>: entities only (the block is raw HTML), each line capped."""
    lines = [visible(cap(line.rstrip("\r"), LOG_LINE_LIMIT)) for line in log.split("\n")]
    return html.escape("\n".join(lines)).replace("@", "&#64;&#8203;")


def _build_errors(report: PrReport, detail: Detail) -> list[str]:
    lines = []
    n = detail.name_limit
    failures = [(text("head kernels"), report.build_error)] + [
        (f"{text(t.name, n)} on {text(s.arch, n)}", s.build_error) for t in report.targets for s in t.sizes
    ]
    for name, error in failures:
        if error:
            message, _, log = error.partition("\n")
            lines += [f"#### {name}: build failed", ""]
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
        + _movers(report, detail)
        + _chart(report, detail)
        + _not_traced(report, detail)
    )
    if detail.breakdowns:
        lines += [line for r in rows(report) for line in _breakdown(r)]
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


def _side(size: SizeReport | None) -> dict[str, object] | None:
    if size is None:
        return None
    return {"vm_size": size.vm_size, "bss": size.bss, "file_size": size.file_size, "sections": dict(size.sections)}


def _arch_json(s: ArchSizes) -> dict[str, object]:
    both = s.base is not None and s.head is not None
    movers = {
        key: [{"name": n, "delta": d} for n, d in _changes(getattr(s.base, field), getattr(s.head, field))[:TOP_MOVERS]]
        if both
        else []
        for key, field in (("top_ops", "per_op"), ("top_symbols", "symbols"))
    }
    return {
        "arch": s.arch,
        "base": _side(s.base),
        "head": _side(s.head),
        "delta": s.delta,
        "budget": s.budget,
        "over_budget": s.over_budget,
        "build_error": s.build_error.split("\n", 1)[0],
        **movers,
    }


def to_json(report: PrReport) -> dict[str, object]:
    """What scripts (and the Action's outputs) need, without the markdown. Sizes are VM bytes."""
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
                "sizes": [_arch_json(s) for s in t.sizes],
                "over_budget": t.over_budget,
                "build_error": t.build_error.split("\n", 1)[0],
            }
            for t in report.targets
        ],
    }
