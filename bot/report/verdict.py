"""Whether a PR passes: decided here, once, from a report and a policy.

The policy is the base branch's (its `.selective-build.yml`: `fail_on`, every
target's size limits and the noise floor), never the PR's own, plus the PR
body's `Binary-Size:` line. A PR that changes the policy is judged by the one it
started from; the change is named in the report (`policy_changes`) and takes
effect once merged.

Size limits come in two levels per target and architecture, `warn` and `fail`,
each bounding any of: the head's VM bytes (`size`), its growth over the base in
bytes (`growth`) or percent (`growth_percent`), and the growth of any one op's
attribution (`op_growth`). A fail-level breach fails the PR (unless the PR body
has a `Binary-Size:` line, or `fail_on.budget` is off: then it is waived); a
warn-level breach never fails it. A growth smaller than the noise floor is no
growth: it breaks no growth limit and the headline calls it unchanged (a `size`
limit is exact).

Everything that states a verdict reads it from `judge`: the CLI's exit code, the
Action's exit code, outputs and check-run conclusion (analyze and post mode
alike), and the comment's icon, headline, limit column and findings. Post mode
judges the artifact's data with its own policy (the default branch's config and
the PR body from the API); an artifact never carries a verdict.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction

from bot.errors import ExitCode
from bot.report.escape import plain
from bot.report.model import ArchSizes, LoadFailure, PolicyChange, PrReport

BINARY_SIZE_LINE = re.compile(r"^Binary-Size:[ \t]*(\S[^\r\n]*)", re.MULTILINE)
REASON_LIMIT = 400  # characters of a quoted message in a reason
DEFAULT_NOISE_FLOOR = 8  # bytes: a smaller size change reads "unchanged" in the headline
LEVELS = ("warn", "fail")
MEASURES = ("size", "growth", "growth_percent", "op_growth")
BREACHES_NAMED = 3  # breaches a reason names before counting the rest


@dataclass(frozen=True)
class Level:
    """One level's limits; None: that measure is not limited."""

    size: int | None = None  # VM bytes the head's runtime may have
    growth: int | None = None  # VM bytes it may grow over the base
    growth_percent: float | None = None  # percent it may grow over the base
    op_growth: int | None = None  # VM bytes any one op's attribution (the size report's per_op) may grow

    def get(self, measure: str) -> int | float | None:
        return getattr(self, measure)

    def limited(self) -> bool:
        """Whether it limits anything."""
        return any(self.get(m) is not None for m in MEASURES)


@dataclass(frozen=True)
class Gate:
    """A target's size limits on one architecture."""

    target: str
    arch: str
    warn: Level = Level()
    fail: Level = Level()

    def level(self, name: str) -> Level:
        return self.warn if name == "warn" else self.fail


@dataclass(frozen=True)
class Policy:
    """What fails a PR, and what warns."""

    fail_on_stale: bool = True
    fail_on_budget: bool = True
    gates: tuple[Gate, ...] = ()
    noise_floor: int = DEFAULT_NOISE_FLOOR
    size_reason: str = ""  # the PR body's `Binary-Size:` reason ("": none), which lets a runtime over a fail level pass

    def gate(self, target: str, arch: str) -> Gate | None:
        return next((g for g in self.gates if (g.target, g.arch) == (target, arch)), None)

    def budget(self, target: str, arch: str) -> int | None:
        """The fail level's size limit (the size budget): VM bytes, None when there is none."""
        gate = self.gate(target, arch)
        return gate.fail.size if gate is not None else None

    def for_pr(self, body: str) -> Policy:
        """This policy for a PR with this body."""
        return dataclasses.replace(self, size_reason=size_reason(body))

    def overridden(self, fail_on_stale: bool | None, fail_on_budget: bool | None) -> Policy:
        """With the workflow's `fail-on-*` inputs, where they are set (None: the config decides)."""
        return dataclasses.replace(
            self,
            fail_on_stale=self.fail_on_stale if fail_on_stale is None else fail_on_stale,
            fail_on_budget=self.fail_on_budget if fail_on_budget is None else fail_on_budget,
        )


def size_reason(body: str) -> str:
    found = BINARY_SIZE_LINE.search(body or "")
    return found.group(1).strip() if found else ""


@dataclass(frozen=True)
class Breach:
    """A runtime over one of its limits."""

    target: str
    arch: str
    level: str  # "warn" or "fail"
    measure: str  # one of MEASURES
    value: int | float  # the head's VM bytes (size), bytes grown, percent grown
    limit: int | float
    op: str = ""  # the op whose attribution grew (op_growth)
    grown: int = 0  # the bytes behind a percent (growth_percent)

    def describe(self, name: Callable[[object], str] = plain) -> str:
        """One line, e.g. "seq on x86-64 grew +312 bytes, over its warn level of +256"; `name` formats
        PR-controlled names (plain text by default; the comment passes its markdown escaper)."""
        where = f"{name(self.target)} on {name(self.arch)}"
        level = f"{self.level} level"
        if self.measure == "size":
            return f"{where} is {self.value:,} bytes, over its {level} of {self.limit:,}"
        if self.measure == "growth":
            return f"{where} grew {self.value:+,} bytes, over its {level} of +{self.limit:,}"
        if self.measure == "growth_percent":
            return f"{where} grew {self.grown:+,} bytes ({self.value:+.2f}%), over its {level} of +{self.limit:g}%"
        return f"{name(self.op)} grew {self.value:+,} bytes in {where}, over the {level} of +{self.limit:,} per op"


