"""Whether a PR passes: decided here, once, from a report and a policy.

The policy is the base branch's (its `.selective-build.yml`: `fail_on` and every
`size_budget`), never the PR's own, plus the PR body's `Binary-Size:` line. A PR
that changes the policy is judged by the one it started from; the change is named
in the report (`policy_changes`) and takes effect once merged.

Everything that states a verdict reads it from `judge`: the CLI's exit code, the
Action's exit code and check-run conclusion (analyze and post mode alike), and
the comment's icon, headline and budget column. Post mode judges the artifact's
data with its own policy (the default branch's config and the PR body from the
API); an artifact never carries a verdict.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from bot.errors import ExitCode
from bot.report.escape import plain
from bot.report.model import LoadFailure, PolicyChange, PrReport

BINARY_SIZE_LINE = re.compile(r"^Binary-Size:[ \t]*(\S[^\r\n]*)", re.MULTILINE)
REASON_LIMIT = 400  # characters of a quoted message in a reason


@dataclass(frozen=True)
class Budget:
    target: str
    arch: str
    limit: int  # VM bytes


@dataclass(frozen=True)
class Policy:
    """What fails a PR."""

    fail_on_stale: bool = True
    fail_on_budget: bool = True
    budgets: tuple[Budget, ...] = ()
    size_reason: str = ""  # the PR body's `Binary-Size:` reason ("": none), which lets a runtime exceed its budget

    def budget(self, target: str, arch: str) -> int | None:
        return next((b.limit for b in self.budgets if (b.target, b.arch) == (target, arch)), None)

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
class OverBudget:
    target: str
    arch: str
    size: int  # the head's VM bytes
    limit: int


@dataclass(frozen=True)
class Reason:
    kind: str  # "build", "untraced", "load" (fails at load whatever the yaml), "stale" or "budget"
    message: str  # plain text, one line; escaped where it is shown


@dataclass(frozen=True)
class Verdict:
    policy: Policy
    failures: tuple[Reason, ...]  # why the PR fails (empty: it passes)
    waived: tuple[Reason, ...]  # findings this policy lets pass (a stale yaml with fail_on.stale off, ...)
    over_budget: tuple[OverBudget, ...]

    @property
    def passed(self) -> bool:
        return not self.failures

    @property
    def exit_code(self) -> ExitCode:
        if any(r.kind == "build" for r in self.failures):
            return ExitCode.BUILD
        return ExitCode.FINDINGS if self.failures else ExitCode.OK

    @property
    def icon(self) -> str:
        """❌ fails, ⚠️ passes with findings the policy waived, "" passes clean (the comment picks ✅ or 📦)."""
        return "❌" if self.failures else "⚠️" if self.waived else ""

    def budget(self, target: str, arch: str) -> int | None:
        return self.policy.budget(target, arch)

    def over(self, target: str, arch: str) -> OverBudget | None:
        return next((o for o in self.over_budget if (o.target, o.arch) == (target, arch)), None)


def judge(report: PrReport, policy: Policy) -> Verdict:
    failures: list[Reason] = []
    waived: list[Reason] = []
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
    over = tuple(
        OverBudget(t.name, s.arch, s.head.vm_size, limit)
        for t in report.targets
        for s in t.sizes
        if s.head is not None and (limit := policy.budget(t.name, s.arch)) is not None and s.head.vm_size > limit
    )
    if over:
        where = ", ".join(f"{plain(o.target)} on {plain(o.arch)}" for o in over)
        if not policy.fail_on_budget:
            waived.append(Reason("budget", f"over the size budget: {where}"))
        elif policy.size_reason:
            reason = plain(policy.size_reason, REASON_LIMIT)
            waived.append(Reason("budget", f"over the size budget: {where} (Binary-Size: {reason})"))
        else:
            failures.append(
                Reason("budget", f"over the size budget: {where} (add a 'Binary-Size: <reason>' line to the PR body)")
            )
    return Verdict(policy, tuple(failures), tuple(waived), over)


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
    keys = dict.fromkeys((b.target, b.arch) for b in (*base.budgets, *head.budgets))
    for target, arch in keys:
        before, after = base.budget(target, arch), head.budget(target, arch)
        if before != after:
            changes.append(PolicyChange(target, arch, "size_budget", before, after))
    return tuple(changes)


def budgets(entries: Iterable[tuple[str, str, int | None]]) -> tuple[Budget, ...]:
    """Budgets from (target, arch, limit) entries; an entry without a limit sets none."""
    return tuple(Budget(target, arch, limit) for target, arch, limit in entries if limit is not None)
