"""Everything the bot publishes about a report is made here, and redacted here:
the markdown and JSON report files, the job summary, the comment, the
check-run title and annotations.

Redaction happens on the report's data before rendering, so no escaping or
capping can split a secret into pieces that a text-level pass would miss,
and once more on the rendered text.
"""

from __future__ import annotations

from pathlib import Path

from bot.fileio import write_text_atomic
from bot.report import artifact, comment
from bot.report.escape import plain
from bot.report.model import PrReport
from bot.report.verdict import Verdict
from bot.safety.redact import Redactor


def publishable(report: PrReport, redactor: Redactor) -> PrReport:
    """The report with every secret removed from every string in it."""
    data = redactor.data(artifact.to_data(report))
    assert isinstance(data, dict)
    return artifact.from_data(data)[0]


def markdown(report: PrReport, verdict: Verdict, redactor: Redactor, limit: int = comment.COMMENT_LIMIT) -> str:
    return redactor.text(comment.render(publishable(report, redactor), verdict, limit))


def title(report: PrReport, verdict: Verdict, redactor: Redactor) -> str:
    """The summary line as plain text (a check-run title)."""
    return redactor.text(comment.summary_line(publishable(report, redactor), verdict, name=plain))


def json_text(report: PrReport, redactor: Redactor, pr: dict[str, object] | None = None) -> str:
    return redactor.text(artifact.dumps(publishable(report, redactor), pr))


def write_report(
    report: PrReport,
    verdict: Verdict,
    redactor: Redactor,
    md_path: Path,
    json_path: Path,
    pr: dict[str, object] | None = None,
) -> str:
    """Writes the markdown and JSON reports (atomically); returns the markdown. The JSON artifact carries
    the report's data only: whoever reads it judges it under their own policy."""
    rendered = markdown(report, verdict, redactor)
    write_text_atomic(md_path, rendered + "\n")
    write_text_atomic(json_path, json_text(report, redactor, pr))
    return rendered
