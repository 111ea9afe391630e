"""Everything the bot publishes about a report is made here, and redacted here:
the markdown and JSON report files, the job summary, the comment, the
check-run title and annotations.

Redaction happens on the report's data before rendering, so no escaping or
capping can split a secret into pieces that a text-level pass would miss,
and once more on the rendered text.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from bot.fileio import write_bytes_atomic, write_text_atomic
from bot.report import artifact, comment, patch
from bot.report.escape import plain
from bot.report.model import PrReport
from bot.report.verdict import Verdict
from bot.safety.redact import Redactor


def publishable(report: PrReport, redactor: Redactor) -> PrReport:
    """The report with every secret removed from every string in it."""
    data = redactor.data(artifact.to_data(report))
    assert isinstance(data, dict)
    return artifact.from_data(data)[0]


def markdown(
    report: PrReport,
    verdict: Verdict,
    redactor: Redactor,
    limit: int = comment.REPORT_LIMIT,
    source: patch.Source | None = None,
) -> str:
    """The comment; `source` says where the patch of the stale yamls is (None: none is offered)."""
    return redactor.text(comment.render(publishable(report, redactor), verdict, limit, source))


def title(report: PrReport, verdict: Verdict, redactor: Redactor) -> str:
    """The summary line as plain text (a check-run title)."""
    return redactor.text(comment.summary_line(publishable(report, redactor), verdict, name=plain))


def json_text(report: PrReport, redactor: Redactor, pr: dict[str, object] | None = None) -> str:
    return redactor.text(artifact.dumps(publishable(report, redactor), pr))


def patch_text(report: PrReport, diffs: Sequence[str], redactor: Redactor) -> str:
    """The patch of the report's stale yamls, its preamble naming the report's commits ("": none is stale)."""
    return redactor.text(patch.join(diffs, report.base_sha, report.head_sha))


def write_report(
    report: PrReport,
    verdict: Verdict,
    redactor: Redactor,
    md_path: Path,
    json_path: Path,
    pr: dict[str, object] | None = None,
    diffs: Sequence[str] = (),
    source: patch.Source | None = None,
) -> str:
    """Writes the markdown and JSON reports and, beside them, the patch of the stale yamls
    (`<report>.patch`, from `diffs`; one an earlier run left is removed when nothing is stale), each
    atomically; returns the markdown. The JSON artifact carries the report's data only: whoever reads it
    judges it under their own policy. `source` is where the comment says the patch can be taken from."""
    text = patch_text(report, diffs, redactor)
    patch_path = json_path.with_suffix(patch.SUFFIX)
    if text:
        write_bytes_atomic(patch_path, text.encode("utf-8", "surrogateescape"))  # a yaml's bytes, as checked in
    else:
        patch_path.unlink(missing_ok=True)
    rendered = markdown(report, verdict, redactor, source=source if text else None)
    write_text_atomic(md_path, rendered + "\n")
    write_text_atomic(json_path, json_text(report, redactor, pr))
    return rendered