@dataclass(frozen=True)
class Reason:
    kind: str  # "build", "untraced", "load" (fails at load whatever the yaml), "stale", "budget" or "warn"
    message: str  # plain text, one line; escaped where it is shown


@dataclass(frozen=True)
class Verdict:
    policy: Policy
    failures: tuple[Reason, ...]  # why the PR fails (empty: it passes)
    waived: tuple[Reason, ...]  # findings this policy lets pass (a stale yaml with fail_on.stale off, ...)
    breaches: tuple[Breach, ...] = ()  # every runtime over a limit, fail level first
    warnings: tuple[Reason, ...] = ()  # warn-level findings: shown, never failing

    @property
    def passed(self) -> bool:
        return not self.failures

    @property
    def exit_code(self) -> ExitCode:
        if any(r.kind == "build" for r in self.failures):
            return ExitCode.BUILD
        return ExitCode.FINDINGS if self.failures else ExitCode.OK

    @property
    def outcome(self) -> str:
        """ "fail", "warn" (passes with warnings or waived findings) or "pass": the Action's `verdict` output."""
        return "fail" if self.failures else "warn" if self.waived or self.warnings else "pass"

    @property
    def conclusion(self) -> str:
        """The check run's: failure, neutral (passes with warnings or waived findings) or success."""
        return {"fail": "failure", "warn": "neutral", "pass": "success"}[self.outcome]

    @property
    def icon(self) -> str:
        """❌ fails, ⚠️ passes with warnings or findings the policy waived, "" passes clean (the comment
        picks ✅ or 📦)."""
        return {"fail": "❌", "warn": "⚠️", "pass": ""}[self.outcome]

    def budget(self, target: str, arch: str) -> int | None:
        return self.policy.budget(target, arch)

    def gate(self, target: str, arch: str) -> Gate | None:
        return self.policy.gate(target, arch)

    def over(self, target: str, arch: str) -> Breach | None:
        """The runtime's first fail-level breach (None: it is within its fail level)."""
        return next((b for b in self.breaches if (b.target, b.arch, b.level) == (target, arch, "fail")), None)

    def warned(self, target: str, arch: str) -> Breach | None:
        """The runtime's first warn-level breach."""
        return next((b for b in self.breaches if (b.target, b.arch, b.level) == (target, arch, "warn")), None)

    @property
    def overridden(self) -> bool:
        """Fail-level breaches let pass by the PR body's `Binary-Size:` line."""
        return (
            any(b.level == "fail" for b in self.breaches)
            and self.policy.fail_on_budget
            and bool(self.policy.size_reason)
        )


def _grew(change: int, floor: int) -> bool:
    """A growth that counts: positive and not below the noise floor."""
    return change > 0 and change >= floor


def _over_percent(change: int, base: int, limit: float) -> bool:
    """`change` is more than `limit` percent of `base`, exactly (0.1 is a tenth, not the float nearest it)."""
    return Fraction(change * 100, base) > Fraction(str(limit))


def _level_breaches(target: str, sizes: ArchSizes, name: str, level: Level, floor: int) -> list[Breach]:
    head, base = sizes.head, sizes.base
    if head is None:
        return []
    found = []
    if level.size is not None and head.vm_size > level.size:
        found.append(Breach(target, sizes.arch, name, "size", head.vm_size, level.size))
    if base is None:  # new here, or its base could not be built: nothing grew
        return found
    change = head.vm_size - base.vm_size
    if _grew(change, floor):
        if level.growth is not None and change > level.growth:
            found.append(Breach(target, sizes.arch, name, "growth", change, level.growth))
        limit = level.growth_percent
        if limit is not None and base.vm_size > 0 and _over_percent(change, base.vm_size, limit):
            percent = change * 100 / base.vm_size
            found.append(Breach(target, sizes.arch, name, "growth_percent", percent, limit, grown=change))
    if level.op_growth is not None:
        ops = [op for op in {*head.per_op, *base.per_op} if not op.startswith("(")]  # "(core runtime)": no op
        grown = [(op, head.per_op.get(op, 0) - base.per_op.get(op, 0)) for op in ops]
        for op, change in sorted(grown, key=lambda item: (-item[1], item[0])):
            if _grew(change, floor) and change > level.op_growth:
                found.append(Breach(target, sizes.arch, name, "op_growth", change, level.op_growth, op))
    return found


