"""Renders a PrReport as GitHub-flavoured markdown (the sticky comment, the job
summary, the local report file).

Everything that comes from the PR (op, model and file names, a build's
error lines, anything read from a report artifact) goes through `text` or `code`,
which make it inert: no HTML, no links or images, no @-mentions, no breaking
out of tables or code; invisible characters (zero-width, bidi controls) shown
as <U+XXXX>; long values capped with an ellipsis.

A stale yaml's diff (from the report, so PR-controlled) is shown in a fenced code block whose fence is
longer than any run of backticks in it, so no line of it can close the block; every @ is followed by a
zero-width space and invisible characters are shown, as everywhere else.

The comment has a size limit. What is dropped to fit it is detail (breakdowns,
yaml diffs, chart, untraced ops, build error lines, size rows), in that order, whole blocks at a
time; the summary, every finding and the command that applies the patch stay.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from dataclasses import dataclass, replace

from bot.report import patch
from bot.report.escape import ELLIPSIS, NAME_LIMIT, cap, code, commit, count, html_text, text, visible
from bot.report.model import (
    DIFF_LINE_CHARS,
    DIFF_LINES,
    ArchSizes,
    LoadFailure,
    PolicyChange,
    PrReport,
    TargetReport,
    YamlDiff,
)
from bot.report.verdict import Verdict

MARKER = "<!-- selective-build-report -->"
COMMENT_LIMIT = 65_536  # characters of a comment's body, GitHub's limit
# Kept free below it for the answer to a comment command (bot/github/commands.py), added to the report.
REPLY_ROOM = 2_048
REPORT_LIMIT = COMMENT_LIMIT - REPLY_ROOM
FIX_COMMAND = "python -m bot regenerate"
TOP_SYMBOLS = 10  # symbol changes per runtime, in its breakdown
TOP_MOVERS = 5  # ops and symbols in the top movers tables
SYMBOL_LIMIT = 72  # characters of a symbol in a table cell (argument lists dropped first)
CHART_BARS = 20
MESSAGE_LIMIT = 400  # characters of a one-line message (a load failure, a yaml error)
BUILD_MESSAGE_LIMIT = 300  # characters of one error line of a failed build (bot/build/build_log.py)
BUILD_MESSAGES = 5  # error lines shown per failed build


def _bytes(n: int | None) -> str:
    if n is None:
        return "n/a"
    return f"{n:,}"


def _signed(n: int) -> str:
    return f"{'▲' if n > 0 else '▼' if n < 0 else ''} {n:+,}".strip()


def _delta(base: int | None, head: int | None) -> tuple[str, str]:
    if base is None or head is None:
        return "new" if head is not None else "removed" if base is not None else "n/a", "n/a"
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
    build_messages: bool = True
    size_rows: bool = True
    diffs: bool = True  # each stale yaml's diff, collapsed
    name_limit: int = NAME_LIMIT
    message_limit: int = MESSAGE_LIMIT
    items: int | None = None  # findings listed per kind and target; the rest are counted


FULL = Detail()
_BARE = Detail(False, False, False, False, False, False, diffs=False)
_NO_DIFFS = replace(FULL, breakdowns=False, diffs=False)
LEVELS = (
    FULL,
    replace(FULL, breakdowns=False),
    _NO_DIFFS,
    replace(_NO_DIFFS, chart=False),
    replace(_NO_DIFFS, chart=False, not_traced=False),
    replace(_NO_DIFFS, chart=False, not_traced=False, movers=False),
    replace(_NO_DIFFS, chart=False, not_traced=False, movers=False, build_messages=False),
    _BARE,
    replace(_BARE, name_limit=60, message_limit=160),
    replace(_BARE, name_limit=60, message_limit=160, items=20),
    replace(_BARE, name_limit=40, message_limit=100, items=3),
)
OMITTED = {
    "breakdowns": "per-target breakdowns",
    "diffs": "yaml diffs",
    "chart": "the chart",
    "not_traced": "untraced ops",
    "movers": "top movers",
    "build_messages": "build error lines",
    "size_rows": "the size table",
}


@dataclass(frozen=True)
class Row:
    """One runtime: a target on one architecture."""

    target: TargetReport
    sizes: ArchSizes
    budget: int | None = None  # the policy's budget for it (its fail level's size, VM bytes)
    over_budget: bool = False  # over a fail level (bot/report/verdict.py decides)
    warned: bool = False  # over a warn level, within its fail level
    gated: bool = False  # the policy sets size limits for it

    @property
    def changed(self) -> bool:
        """Worth a row of its own: it moved (by any number of bytes), is new, failed, or breaks a limit."""
        s = self.sizes
        return s.delta != 0 or self.over_budget or self.warned or bool(s.build_error)

    def noticeable(self, floor: int) -> bool:
        """Worth the headline: it moved by at least the noise floor, failed, or breaks a limit."""
        s = self.sizes
        return abs(s.delta or 0) >= max(floor, 1) or self.over_budget or self.warned or bool(s.build_error)

    def label(self, limit: int = NAME_LIMIT, escape: Callable[[object, int], str] = text) -> str:
        """'<target> on <arch>'; `escape` is `html_text` where the label lands in raw HTML."""
        return f"{escape(self.target.name, limit)} on {escape(self.sizes.arch, limit)}"


def only_arch(report: PrReport) -> str | None:
    """The architecture, when every runtime is measured on the same one (the tables then drop the column)."""
    arches = {s.arch for t in report.targets for s in t.sizes}
    return next(iter(arches)) if len(arches) == 1 else None


def _without_arguments(name: str) -> str:
    """A demangled name's argument lists as (…): '(anonymous namespace)' stays, read as a namespace."""
    out: list[str] = []
    i = 0
    while i < len(name):
        ch = name[i]
        if ch == "(" and not name.startswith("(anonymous namespace)", i) and i > 0:
            depth, j = 0, i
            while j < len(name):
                depth += {"(": 1, ")": -1}.get(name[j], 0)
                if depth == 0:
                    break
                j += 1
            out.append("()" if j == i + 1 else "(…)")
            i = j + 1
            continue
        out.append(ch)
        i += 1
    return "".join(out)


