"""Size limits as the verdict applies them (bot/report/verdict.py): data in, data out.

Each case is a report (a runtime's base and head VM bytes and per-op attribution) and a policy (the
base branch's gates and noise floor, the PR body's Binary-Size line); the expectations are computed
from the report's own figures, never typed in. The comment, the check run's annotations and
conclusion, and the Action's `verdict` output only read the verdict: a few cases check they say
what it decided.
"""

from __future__ import annotations

from dataclasses import replace

from bot.errors import ExitCode
from bot.github import action
from bot.report import artifact, comment, escape, verdict
from bot.report.model import ArchSizes, PolicyChange, PrReport, SelectionDiff, SizeReport, TargetReport
from bot.report.verdict import Gate, Level, Policy

OP = "my_ops::fancy_gelu.out"
OTHER = "aten::relu.out"
CORE = "(core runtime)"


def size(ops: dict[str, int]) -> SizeReport:
    """A runtime whose VM bytes are its per-op attribution's sum (as the size report's are)."""
    total = sum(ops.values())
    return SizeReport(total, 64, total + 4096, {".text": total}, {}, dict(ops))


BASE = {OP: 2_000, OTHER: 1_000, CORE: 30_000}


def report(*runtimes: tuple[str, dict[str, int] | None, dict[str, int]]) -> PrReport:
    """One target, `app`, with a runtime per (arch, base per_op or None for a new one, head per_op)."""
    sizes = tuple(
        ArchSizes(arch, size(base) if base is not None else None, size(head)) for arch, base, head in runtimes
    )
    target = TargetReport("app", "apps/app/selected_operators.yaml", True, SelectionDiff(), (), (), sizes)
    return PrReport("main", "b" * 40, "a" * 40, (target,), ())


def grown(by: int, op: str = OP) -> dict[str, int]:
    return {**BASE, op: BASE.get(op, 0) + by}


NONE = Level()  # no limit


def gate(warn: Level = NONE, fail: Level = NONE, arch: str = "x86-64") -> Gate:
    return Gate("app", arch, warn=warn, fail=fail)


def judged(rep: PrReport, *gates: Gate, body: str = "", **policy: object) -> verdict.Verdict:
    return verdict.judge(rep, replace(Policy(gates=gates), **policy).for_pr(body))  # type: ignore[arg-type]


def delta(rep: PrReport, arch: str = "x86-64") -> int:
    sizes = rep.targets[0].size(arch)
    assert sizes is not None and sizes.delta is not None
    return sizes.delta


def percent(rep: PrReport) -> float:
    sizes = rep.targets[0].sizes[0]
    assert sizes.base is not None
    return delta(rep) * 100 / sizes.base.vm_size


# --- warn and fail, bytes and percent ----------------------------------------------------------


def test_growth_over_the_warn_level_passes_with_a_warning() -> None:
    rep = report(("x86-64", BASE, grown(600)))
    grew = delta(rep)
    v = judged(rep, gate(warn=Level(growth=grew - 1), fail=Level(growth=grew)))  # the fail level is "at most"
    assert v.passed and v.exit_code == ExitCode.OK
    assert (v.outcome, v.conclusion, v.icon) == ("warn", "neutral", "⚠️")
    assert [(b.level, b.measure, b.value, b.limit) for b in v.breaches] == [("warn", "growth", grew, grew - 1)]
    assert [r.kind for r in v.warnings] == ["warn"] and v.failures == () and v.waived == ()
    assert (
        v.warnings[0].message
        == f"over the warn level: app on x86-64 grew {grew:+,} bytes, over its warn level of +{grew - 1:,}"
    )