def breaches(target: str, sizes: ArchSizes, gate: Gate, floor: int) -> tuple[Breach, ...]:
    """The runtime's breaches of its gate, fail level first; a warn-level breach of a measure (and op)
    that also breaks the fail level is left out: the fail level says it."""
    failed = _level_breaches(target, sizes, "fail", gate.fail, floor)
    said = {(b.measure, b.op) for b in failed}
    warned = [b for b in _level_breaches(target, sizes, "warn", gate.warn, floor) if (b.measure, b.op) not in said]
    return (*failed, *warned)


def _details(found: Sequence[Breach]) -> str:
    shown = "; ".join(b.describe() for b in found[:BREACHES_NAMED])
    return shown + (f"; and {len(found) - BREACHES_NAMED} more" if len(found) > BREACHES_NAMED else "")


def judge(report: PrReport, policy: Policy) -> Verdict:
    failures: list[Reason] = []
    waived: list[Reason] = []
    warnings: list[Reason] = []
    first_build = report.first_build_error()
    if first_build:
        failures.append(Reason("build", f"build failed: {plain(first_build, REASON_LIMIT)}"))
    if report.model_failures:
        n = len(report.model_failures)
        models = f"{n} model{'s' if n != 1 else ''}"
        failures.append(Reason("untraced", f"{models} could not be traced, first {_first(report.model_failures)}"))
    # A model failing at load for a reason no yaml fixes (a missing backend, ...) fails whatever the yaml
    # policy says, as an untraceable one does; said once when the tracer could not run it either.
    untraced = {f.model for f in report.model_failures}
    unfixable = [f for t in report.targets for f in t.load_failures if f.cannot_fix and f.model not in untraced]
    if unfixable:
        n = len({f.model for f in unfixable})
        models = "1 model fails" if n == 1 else f"{n} models fail"
        failures.append(Reason("load", f"{models} at load whatever the yaml, first {_first(unfixable)}"))
    if report.stale:
        stale = Reason("stale", "the selected-operators yaml is stale")
        (failures if policy.fail_on_stale else waived).append(stale)
    found = [
        breach
        for t in report.targets
        for s in t.sizes
        if (gate := policy.gate(t.name, s.arch)) is not None
        for breach in breaches(t.name, s, gate, policy.noise_floor)
    ]
    over = [b for b in found if b.level == "fail"]
    warned = [b for b in found if b.level == "warn"]
    if over:
        message = f"over the size budget: {_details(over)}"
        if not policy.fail_on_budget:
            waived.append(Reason("budget", message))
        elif policy.size_reason:
            reason = plain(policy.size_reason, REASON_LIMIT)
            waived.append(Reason("budget", f"{message} (Binary-Size: {reason})"))
        else:
            failures.append(Reason("budget", f"{message} (add a 'Binary-Size: <reason>' line to the PR body)"))
    if warned:
        warnings.append(Reason("warn", f"over the warn level: {_details(warned)}"))
    return Verdict(policy, tuple(failures), tuple(waived), (*over, *warned), tuple(warnings))


def _first(failures: Sequence[LoadFailure]) -> str:
    """The first failure, quoted (plain), with why regenerating cannot fix it when that is known."""
    first = failures[0]
    why = first.cannot_fix
    return f"{plain(first.model)}: {plain(first.message, REASON_LIMIT)}" + (
        f"; {plain(why.line, REASON_LIMIT)}" if why else ""
    )


def policy_changes(base: Policy, head: Policy) -> tuple[PolicyChange, ...]:
    """What the PR's own config would change in the policy (it applies once merged)."""
    changes = [
        PolicyChange("", "", f"fail_on.{name}", before, after)
        for name, before, after in (
            ("stale", base.fail_on_stale, head.fail_on_stale),
            ("budget", base.fail_on_budget, head.fail_on_budget),
        )
        if before != after
    ]
    if base.noise_floor != head.noise_floor:
        changes.append(PolicyChange("", "", "noise_floor", base.noise_floor, head.noise_floor))
    keys = dict.fromkeys((g.target, g.arch) for g in (*base.gates, *head.gates))
    for target, arch in keys:
        before = base.gate(target, arch) or Gate(target, arch)
        after = head.gate(target, arch) or Gate(target, arch)
        for level in LEVELS:
            for measure in MEASURES:
                was, now = before.level(level).get(measure), after.level(level).get(measure)
                if was != now:
                    changes.append(PolicyChange(target, arch, f"size_limits.{level}.{measure}", was, now))
    return tuple(changes)


def budgets(entries: Iterable[tuple[str, str, int | None]]) -> tuple[Gate, ...]:
    """Gates from (target, arch, budget) entries, the `size_budget` form: a fail level in VM bytes; an
    entry without a budget sets none."""
    return tuple(Gate(target, arch, fail=Level(size=limit)) for target, arch, limit in entries if limit is not None)