def _without_return_type(name: str) -> str:
    """'sb::Error sb::kernels::f<…>(…)' as 'sb::kernels::f<…>(…)': the return type a template's name carries."""
    depth = 0
    for i, ch in enumerate(name):
        if ch in "(<":
            depth += 1
        elif ch in ")>":
            depth = max(0, depth - 1)
        elif ch == " " and depth == 0:
            head = name[:i]  # a return type has no argument list; 'operator new' is a name
            return name if "(" in head or "operator" in head else name[i + 1 :]
    return name


def short_symbol(name: str, limit: int = SYMBOL_LIMIT) -> str:
    """A demangled symbol short enough for a table cell: no argument lists, no return type,
    '(anonymous namespace)' as '(anon)', then an ellipsis in the middle if still too long.
    Pseudo-symbols ('(no symbol: .text)') stay as they are."""
    if name.startswith("("):
        return name
    short = _without_return_type(_without_arguments(name)).replace("(anonymous namespace)", "(anon)")
    if len(short) <= limit:
        return short
    keep = limit - 1
    return short[: keep - keep // 2] + ELLIPSIS + short[len(short) - keep // 2 :]


def short_name(name: str) -> str:
    """A long remainder's name without its explanation ('(linker-generated)', explained under the
    table by `_legend`), so it does not squeeze the number columns; other names as they are."""
    if name.startswith("(") and name.endswith(")") and ": " in name and len(name) > 32:
        return name.split(": ", 1)[0] + ")"
    return name


def _legend(names: list[str]) -> list[str]:
    """What each shortened remainder name in a table stands for, a line after the table."""
    shortened = sorted({n for n in names if short_name(n) != n})
    return [f"{text(short_name(n))}: {text(n[1:-1].split(': ', 1)[1])}." for n in shortened]


def rows(report: PrReport, verdict: Verdict | None = None) -> list[Row]:
    """Every target x architecture, largest absolute change first (failures and new ones after the moves);
    with the verdict, each with its budget."""
    found = [
        Row(
            t,
            s,
            verdict.budget(t.name, s.arch),
            verdict.over(t.name, s.arch) is not None,
            verdict.warned(t.name, s.arch) is not None,
            verdict.gate(t.name, s.arch) is not None,
        )
        if verdict is not None
        else Row(t, s)
        for t in report.targets
        for s in t.sizes
    ]
    return sorted(found, key=lambda r: -abs(r.sizes.delta or 0))


def changes(base: dict[str, int] | None, head: dict[str, int] | None) -> list[tuple[str, int]]:
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
    ops = changes(s.base.per_op, s.head.per_op)
    what = [(short_name(n), d) for n, d in ops] or [
        (short_symbol(n), d) for n, d in changes(s.base.symbols, s.head.symbols)
    ]
    by = f" ({name(cap(what[0][0], 80))} {what[0][1]:+,})" if what else ""
    return f"biggest: {name(cap(top.target.name, 40))} on {name(s.arch)} {s.delta:+,}{by}"


def _is_op(name: str) -> bool:
    """An operator of the per-op attribution, not one of its named remainders ("(core runtime)")."""
    return not name.startswith("(")


def _selection_part(report: PrReport) -> str:
    """How the runtimes' operator selection changed (ops built in head, not in base and back), or "".
    Without it a stale or regenerated yaml's size change reads as if the PR's code had grown."""
    added = removed = targets = 0
    for t in report.targets:
        both = next((s for s in t.sizes if s.base is not None and s.head is not None), None)
        if both is None or both.base is None or both.head is None:
            continue
        before = {op for op in both.base.per_op if _is_op(op)}
        after = {op for op in both.head.per_op if _is_op(op)}
        if before != after:
            added, removed, targets = added + len(after - before), removed + len(before - after), targets + 1
    if not targets:
        return ""
    ops = " ".join(f for f in (f"+{added}" if added else "", f"-{removed}" if removed else "") if f)
    where = f" in {count(targets, 'target')}" if len(report.targets) > 1 else ""
    return f"selection {ops} op{'' if added + removed == 1 else 's'}{where}"


def _choice_part(report: PrReport, name: Callable[[object], str]) -> str:
    """How the runtimes' kernel choice changed ("kernels portable → optimized", "cpu x86-64-v3 → x86-64-v4"),
    or "": the price of a choice the PR makes, named so the size change does not read as the code growing."""
    changed = [(t.name, s) for t in report.targets for s in t.sizes if s.choice_changed and s.delta is not None]
    if not changed:
        return ""
    kernels = {(s.base_kernels or "", s.kernels) for _, s in changed if s.base_kernels != s.kernels}
    cpus = {(s.base_cpu or "default", s.cpu or "default") for _, s in changed if s.base_kernels == s.kernels}
    if kernels:
        what = "kernels " + (" → ".join(name(k) for k in next(iter(kernels))) if len(kernels) == 1 else "changed")
    else:
        what = "cpu " + (" → ".join(name(c) for c in next(iter(cpus))) if len(cpus) == 1 else "changed")
    targets = len({t for t, _ in changed})
    where = f" in {count(targets, 'target')}" if len(report.targets) > 1 else ""
    return what + where


def _unmeasured(report: PrReport, name: Callable[[object], str]) -> str:
    """The runtimes whose size or size change could not be measured, each with the build that failed
    ("x86-64 head build failed: size unknown"), or "". A size nobody measured is never "no change"."""
    found = []
    for t in report.targets:
        for s in t.sizes:
            where = name(s.arch) if len(report.targets) == 1 else f"{name(cap(t.name, 40))} on {name(s.arch)}"
            if s.build_error:
                found.append(f"{where} head build failed: size unknown")
            elif s.base_error:
                found.append(f"{where} base build failed: size change unknown")
    return ", ".join(found[:3]) + (", …" if len(found) > 3 else "")


def _size_part(report: PrReport, name: Callable[[object], str], floor: int = 0) -> str:
    """The size change; one under the noise floor (`floor` bytes) on every runtime reads "unchanged" (the
    size table keeps its exact figure)."""
    measured = [r.sizes for r in rows(report) if r.sizes.delta is not None]
    delta = sum(s.delta or 0 for s in measured)
    unknown = _unmeasured(report, name)
    if not any(abs(s.delta or 0) >= max(floor, 1) for s in measured):
        unchanged = "no size change"
        if any(s.delta for s in measured):
            unchanged = f"size unchanged (below the {floor:,}-byte noise floor)"
        if not unknown:
            return unchanged
        others = f", {unchanged} in {count(len(measured), 'other runtime')}" if measured else ""
        return unknown + others
    per_arch: dict[str, list[ArchSizes]] = {}
    for s in (s for t in report.targets for s in t.sizes if s.delta is not None):  # in config order
        per_arch.setdefault(s.arch, []).append(s)
    if len(per_arch) == 1:
        total_base = sum(s.base.vm_size for s in measured if s.base)
        change = f"{_signed(delta)} bytes"
        change += f" ({delta / total_base:+.2%})" if total_base else ""
    else:
        change = ", ".join(
            f"{_signed(sum(s.delta or 0 for s in group))} bytes on {name(arch)}" for arch, group in per_arch.items()
        )
    # A changed selection or kernel choice says where the bytes come from:
    # "selection +3 ops: runtime ▲ +51,327 bytes", "kernels portable → optimized: runtime ▲ +41,312 bytes".
    causes = ", ".join(c for c in (_selection_part(report), _choice_part(report, name)) if c)
    part = f"{causes}: {'runtime' if len(measured) == 1 else 'runtimes'} {change}" if causes else f"size {change}"
    return f"{part}, {_biggest_mover(report, name)}" + (f", {unknown}" if unknown else "")


def _failed_builds(report: PrReport) -> list[TargetReport]:
    return [t for t in report.targets if t.build_error]


def _graph_part(report: PrReport) -> str:
    added, removed = len(report.graph_added), len(report.graph_removed)
    if not added and not removed:
        return ""
    edges = [count(added, "new edge") if added else "", f"{removed} removed" if removed else ""]
    reached = {c.model for t in report.targets for c in t.closure_changes}
    reach = f", reached by {count(len(reached), 'model')}" if reached else ""
    return "op graph: " + " and ".join(e for e in edges if e) + reach


def _unchanged(report: PrReport, verdict: Verdict) -> bool:
    """No finding and no change of any kind: the PR gets the short comment."""
    return (
        not report.build_error
        and not report.stale
        and not report.model_failures
        and not report.graph_added
        and not report.graph_removed
        and not any(t.build_error for t in report.targets)
        and not report.policy_changes
        and verdict.outcome == "pass"
        and not any(r.noticeable(verdict.policy.noise_floor) for r in rows(report, verdict))
    )


def summary_line(report: PrReport, verdict: Verdict, name: Callable[[object], str] = text) -> str:
    """One line: the verdict and every kind of finding, then the size change and its biggest mover.
    `name` formats PR-controlled names (markdown by default; `plain` for a check-run title)."""
    if report.build_error:
        return "❌ the head's kernels do not build: nothing else could be checked"
    stale = [t for t in report.targets if t.diff.stale or not t.yaml_exists]
    broken = [t for t in report.targets if t.load_failures]
    unusable = [t for t in report.targets if t.yaml_error]
    failed = _failed_builds(report)
    over = [r for r in rows(report, verdict) if r.over_budget]
    warned = [r for r in rows(report, verdict) if r.warned and not r.over_budget]
    new = [
        r.sizes for r in rows(report) if r.sizes.base is None and r.sizes.head is not None and not r.sizes.base_error
    ]
    graph = _graph_part(report)
    runtimes = sum(len(t.sizes) for t in report.targets)
    parts = [count(len(report.targets), "target")]
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
        fail = "fails" if len(broken) == 1 else "fail"
        parts.append(f"{count(len(broken), 'target')} {fail} at load ({count(models, 'model')})")
    if report.model_failures:
        parts.append(f"{count(len(report.model_failures), 'model')} could not be traced")
    if graph:
        parts.append(graph)
    if over:
        where = ", ".join(f"{name(cap(r.target.name, 40))} on {name(r.sizes.arch)}" for r in over[:3])
        more = ", …" if len(over) > 3 else ""
        parts.append(f"{count(len({r.target.name for r in over}), 'target')} over budget ({where}{more})")
    if warned:
        where = ", ".join(f"{name(cap(r.target.name, 40))} on {name(r.sizes.arch)}" for r in warned[:3])
        more = ", …" if len(warned) > 3 else ""
        parts.append(f"{count(len({r.target.name for r in warned}), 'target')} over the warn level ({where}{more})")
    size_part = _size_part(report, name, verdict.policy.noise_floor)
    parts.append(size_part)
    if new:
        parts.append(f"{count(len(new), 'new runtime')} of {sum(s.head.vm_size for s in new if s.head):,} bytes")
    if report.policy_changes:
        parts.append(f"{count(len(report.policy_changes), 'policy change')} (applies once merged)")
    if _unchanged(report, verdict):
        return "✅ **No change**: " + ", ".join(parts)
    return f"{verdict.icon or '📦'} " + ", ".join(parts)


def _listed(lines: list[str], detail: Detail, kind: str, indent: str = "") -> list[str]:
    """At most `detail.items` lines; the rest counted, so the finding itself is never lost."""
    if detail.items is None or len(lines) <= detail.items:
        return lines
    return [*lines[: detail.items], f"{indent}- … and {len(lines) - detail.items} more {kind}"]


def _codes(values: tuple[str, ...] | list[str], detail: Detail) -> str:
    shown = values if detail.items is None else values[: detail.items]
    more = f" and {len(values) - len(shown)} more" if len(shown) < len(values) else ""
    return ", ".join(code(v, detail.name_limit) for v in shown) + more


_OP_NAME = re.compile(r"\b[A-Za-z_]\w*::[A-Za-z_][\w.]*")


def _names_only(failure: LoadFailure, missing: set[str]) -> bool:
    """The load failure says nothing the missing-op lines below do not: the runtime's 'missing
    operators' message, naming only ops listed there (said once, not twice). One regenerating cannot
    fix ("missing operator X and backend B": no yaml brings a backend) says more."""
    named = set(_OP_NAME.findall(failure.message))
    return "missing operator" in failure.message and bool(named) and named <= missing and failure.cannot_fix is None


def _fixable(t: TargetReport) -> tuple[LoadFailure, ...]:
    """The target's load failures a regenerated yaml fixes (the others are not a stale yaml's)."""
    return tuple(f for f in t.load_failures if f.cannot_fix is None)


def _called_by(callers: tuple[str, ...], detail: Detail) -> str:
    return f", called by {_codes(callers, detail)}" if callers else ""


def _fenced(lines: list[str], info: str = "") -> list[str]:
    """A fenced code block holding `lines` as they are: its fence is longer than any run of backticks in
    them, so no line closes it (CommonMark: a closing fence is at least as long as the opening one)."""
    longest = max((len(run) for line in lines for run in re.findall(r"`+", line)), default=0)
    fence = "`" * max(3, longest + 1)
    return [fence + info, *lines, fence]


_MENTION = re.compile(r"@(?=[A-Za-z0-9_-])")  # what could start a mention (@user, @org/team)


def _diff_line(line: str) -> str:
    """A hunk line for a code block (no markup works there): capped, invisible characters shown, never a
    mention."""
    return _MENTION.sub("@\u200b", visible(cap(line, DIFF_LINE_CHARS)))


def _changed_lines(d: YamlDiff) -> str:
    return f"+{d.added:,} -{d.removed:,} lines" + (", a new file" if d.new else "")


def _yaml_diff(d: YamlDiff | None, detail: Detail) -> list[str]:
    """The diff the patch makes to a target's yaml, collapsed: a ```diff block, capped, and what was cut."""
    if d is None or not detail.diffs or not d.hunks:
        return []
    lines = d.hunks.split("\n")[:DIFF_LINES]
    cut = max(0, d.lines - len(lines))  # the lines the report left out (the patch has them)
    more = [f"_…and {count(cut, 'more line')}: the patch holds the whole diff._", ""] if cut else []
    summary = f"the regenerated yaml: {_changed_lines(d)}"
    block = _fenced([_diff_line(line) for line in lines], "diff")
    return ["", f"<details><summary>{summary}</summary>", "", *block, "", *more, "</details>"]


def _patch_fix(report: PrReport, listed: set[str], source: patch.Source, detail: Detail) -> list[str]:
    """How to apply the patch: the files it writes besides the yamls listed (per-model yamls), by name, then
    one command that takes it from where the trusted side says it is."""
    n = detail.name_limit
    files = len(report.yaml_diffs)
    others = [f"- {code(d.path, n)} ({_changed_lines(d)})" for d in report.yaml_diffs if d.path not in listed]
    what, it = ("the regenerated yaml", "it") if files == 1 else (f"the {files:,} regenerated yamls", "them")
    intro = (
        f"Fix, with no toolchain: apply the patch of {what} ({source.where}) at the repository's root, and commit {it}"
    )
    return [
        intro + ("; besides the yamls above, it writes:" if others else ":"),
        "",
        *_listed(others, detail, "files"),
        *([""] if others else []),
        *_fenced([source.command()], "sh"),
        "",
        f"Or run `{FIX_COMMAND}` and commit the result.",
    ]


def _stale_section(report: PrReport, detail: Detail, source: patch.Source | None = None) -> list[str]:
    n = detail.name_limit
    lines: list[str] = []
    untraced = {f.model for f in report.model_failures}
    shown = blocked = 0  # targets listed, and those whose yaml regenerate leaves as checked in
    targets: set[str] = set()  # the yamls of the targets listed
    for t in report.targets:
        fixable = _fixable(t)
        if not (t.diff.stale or fixable or not t.yaml_exists or t.yaml_error):
            continue
        lines.append(f"#### {text(t.name, n)}: {code(t.yaml, n)}")
        if t.yaml_error:
            lines.append(f"- ❌ **the checked-in yaml cannot be used**: {text(t.yaml_error, detail.message_limit)}")
        elif not t.yaml_exists:
            create = "" if t.untraced_models else f": create it with `{FIX_COMMAND}`"  # see below, it cannot
            lines.append(f"- the yaml does not exist yet{create}")
        # A load failure that only names missing ops lists them under it (said once): the ops only its
        # model needs, each with the kernels that call it. Missing ops several models need follow on their own.
        missing_ops = {m.op for m in t.diff.missing}
        listed: set[str] = set()
        failures = []
        for f in fixable:
            failure = f"- ❌ **this PR breaks {code(f.model, n)} at load unless the yaml is regenerated**: "
            if not _names_only(f, missing_ops):
                failures.append(failure + text(f.message, detail.message_limit))
                continue
            own = [m for m in t.diff.missing if m.models == (f.model,) and m.op not in listed]
            listed |= {m.op for m in own}
            if not own:
                failures.append(failure + "it needs the missing ops listed below")
                continue
            ops = [f"  - missing {code(m.op, n)}{_called_by(m.callers, detail)}" for m in own]
            failures.append("\n".join([failure + "the yaml lacks", *_listed(ops, detail, "missing ops", "  ")]))
        lines += _listed(failures, detail, "models failing at load")
        # A model the tracer could not run is listed with its failure (`_model_failures`): no regenerated
        # yaml would hold its ops, so it is not named here as what regenerating fixes.
        new_models = [
            f"- new model {code(m, n)} has no ops in the checked-in yaml"
            for m in t.models_without_yaml
            if m not in untraced
        ]
        lines += _listed(new_models, detail, "new models")
        fails = "" if fixable else ": fails at load"  # the load failure above says it once
        missing = [
            f"- missing {code(m.op, n)} (needed by {_codes(m.models, detail)}{_called_by(m.callers, detail)}){fails}"
            for m in t.diff.missing
            if m.op not in listed
        ]
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
            if cause.kind == "model" and cause.path in untraced and not cause.ops:
                continue
            if cause.kind == "kernel":
                causes.append(
                    f"- cause: kernel {code(cause.kernel, n)} ({code(cause.path, n)}) {text(cause.change, n)} "
                    f"{_codes(cause.ops, detail)}"
                )
            else:
                causes.append(f"- cause: model {code(cause.path, n)} changed")
        lines += _listed(causes, detail, "causes")
        if t.untraced_models:
            blocked += 1
            lines.append(
                f"- `{FIX_COMMAND}` leaves this yaml as checked in while {_codes(t.untraced_models, detail)} "
                f"cannot be traced: {'it has' if len(t.untraced_models) == 1 else 'they have'} no checked-in "
                "per-model yaml to stand in"
            )
        lines += _yaml_diff(report.yaml_diff(t.yaml), detail)
        lines.append("")
        shown += 1
        targets.add(t.yaml)
    if lines:
        fix = [f"Fix: run `{FIX_COMMAND}` and commit the result."]
        if blocked == shown:  # regenerating alone rewrites none of these yamls
            fix = [
                "Fix: make the models the tracer could not run traceable, or check in their per-model yamls; "
                f"then run `{FIX_COMMAND}` and commit the result."
            ]
        elif source is not None and report.yaml_diffs:
            fix = _patch_fix(report, targets, source, detail)
        lines = ["### Stale yaml", "", *lines, *fix, ""]
    return lines


def _cannot_fix(failure: LoadFailure, detail: Detail) -> str:
    """The failure's fix line when regenerating cannot fix it (report/model.py decides), as a nested item."""
    why = failure.cannot_fix
    if why is None:
        return ""
    limit = detail.message_limit
    return f"\n  - **regenerating cannot fix this**: {text(why.reason, limit)}. Fix: {text(why.fix, limit)}."


def _model_failures(report: PrReport, detail: Detail) -> list[str]:
    """Models the tracer could not run, then models failing at load for a reason no yaml fixes (when the
    tracer ran them): each with its error line and, when regenerating cannot fix it, what does."""
    n, limit = detail.name_limit, detail.message_limit
    out: list[str] = []
    if report.model_failures:
        lines = [
            f"- ❌ {code(f.model, n)}: {text(f.message, limit)}{_cannot_fix(f, detail)}" for f in report.model_failures
        ]
        out += ["### Models the tracer could not run", "", *_listed(lines, detail, "models"), ""]
    untraced = {f.model for f in report.model_failures}
    at_load = [
        f"- ❌ {text(t.name, n)}: {code(f.model, n)}: {text(f.message, limit)}{_cannot_fix(f, detail)}"
        for t in report.targets
        for f in t.load_failures
        if f.cannot_fix is not None and f.model not in untraced
    ]
    if at_load:
        out += ["### Models failing at load whatever the yaml", "", *_listed(at_load, detail, "models"), ""]
    return out


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


def _not_traced(report: PrReport, verdict: Verdict, detail: Detail) -> list[str]:
    """Ops static analysis says a model can reach that no traced run reached: context for a PR that
    changes something; the same on every PR otherwise, so a PR that changes nothing does not repeat it."""
    rows = [(t.name, n) for t in report.targets for n in t.not_traced]
    if not rows or not detail.not_traced or _unchanged(report, verdict):
        return []
    lines = ["<details><summary>Reachable, not traced: ops a model can reach that no traced run reached</summary>", ""]
    for target, n in rows:
        lines.append(f"- {text(target)}: {code(n.model)}: " + ", ".join(code(op) for op in n.ops))
    return [*lines, "", "</details>", ""]


_SETTINGS = {"fail_on.stale": "failing on a stale yaml", "fail_on.budget": "failing on a size budget"}
# A size limit's setting (size_limits.<level>.<measure>) in words; the fail level's size is the budget.
_LIMITS = {
    "size": "{level} size limit",
    "growth": "{level} growth limit",
    "growth_percent": "{level} growth limit",
    "op_growth": "{level} per-op growth limit",
}
_BUDGET_SETTINGS = ("size_budget", "size_limits.fail.size")


def _amount(value: int | float | bool, percent: bool) -> str:
    return f"{value:g}%" if percent else f"{value:,} bytes"


def _limit_label(setting: str) -> str | None:
    """A size limit's setting in words ("budget", "warn growth limit"); None for any other setting."""
    if setting in _BUDGET_SETTINGS:
        return "budget"
    level, _, measure = setting.removeprefix("size_limits.").partition(".")
    if setting.startswith("size_limits.") and level in ("warn", "fail") and measure in _LIMITS:
        return _LIMITS[measure].format(level=level)
    return None


def policy_sentence(change: PolicyChange, name: Callable[[object], str] = text) -> str:
    """ "this PR raises sensor-app's cortex-m budget from 262,144 to 300,000 bytes", and the like."""
    before, after = change.before, change.after
    label = _limit_label(change.setting)
    if label is None and change.setting == "noise_floor" and before is not None and after is not None:
        verb = "raises" if after > before else "lowers"
        return f"this PR {verb} the noise floor from {before:,} to {after:,} bytes"
    if label is None:
        setting = _SETTINGS.get(change.setting, name(change.setting))
        return f"this PR turns {'on' if change.after else 'off'} {setting}"
    whose = f"{name(change.target)}'s {name(change.arch)} {label}"
    percent = change.setting.endswith(".growth_percent")
    if before is None and after is not None:
        return f"this PR sets {whose} to {_amount(after, percent)}"
    if after is None and before is not None:
        return f"this PR removes {whose} of {_amount(before, percent)}"
    assert before is not None and after is not None
    verb = "raises" if after > before else "lowers"
    return f"this PR {verb} {whose} from {_amount(before, percent).removesuffix(' bytes')} to {_amount(after, percent)}"


def _policy_section(report: PrReport, detail: Detail) -> list[str]:
    if not report.policy_changes:
        return []
    lines = [f"- {policy_sentence(c)}" for c in report.policy_changes]
    return [
        "### Policy changes",
        "",
        "This PR is judged by the base branch's policy; its own applies once merged.",
        "",
        *_listed(lines, detail, "changes"),
        "",
    ]


def _budget_cell(r: Row) -> str:
    """The runtime against its limits: ❌ over a fail level, ⚠️ over a warn level, ✅ within; with its budget
    (the fail level's size) when it has one."""
    if not r.gated and r.budget is None:
        return "n/a"
    state = "❌ over" if r.over_budget else "⚠️ warn" if r.warned else "✅"
    return f"{state} {r.budget:,}" if r.budget is not None else state


def _size_table(report: PrReport, verdict: Verdict, detail: Detail) -> list[str]:
    """Runtimes that moved (or are new, failed or over budget), largest change first; the rest counted."""
    if not detail.size_rows:
        return []
    all_rows = rows(report, verdict)
    shown = [r for r in all_rows if r.changed]
    unchanged = len(all_rows) - len(shown)
    if not shown:
        if not unchanged:
            return []
        return [
            f"Sizes (VM bytes): {'the runtime is' if unchanged == 1 else f'all {unchanged} runtimes'} unchanged.",
            "",
        ]
    n = detail.name_limit
    arch = only_arch(report)
    where = f" on {text(arch, n)}" if arch else ""
    lines = [
        "### Sizes",
        "",
        f"VM bytes{where}: the loadable sections of the stripped runtime, as it ships.",
        "",
        "| target | arch | base | head | Δ bytes | Δ % | budget |"
        if not arch
        else "| target | base | head | Δ bytes | Δ % | budget |",
        "|---|---|---:|---:|---:|---:|---:|" if not arch else "|---|---:|---:|---:|---:|---:|",
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
        arch_cell = "" if arch else f" {text(s.arch, n)} |"
        lines.append(
            f"| {text(r.target.name, n)} |{arch_cell} {_bytes(base)} | {_bytes(head)} | {delta} | {pct} "
            f"| {_budget_cell(r)} |"
        )
    if unchanged:
        lines += ["", f"…and {count(unchanged, 'unchanged runtime')}."]
    return [*lines, ""]


def _limits_section(verdict: Verdict, detail: Detail) -> list[str]:
    """Every breach of a size limit, fail level first (the verdict's, exact bytes), and the `Binary-Size:`
    line that lets fail-level breaches pass, quoted (the PR body is PR-controlled: made inert). A finding:
    kept whatever the comment's size."""
    if not verdict.breaches:
        return []
    n = detail.name_limit

    def name(value: object) -> str:
        return text(value, n)

    lines = []
    for b in verdict.breaches:
        icon = "❌" if b.level == "fail" else "⚠️"
        lines.append(f"- {icon} **{b.level}**: {b.describe(name)}")
    out = [
        "### Size limits",
        "",
        "The base branch's limits (a PR's own apply once merged); a warn level never fails the PR.",
        "",
        *_listed(lines, detail, "breaches"),
        "",
    ]
    fails = any(b.level == "fail" for b in verdict.breaches)
    if fails and not verdict.policy.fail_on_budget:
        out += ["`fail_on.budget` is off: a fail level does not fail the PR.", ""]
    elif verdict.overridden:
        reason = text(verdict.policy.size_reason, detail.message_limit)
        out += ["The PR body's `Binary-Size:` line lets it pass over its fail levels:", "", f"> {reason}", ""]
    elif fails:
        out += ["To pass anyway, add a `Binary-Size: <reason>` line to the PR body.", ""]
    return out


def kernels_phrase(kernels: str, cpu: str | None) -> str:
    """A kernel choice in words: "optimized kernels (x86-64-v3)", "optimized kernels for 2 ops"."""
    phrase = f"optimized kernels for {kernels.split(': ', 1)[1]}" if ": " in kernels else f"{kernels} kernels"
    return f"{phrase} ({cpu})" if cpu else phrase


def choice_cost(s: ArchSizes) -> str:
    """What the runtime's kernel choice costs: "+41,312 bytes (+38.62%) over portable kernels", or ""."""
    cost = s.optimized_cost
    if cost is None or s.portable is None:
        return ""
    share = f" ({abs(cost) / s.portable.vm_size:.2%})" if s.portable.vm_size else ""
    if cost >= 0:
        return f"+{cost:,} bytes{share.replace('(', '(+')} over portable kernels"
    return f"{-cost:,} bytes{share} under portable kernels"


def _kernel_choice(report: PrReport, detail: Detail) -> list[str]:
    """Each runtime whose target chose speed (optimized kernels), or whose kernel choice this PR
    changed: the choice and what it costs in bytes over the same selection with portable kernels. The
    price of a choice, not a regression: it is stated on every PR, and portable targets get no line."""
    n = detail.name_limit
    lines = []
    for t in report.targets:
        for s in t.sizes:
            if s.head is None or (s.portable is None and not s.choice_changed):
                continue
            line = f"- {text(t.name, n)} on {text(s.arch, n)}: {text(kernels_phrase(s.kernels, s.cpu), n)}"
            cost = choice_cost(s)
            if cost and s.portable is not None:
                line += f", {cost}: {s.portable.vm_size:,} → {s.head.vm_size:,}"
                ops = changes(s.portable.per_op, s.head.per_op)[:3]
                if ops and detail.movers:
                    line += " (" + ", ".join(f"{code(short_name(op), n)} {d:+,}" for op, d in ops) + ")"
            if s.choice_changed:
                before = kernels_phrase(s.base_kernels or "", s.base_cpu)
                line += f"; changed in this PR from {text(before, n)}"
            lines.append(line)
    if not lines:
        return []
    intro = "VM bytes each runtime's kernel choice costs over the same selection built with portable kernels only:"
    return ["### Kernel choice", "", intro, "", *_listed(lines, detail, "runtimes"), ""]


def _movers(report: PrReport, detail: Detail) -> list[str]:
    """The ops and symbols that moved most: one line per name, architecture and change, naming the targets."""
    if not detail.movers:
        return []
    out: list[str] = []
    one_arch = only_arch(report) is not None
    one_target = len(report.targets) == 1
    for kind, field in (("op", "per_op"), ("symbol", "symbols")):
        grouped: dict[tuple[str, str, int], list[str]] = {}
        for r in rows(report):
            s = r.sizes
            if s.base is None or s.head is None or not s.delta:
                continue
            for what, change in changes(getattr(s.base, field), getattr(s.head, field)):
                grouped.setdefault((what, s.arch, change), []).append(r.target.name)
        if not grouped:
            continue
        ordered = sorted(grouped.items(), key=lambda kv: (-abs(kv[0][2]), kv[0][0], kv[0][1]))
        # Columns that would say the same on every row (one architecture, one target) are left out.
        columns = [kind] + ([] if one_arch else ["arch"]) + ["Δ bytes"] + ([] if one_target else ["targets"])
        out += [
            "| " + " | ".join(columns) + " |",
            "|" + "|".join("---:" if c == "Δ bytes" else "---" for c in columns) + "|",
        ]
        for (what, arch, change), targets in ordered[:TOP_MOVERS]:
            cells = [code(short_symbol(what) if kind == "symbol" else short_name(what))]
            cells += [] if one_arch else [text(arch)]
            cells.append(_signed(change))
            if not one_target:
                more = f" and {len(targets) - 3} more" if len(targets) > 3 else ""
                cells.append(", ".join(text(t) for t in targets[:3]) + more)
            out.append("| " + " | ".join(cells) + " |")
        if len(ordered) > TOP_MOVERS:
            out.append(f"| …and {len(ordered) - TOP_MOVERS} more |" + " |" * (len(columns) - 1))
        legend = _legend([what for (what, _, _), _ in ordered[:TOP_MOVERS]])
        out += ["", *legend] if legend else []
        out.append("")
    return ["### Top movers", "", *out] if out else []


def _breakdown(r: Row) -> list[str]:
    s = r.sizes
    if s.head is None or not r.changed:
        return []
    base = s.base
    lines = [
        f"<details><summary>{r.label(escape=html_text)}: sections, .bss, file size, operators, symbols</summary>",
        "",
    ]
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
        moved = changes(base_map, head_map)
        if not moved:
            continue
        lines += ["", f"| {heading} | base | head | Δ |", "|---|---:|---:|---:|"]
        for what, _ in moved:
            b, h = base_map.get(what), head_map.get(what)
            lines.append(f"| {code(short_name(what))} | {_bytes(b)} | {_bytes(h)} | {_delta(b, h)[0]} |")
        same = len(set(base_map) | set(head_map)) - len(moved)
        if same:
            lines.append(f"| …and {same} unchanged | | | |")
        legend = _legend([what for what, _ in moved])
        lines += ["", *legend] if legend else []
    symbols = changes(base.symbols if base else {}, s.head.symbols)
    if symbols:
        lines += ["", "| top symbol changes | Δ bytes |", "|---|---:|"]
        for what, change in symbols[:TOP_SYMBOLS]:
            lines.append(f"| {code(short_symbol(what))} | {_signed(change)} |")
    return [*lines, "", "</details>", ""]


def _chart_label(r: Row) -> str:
    def safe(value: str) -> str:
        return cap("".join(ch for ch in value if ch.isascii() and (ch.isalnum() or ch in "-_.")), 30)

    return f'"{safe(r.target.name)}/{safe(r.sizes.arch)}"'


GREW, SHRANK = "#cf222e", "#1a7f37"  # GitHub's danger and success colours: legible on light and dark


def _chart_init(bars: int, series: list[str]) -> str:
    """Mermaid's init directive: the series' colours in order, and a size that fits the bars."""
    palette = ", ".join(GREW if name == "grew" else SHRANK for name in series)
    width = min(800, max(560, 200 + 90 * bars))  # the title fits; bars stay bars, not slabs
    config = (
        f'{{"xyChart": {{"width": {width}, "height": 320}}, '
        f'"themeVariables": {{"xyChart": {{"plotColorPalette": "{palette}"}}}}}}'
    )
    return f"%%{{init: {config}}}%%"


def _chart(report: PrReport, detail: Detail) -> list[str]:
    """When more than one runtime moved: how much each grew or shrank, as two labelled series.
    One runtime's change is the size table's one row already: no chart repeats it."""
    moved = [r for r in rows(report) if r.sizes.delta][:CHART_BARS]
    if len(moved) < 2 or not detail.chart:
        return []
    deltas = [r.sizes.delta or 0 for r in moved]
    top = max(abs(d) for d in deltas)
    series = [
        name
        for name, present in (("grew", any(d > 0 for d in deltas)), ("shrank", any(d < 0 for d in deltas)))
        if present
    ]
    lines = [
        "```mermaid",
        _chart_init(len(moved), series),
        "xychart-beta",
        '  title "Size change per runtime (VM bytes, head - base)"',
        f"  x-axis [{', '.join(_chart_label(r) for r in moved)}]",
        f'  y-axis "bytes" 0 --> {top}',
    ]
    if any(d > 0 for d in deltas):
        lines.append(f'  bar "grew" [{", ".join(str(max(d, 0)) for d in deltas)}]')
    if any(d < 0 for d in deltas):
        lines.append(f'  bar "shrank" [{", ".join(str(max(-d, 0)) for d in deltas)}]')
    return [*lines, "```", ""]


def _build_messages(messages: str) -> str:
    """A failed build's error lines inside <pre>: entities only (the block is raw HTML), at most
    BUILD_MESSAGES lines of BUILD_MESSAGE_LIMIT characters, whatever an artifact holds."""
    lines = [visible(cap(line.rstrip("\r"), BUILD_MESSAGE_LIMIT)) for line in messages.split("\n")[:BUILD_MESSAGES]]
    return html.escape("\n".join(lines)).replace("@", "&#64;&#8203;")


def _build_errors(report: PrReport, detail: Detail) -> list[str]:
    """Each failed build: the step that failed, then its error lines located in the repo (bot/build/build_log.py)."""
    lines = []
    n = detail.name_limit
    failures = [(text("head kernels"), report.build_error)] + [
        (f"{text(t.name, n)} on {text(s.arch, n)}", s.build_error) for t in report.targets for s in t.sizes
    ]
    for name, error in failures:
        if error:
            message, _, messages = error.partition("\n")
            lines += [f"#### {name}: build failed", ""]
            lines += [text(message, detail.message_limit), ""]
            if messages.strip() and detail.build_messages:
                lines += ["<details><summary>error lines</summary>", "", f"<pre>{_build_messages(messages)}</pre>"]
                lines += ["</details>", ""]
    return ["### Build failures", "", *lines] if lines else []


def _header(report: PrReport, verdict: Verdict) -> list[str]:
    head_label = report.head_sha if report.head_sha == "working tree" else report.head_sha[:12]
    return [
        MARKER,
        f"<!-- selective-build-head: {commit(report.head_sha)} -->",
        "## Selective build report",
        "",
        summary_line(report, verdict),
        "",
        f"Base {code(report.base_ref)} ({code(report.base_sha[:12])}) → head {code(head_label)}",
        "",
        *([f"Runtime: {text(report.runtime)}", ""] if report.runtime else []),  # which runtime was built
    ]


def _compose(report: PrReport, verdict: Verdict, detail: Detail, source: patch.Source | None = None) -> str:
    lines = (
        _header(report, verdict)
        + _build_errors(report, detail)
        + _stale_section(report, detail, source)
        + _model_failures(report, detail)
        + _limits_section(verdict, detail)
        + _policy_section(report, detail)
        + _graph_section(report, detail)
        + _size_table(report, verdict, detail)
        + _kernel_choice(report, detail)
        + _movers(report, detail)
        + _chart(report, detail)
        + _not_traced(report, verdict, detail)
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


def render(report: PrReport, verdict: Verdict, limit: int = REPORT_LIMIT, source: patch.Source | None = None) -> str:
    """The comment on a report judged by `verdict`: the most detailed level that fits in `limit` characters.
    `source`: where the patch of the stale yamls can be taken from (the trusted side's word); None offers
    none, and the fix is to regenerate."""
    for detail in LEVELS:
        rendered = _compose(report, verdict, detail, source)
        if len(rendered) <= limit:
            return rendered
    # Only a pathological report (tens of thousands of targets) gets here. The
    # last level is headings and list items, so whole lines can be dropped safely.
    cut = "\n_Report truncated to fit GitHub's comment limit._"
    kept = rendered[: limit - len(cut)].rsplit("\n", 1)[0]
    return kept + cut