def test_growth_over_the_fail_level_fails_and_says_how_to_pass() -> None:
    rep = report(("x86-64", BASE, grown(600)))
    grew = delta(rep)
    v = judged(rep, gate(warn=Level(growth=grew // 2), fail=Level(growth=grew - 1)))
    assert not v.passed and v.exit_code == ExitCode.FINDINGS and (v.outcome, v.conclusion) == ("fail", "failure")
    # the warn level of the same measure is not said twice: the fail level says it
    assert [(b.level, b.measure) for b in v.breaches] == [("fail", "growth")] and v.warnings == ()
    (failure,) = v.failures
    assert failure.kind == "budget" and failure.message.startswith("over the size budget: app on x86-64 grew")
    assert "add a 'Binary-Size: <reason>' line" in failure.message
    assert v.over("app", "x86-64") is not None and v.warned("app", "x86-64") is None


def test_percent_growth_is_compared_exactly() -> None:
    rep = report(("x86-64", BASE, grown(33)))  # 33 bytes over 33,000: exactly 0.1%
    exact = percent(rep)
    assert judged(rep, gate(fail=Level(growth_percent=exact))).passed  # at the limit: within it
    assert judged(rep, gate(fail=Level(growth_percent=0.1))).passed  # 0.1 read as a tenth, not the float
    below = judged(rep, gate(warn=Level(growth_percent=0.09)))
    assert [(b.measure, b.value, b.limit) for b in below.breaches] == [("growth_percent", exact, 0.09)]
    assert f"grew {delta(rep):+,} bytes ({exact:+.2f}%), over its warn level of +0.09%" in below.warnings[0].message


def test_bytes_and_percent_on_one_level_each_count() -> None:
    rep = report(("x86-64", BASE, grown(3_300)))  # +10%
    grew, pct = delta(rep), percent(rep)
    v = judged(rep, gate(fail=Level(growth=grew + 1, growth_percent=pct - 1)))
    assert [b.measure for b in v.breaches] == ["growth_percent"] and not v.passed
    v = judged(rep, gate(fail=Level(growth=grew - 1, growth_percent=pct + 1)))
    assert [b.measure for b in v.breaches] == ["growth"] and not v.passed


def test_the_size_limit_is_the_head_s_vm_bytes_however_little_it_grew() -> None:
    rep = report(("x86-64", BASE, grown(1)))  # under the noise floor, and still over a hard size limit
    head = rep.targets[0].sizes[0].head
    assert head is not None
    v = judged(rep, gate(warn=Level(size=head.vm_size - 10), fail=Level(size=head.vm_size - 1)))
    assert [(b.level, b.measure, b.value) for b in v.breaches] == [("fail", "size", head.vm_size)]
    assert v.budget("app", "x86-64") == head.vm_size - 1
    assert judged(rep, gate(fail=Level(size=head.vm_size))).passed


def test_each_architecture_has_its_own_gate() -> None:
    rep = report(("x86-64", BASE, grown(600)), ("aarch64", BASE, grown(900)))
    arm = delta(rep, "aarch64")
    v = judged(rep, gate(fail=Level(growth=arm - 1), arch="aarch64"))  # x86-64 has no limits
    assert [(b.arch, b.measure) for b in v.breaches] == [("aarch64", "growth")]
    assert v.gate("app", "x86-64") is None and v.over("app", "aarch64") is not None


def test_a_new_runtime_is_judged_by_its_size_only() -> None:
    rep = report(("x86-64", None, BASE))  # no base: nothing grew
    assert judged(rep, gate(fail=Level(growth=0, growth_percent=0, op_growth=0))).passed
    total = sum(BASE.values())
    assert [b.measure for b in judged(rep, gate(fail=Level(size=total - 1))).breaches] == ["size"]


# --- per-op growth ------------------------------------------------------------------------------


def test_an_op_growing_over_the_per_op_limit_is_named() -> None:
    rep = report(("x86-64", BASE, grown(500)))
    sizes = rep.targets[0].sizes[0]
    assert sizes.base is not None and sizes.head is not None
    op_grew = sizes.head.per_op[OP] - sizes.base.per_op[OP]
    v = judged(rep, gate(warn=Level(op_growth=op_grew - 1), fail=Level(op_growth=op_grew)))
    assert [(b.level, b.measure, b.op, b.value) for b in v.breaches] == [("warn", "op_growth", OP, op_grew)]
    assert v.passed and f"{OP} grew {op_grew:+,} bytes in app on x86-64" in v.warnings[0].message


def test_per_op_growth_counts_ops_not_the_runtime_s_own_buckets_and_a_new_op_grows_by_all_its_bytes() -> None:
    head = {**grown(5_000, CORE), "aten::new_op.out": 700}
    rep = report(("x86-64", BASE, head))
    v = judged(rep, gate(fail=Level(op_growth=699)))
    assert [(b.op, b.value) for b in v.breaches] == [("aten::new_op.out", head["aten::new_op.out"])]


def test_several_ops_over_the_limit_largest_first() -> None:
    rep = report(("x86-64", BASE, {**grown(300), OTHER: BASE[OTHER] + 900}))
    v = judged(rep, gate(warn=Level(op_growth=100)))
    assert [b.op for b in v.breaches] == [OTHER, OP]


# --- the noise floor ----------------------------------------------------------------------------


def test_a_growth_under_the_noise_floor_breaks_no_growth_limit() -> None:
    rep = report(("x86-64", BASE, grown(verdict.DEFAULT_NOISE_FLOOR - 1)))
    tight = gate(warn=Level(growth=0, growth_percent=0, op_growth=0))
    v = judged(rep, tight)
    assert v.outcome == "pass" and v.breaches == ()
    # at the floor it counts; with no floor every byte does
    assert judged(report(("x86-64", BASE, grown(verdict.DEFAULT_NOISE_FLOOR))), tight).outcome == "warn"
    assert judged(rep, tight, noise_floor=0).outcome == "warn"


def test_under_the_noise_floor_the_headline_reads_unchanged_and_the_table_keeps_the_bytes() -> None:
    rep = report(("x86-64", BASE, grown(3)))
    grew = delta(rep)
    v = judged(rep)
    line = comment.summary_line(rep, v)
    assert line == f"✅ **No change**: 1 target, size unchanged (below the {v.policy.noise_floor}-byte noise floor)"
    markdown = comment.render(rep, v)
    base, head = (s.vm_size for s in (rep.targets[0].sizes[0].base, rep.targets[0].sizes[0].head) if s)
    assert f"| app | {base:,} | {head:,} | ▲ {grew:+,} |" in markdown  # the exact figure, in the details
    # a floor below the change: the headline counts it
    assert f"size ▲ {grew:+,} bytes" in comment.summary_line(rep, judged(rep, noise_floor=grew))


def test_a_runtime_that_did_not_move_has_no_size_change() -> None:
    rep = report(("x86-64", BASE, BASE))
    assert comment.summary_line(rep, judged(rep)) == "✅ **No change**: 1 target, no size change"


# --- the override and fail_on.budget -----------------------------------------------------------


def test_binary_size_lets_a_fail_level_pass_and_warnings_stay() -> None:
    rep = report(("x86-64", BASE, grown(600)))
    grew = delta(rep)
    limits = gate(fail=Level(growth=grew - 1), warn=Level(op_growth=0))
    v = judged(rep, limits, body="A feature.\r\n\r\nBinary-Size: the new kernel is worth it\r\n")
    assert v.passed and v.outcome == "warn" and v.conclusion == "neutral" and v.overridden
    assert [r.kind for r in v.waived] == ["budget"] and "(Binary-Size: the new kernel is worth it)" in v.waived[
        0
    ].message
    assert [b.level for b in v.breaches] == ["fail", "warn"] and len(v.warnings) == 1
    # a warn level alone needs no override: the line changes nothing
    assert judged(rep, gate(warn=Level(growth=0)), body="Binary-Size: x").waived == ()


def test_fail_on_budget_off_waives_fail_levels() -> None:
    rep = report(("x86-64", BASE, grown(600)))
    v = judged(rep, gate(fail=Level(growth=0)), fail_on_budget=False)
    assert v.passed and [r.kind for r in v.waived] == ["budget"] and not v.overridden
    assert "`fail_on.budget` is off" in comment.render(rep, v)


def test_the_binary_size_reason_is_quoted_in_the_comment_inert() -> None:
    rep = report(("x86-64", BASE, grown(600)))
    hostile = "<img src=x onerror=alert(1)> @org/team [click](http://evil) `code` | cell"
    v = judged(rep, gate(fail=Level(growth=0)), body=f"Refactor.\n\nBinary-Size: {hostile}\n")
    markdown = comment.render(rep, v)
    section = markdown.split("### Size limits", 1)[1].split("###", 1)[0]
    assert f"> {escape.text(hostile, comment.MESSAGE_LIMIT)}" in section
    assert "<img" not in markdown and "@org" not in markdown and "](http" not in markdown


# --- what reads the verdict --------------------------------------------------------------------


def test_the_comment_shows_a_warning_as_a_finding_and_in_the_headline() -> None:
    rep = report(("x86-64", BASE, grown(600)))
    grew = delta(rep)
    v = judged(rep, gate(warn=Level(growth=grew - 1), fail=Level(size=10**9)))
    line = comment.summary_line(rep, v)
    assert line.startswith("⚠️ ") and "1 target over the warn level (app on x86\\-64)" in line
    markdown = comment.render(rep, v)
    assert f"- ⚠️ **warn**: app on x86\\-64 grew {grew:+,} bytes, over its warn level of +{grew - 1:,}" in markdown
    assert f"| ⚠️ warn {10**9:,} |" in markdown  # the budget column: warned, with its budget
    # the finding survives when the comment is cut to its bare findings
    assert "### Size limits" in comment.render(rep, v, limit=1_500)


def test_annotations_are_warnings_for_warn_levels_and_failures_for_failing_ones() -> None:
    rep = report(("x86-64", BASE, grown(600)), ("aarch64", BASE, grown(900)))
    x86, arm = delta(rep, "x86-64"), delta(rep, "aarch64")
    gates = (gate(warn=Level(growth=x86 - 1)), gate(fail=Level(growth=arm - 1), arch="aarch64"))
    notes = action.annotations(rep, judged(rep, *gates))
    assert [(n.path, n.title, n.level) for n in notes] == [
        (".selective-build.yml", "app on aarch64: over its fail level", "failure"),
        (".selective-build.yml", "app on x86-64: over its warn level", "warning"),
    ]
    overridden = action.annotations(rep, judged(rep, *gates, body="Binary-Size: needed"))
    assert [n.level for n in overridden] == ["warning", "warning"] and "Binary-Size: needed" in overridden[0].message


def test_the_check_run_is_neutral_whenever_the_pr_passes_with_something_to_see() -> None:
    """The conclusion follows the comment's icon: a warning, or a finding the policy lets pass."""
    rep = report(("x86-64", BASE, BASE))
    assert (judged(rep).conclusion, judged(rep).icon) == ("success", "")
    stale = replace(rep, targets=(replace(rep.targets[0], yaml_exists=False),))
    assert verdict.judge(stale, Policy()).conclusion == "failure"
    waived = verdict.judge(stale, Policy(fail_on_stale=False))
    assert (waived.outcome, waived.conclusion, waived.icon) == ("warn", "neutral", "⚠️")


# --- policy changes -----------------------------------------------------------------------------


def test_a_pr_loosening_its_limits_is_told_it_applies_once_merged() -> None:
    base = Policy(gates=(gate(warn=Level(growth=100), fail=Level(growth_percent=1.5, size=50_000)),))
    head = Policy(
        gates=(gate(warn=Level(growth=1_000), fail=Level(size=50_000), arch="x86-64"),),
        noise_floor=64,
    )
    changes = verdict.policy_changes(base, head)
    assert changes == (
        PolicyChange("", "", "noise_floor", verdict.DEFAULT_NOISE_FLOOR, 64),
        PolicyChange("app", "x86-64", "size_limits.warn.growth", 100, 1_000),
        PolicyChange("app", "x86-64", "size_limits.fail.growth_percent", 1.5, None),
    )
    assert [comment.policy_sentence(c, name=escape.plain) for c in changes] == [
        f"this PR raises the noise floor from {verdict.DEFAULT_NOISE_FLOOR} to 64 bytes",
        "this PR raises app's x86-64 warn growth limit from 100 to 1,000 bytes",
        "this PR removes app's x86-64 fail growth limit of 1.5%",
    ]
    raised = verdict.policy_changes(head, replace(head, gates=(gate(fail=Level(size=60_000)),)))
    assert comment.policy_sentence(raised[-1], name=escape.plain) == (
        "this PR raises app's x86-64 budget from 50,000 to 60,000 bytes"
    )


def test_the_size_budget_form_is_a_fail_level_s_size() -> None:
    (budget,) = verdict.budgets([("app", "x86-64", 5_000), ("app", "aarch64", None)])
    assert budget == Gate("app", "x86-64", fail=Level(size=5_000))


def test_a_percent_policy_change_survives_the_artifact() -> None:
    """Post mode reads policy changes from the artifact: a percent limit (a float) is valid there, and read back."""
    change = PolicyChange("app", "x86-64", "size_limits.warn.growth_percent", 0.5, 2.25)
    rep = replace(report(("x86-64", BASE, grown(10))), policy_changes=(change,))
    read, _ = artifact.loads(artifact.dumps(rep), "report.json")
    assert read.policy_changes == (change,) and read == rep
