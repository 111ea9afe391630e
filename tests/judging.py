"""Reports judged as the bot judges them (bot/report/verdict.py), for tests that render one."""

from __future__ import annotations

from bot.report import verdict
from bot.report.model import PrReport


def judged(report: PrReport, policy: verdict.Policy | None = None) -> verdict.Verdict:
    """The verdict on `report` under `policy` (the default policy: fail on stale yaml and budgets, none set)."""
    return verdict.judge(report, policy or verdict.Policy())
