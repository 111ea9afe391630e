"""PrReport to and from JSON: the artifact a fork-safe workflow hands from its
build job to its posting job, and what `merge` combines across shards."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from bot.depgraph import Edge
from bot.errors import BotError, ExitCode
from bot.pipeline import ClosureChange, LoadFailure, NotTraced, PrReport, TargetReport
from bot.size import SizeReport
from bot.stale import Cause, DtypeChange, OpUse, SelectionDiff

FORMAT = "selective-build-report/1"


def dumps(report: PrReport, pr: dict[str, object] | None = None) -> str:
    """`pr` carries what the poster needs (number, head sha, body) and nothing it must trust blindly."""
    return json.dumps({"format": FORMAT, "pr": pr or {}, "report": dataclasses.asdict(report)}, indent=1)


def _size(data: dict | None) -> SizeReport | None:
    return None if data is None else SizeReport(**data)


def _target(data: dict) -> TargetReport:
    diff = data["diff"]
    return TargetReport(
        name=data["name"],
        yaml=data["yaml"],
        yaml_exists=data["yaml_exists"],
        diff=SelectionDiff(
            missing=tuple(OpUse(m["op"], tuple(m["models"]), tuple(m["callers"])) for m in diff["missing"]),
            unused=tuple(OpUse(u["op"], tuple(u["models"]), tuple(u["callers"])) for u in diff["unused"]),
            dtype_changes=tuple(
                DtypeChange(
                    c["op"],
                    None if c["before"] is None else tuple(c["before"]),
                    None if c["after"] is None else tuple(c["after"]),
                )
                for c in diff["dtype_changes"]
            ),
        ),
        causes=tuple(
            Cause(c["kind"], c["path"], c["detail"], tuple(c["ops"]), c["kernel"], c["change"]) for c in data["causes"]
        ),
        load_failures=tuple(LoadFailure(f["model"], f["message"]) for f in data["load_failures"]),
        base=_size(data["base"]),
        head=_size(data["head"]),
        budget=data["budget"],
        models_without_yaml=tuple(data["models_without_yaml"]),
        build_error=data["build_error"],
        closure_changes=tuple(
            ClosureChange(c["model"], tuple(c["added"]), tuple(c["removed"]), tuple(c["lacking"]))
            for c in data.get("closure_changes", [])
        ),
        not_traced=tuple(NotTraced(n["model"], tuple(n["ops"])) for n in data.get("not_traced", [])),
    )


def loads(text: str, source: str) -> tuple[PrReport, dict[str, object]]:
    try:
        data = json.loads(text)
        if data.get("format") != FORMAT:
            raise BotError(f"{source}: not a selective-build report ({FORMAT})", ExitCode.BAD_INPUT)
        r = data["report"]
        report = PrReport(
            base_ref=r["base_ref"],
            base_sha=r["base_sha"],
            head_sha=r["head_sha"],
            targets=tuple(_target(t) for t in r["targets"]),
            stale_files=tuple(r["stale_files"]),
            changed_files=tuple(r["changed_files"]),
            graph_added=tuple(Edge(**e) for e in r.get("graph_added", [])),
            graph_removed=tuple(Edge(**e) for e in r.get("graph_removed", [])),
            build_error=r.get("build_error", ""),
        )
        return report, dict(data.get("pr") or {})
    except (json.JSONDecodeError, KeyError, TypeError, AttributeError) as exc:
        raise BotError(f"{source}: malformed report ({exc.__class__.__name__})", ExitCode.BAD_INPUT) from None


def load(path: Path) -> tuple[PrReport, dict[str, object]]:
    try:
        return loads(Path(path).read_text(), str(path))
    except OSError as exc:
        raise BotError(f"{path}: cannot read report ({exc.strerror})", ExitCode.BAD_INPUT) from None


def merge(reports: list[PrReport]) -> PrReport:
    """Shards of one PR run (each a subset of targets) as one report."""
    if not reports:
        raise BotError("no reports to merge", ExitCode.USAGE)
    first = reports[0]
    for other in reports[1:]:
        if (other.base_sha, other.head_sha) != (first.base_sha, first.head_sha):
            raise BotError("reports are for different commits; refusing to merge", ExitCode.BAD_INPUT)
    targets = {t.name: t for r in reports for t in r.targets}
    return dataclasses.replace(
        first,
        targets=tuple(targets[name] for name in sorted(targets)),
        stale_files=tuple(sorted({p for r in reports for p in r.stale_files})),
    )
