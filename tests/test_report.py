"""Rendering limits and the size-budget policy."""

from __future__ import annotations

from bot import action, report
from bot.pipeline import ArchSizes, PrReport, TargetReport
from bot.size import SizeReport
from bot.stale import SelectionDiff
from tests.conftest import REPO_ROOT


def sized_target(name: str, base: int, head: int, ops: int, budget: int | None = None) -> TargetReport:
    def size(total: int, bump: int) -> SizeReport:
        per_op = {f"aten::op_{i}_with_a_long_descriptive_name.out": 100 + i + bump for i in range(ops)}
        symbols = {f"sb::kernels::fn_{i}": 50 + bump for i in range(ops)}
        return SizeReport(total, 64, total + 4096, {".text": total // 2}, symbols, per_op)

    sizes = (ArchSizes("x86-64", size(base, 0), size(head, 1), budget=budget),)
    return TargetReport(name, f"apps/{name}/selected_operators.yaml", True, SelectionDiff(), (), (), sizes)


def big_report(targets: int, ops: int) -> PrReport:
    return PrReport(
        "main", "b" * 40, "a" * 40, tuple(sized_target(f"app-{i}", 1000, 1010, ops) for i in range(targets)), ()
    )


def test_comment_stays_under_githubs_limit_and_says_it_was_truncated() -> None:
    full = report.render(big_report(3, 5))
    assert "shortened" not in full and "<details>" in full
    huge = report.render(big_report(60, 400))
    assert len(huge) <= report.COMMENT_LIMIT
    assert "Report shortened to fit GitHub's comment limit: per-target breakdowns" in huge
    assert huge.startswith(report.MARKER)
    assert "| app\\-0 | x86\\-64 |" in huge  # the size table survives; breakdowns go first


def test_size_budget_fails_unless_the_pr_body_explains(tmp_path) -> None:
    over = PrReport("main", "b" * 40, "a" * 40, (sized_target("vision-app", 1000, 2000, 2, budget=1500),), ())
    assert over.targets[0].over_budget
    inputs = action.read_inputs({"INPUT_FAIL-ON-STALE": "false", "INPUT_FAIL-ON-BUDGET": "true"})
    reasons = action._failing(over, inputs, REPO_ROOT, body="Refactor.\n")
    assert reasons and "over the size budget: vision-app" in reasons[0]
    assert action._failing(over, inputs, REPO_ROOT, body="Refactor.\n\nBinary-Size: new model needs it\n") == []
    assert "❌ over" in report.render(over)
