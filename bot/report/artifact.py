"""PrReport to and from JSON: the artifact a fork-safe workflow hands from its
build job to its posting job, and what `merge` combines across shards.

The artifact is written by a run of PR code, so it is read as hostile input:
a regular file of bounded size, valid JSON, then valid against
`schema/report-artifact.schema.json` (types, lengths, counts, commit ids)
before any field is used. A rejection is one line naming the field, never
its content.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import re
from collections import deque
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator, FormatChecker, ValidationError
from jsonschema.exceptions import best_match

from bot.errors import BotError, ExitCode
from bot.report.model import (
    ArchSizes,
    Cause,
    ClosureChange,
    DtypeChange,
    Edge,
    LoadFailure,
    NotTraced,
    OpUse,
    PrReport,
    SelectionDiff,
    SizeReport,
    TargetReport,
)
from bot.safety.limits import MIB
from bot.safety.safe_files import UnsafeFileError, read_text

FORMAT = "selective-build-report/1"
SCHEMA_PATH = Path(__file__).resolve().parents[1] / "schema" / "report-artifact.schema.json"
ARTIFACT_BYTES = 32 * MIB  # a real report of dozens of targets is well under 1 MiB
STRING_LIMIT = 65_536  # the schema's maxLength; longer strings are cut when written
COMMIT = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
ELLIPSIS = "…"


def _cap_strings(value: Any) -> Any:
    """JSON-like data with every string (keys too) cut to what the schema accepts,
    so whatever an honest run produced is accepted by the poster."""
    if isinstance(value, str):
        return value if len(value) <= STRING_LIMIT else value[: STRING_LIMIT - 1] + ELLIPSIS
    if isinstance(value, dict):
        return {_cap_strings(k): _cap_strings(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_cap_strings(v) for v in value]
    return value


def to_data(report: PrReport, pr: dict[str, object] | None = None) -> dict[str, Any]:
    """`pr` carries what the poster needs (number, head sha) and nothing it must trust blindly."""
    pr = {k: v for k, v in (pr or {}).items() if v not in ("", None)}
    return _cap_strings({"format": FORMAT, "pr": pr, "report": dataclasses.asdict(report)})


def dumps(report: PrReport, pr: dict[str, object] | None = None) -> str:
    return json.dumps(to_data(report, pr), indent=1)


# --- reading ---------------------------------------------------------------------------------


@functools.cache
def _validator() -> Draft202012Validator:
    schema = json.loads(SCHEMA_PATH.read_text())
    checker = FormatChecker(formats=())
    checker.checks("commit")(lambda value: not isinstance(value, str) or bool(COMMIT.fullmatch(value)))
    checker.checks("head-commit")(
        lambda value: not isinstance(value, str) or value == "working tree" or bool(COMMIT.fullmatch(value))
    )
    return Draft202012Validator(schema, format_checker=checker)


@functools.cache
def _field_names() -> frozenset[str]:
    """Every property name the schema declares: the only keys an error message may repeat."""
    names: set[str] = set()
    pending: list[Any] = [json.loads(SCHEMA_PATH.read_text())]
    while pending:
        node = pending.pop()
        if isinstance(node, dict):
            names.update(node.get("properties", {}))
            pending.extend(node.values())
        elif isinstance(node, list):
            pending.extend(node)
    return frozenset(names)


def _where(path: Iterable[object]) -> str:
    shown = ""
    for part in path:
        if isinstance(part, int):
            shown += f"[{part}]"
        elif part in _field_names():
            shown += f".{part}" if shown else str(part)
        else:
            shown += "[…]"  # a key of the file's own choosing (a symbol name): not repeated
    return shown or "the top level"


_ARTICLES = {"integer": "an integer", "object": "an object", "array": "an array", "null": "null"}


def _types(value: object) -> str:
    kinds = value if isinstance(value, list) else [value]
    return " or ".join(_ARTICLES.get(str(k), f"a {k}") for k in kinds)


def _problem(error: ValidationError) -> str:
    """What is wrong, from the schema's side only (never the offending value)."""
    rule, expected = error.validator, error.validator_value
    if rule == "type":
        return f"must be {_types(expected)}"
    if rule == "required":
        instance = error.instance if isinstance(error.instance, dict) else {}
        missing = [name for name in expected if name not in instance]
        return f"lacks the field {missing[0]}" if missing else "lacks a field"
    if rule == "additionalProperties":
        return "has a field the format does not define"
    if rule in ("format", "pattern"):
        return f"must be {error.schema.get('description', 'in the expected form')}"
    if rule == "maxLength":
        return f"is longer than {expected:,} characters"
    if rule in ("maxItems", "maxProperties"):
        return f"has more than {expected:,} entries"
    if rule == "minimum":
        return f"must be at least {expected}"
    if rule == "maximum":
        return f"must be at most {expected:,}"
    if rule == "anyOf" and error.schema.get("description"):
        return f"must be {error.schema['description']}"
    if rule == "const":
        return f"must be {json.dumps(expected)}"
    if rule == "enum":
        return "must be one of " + ", ".join(json.dumps(v) for v in expected)
    return f"breaks the rule {rule}"


def validate(data: object, source: str) -> None:
    error = best_match(_validator().iter_errors(data))
    if error is None:
        return
    if error.validator == "const" and list(error.absolute_path) == ["format"]:
        raise BotError(f"{source}: not a selective-build report ({FORMAT})", ExitCode.BAD_INPUT)
    path = deque(error.absolute_path)
    if error.validator == "propertyNames":
        path.append("…")
    raise BotError(f"{source}: {_where(path)} {_problem(error)}", ExitCode.BAD_INPUT)


def _size(data: dict | None) -> SizeReport | None:
    if data is None:
        return None
    if "vm_size" not in data:
        # An artifact from before exact sizes: only the stripped file's size was measured.
        stripped = data["stripped"]
        return SizeReport(stripped, 0, stripped, data["sections"], data["symbols"], data.get("per_op", {}))
    return SizeReport(
        data["vm_size"], data["bss"], data["file_size"], data["sections"], data["symbols"], data.get("per_op", {})
    )


def _arch_sizes(data: dict) -> ArchSizes:
    return ArchSizes(
        arch=data["arch"],
        base=_size(data["base"]),
        head=_size(data["head"]),
        build_error=data.get("build_error", ""),
        budget=data.get("budget"),
        base_error=data.get("base_error", ""),
        kernels=data.get("kernels", "portable"),
        cpu=data.get("cpu"),
        portable=_size(data.get("portable")),
        base_kernels=data.get("base_kernels"),
        base_cpu=data.get("base_cpu"),
    )


def _legacy_sizes(data: dict) -> tuple[ArchSizes, ...]:
    """A target of an artifact from before architectures: one x86-64 runtime."""
    if not any(data.get(key) for key in ("base", "head", "budget", "build_error")):
        return ()
    return (
        ArchSizes(
            "x86-64",
            _size(data.get("base")),
            _size(data.get("head")),
            data.get("build_error", ""),
            data.get("budget"),
        ),
    )


def _op_uses(items: list[dict]) -> tuple[OpUse, ...]:
    return tuple(OpUse(u["op"], tuple(u["models"]), tuple(u["callers"])) for u in items)


def _failures(items: list[dict]) -> tuple[LoadFailure, ...]:
    return tuple(LoadFailure(f["model"], f["message"]) for f in items)


def _target(data: dict) -> TargetReport:
    diff = data["diff"]
    return TargetReport(
        name=data["name"],
        yaml=data["yaml"],
        yaml_exists=data["yaml_exists"],
        diff=SelectionDiff(
            missing=_op_uses(diff["missing"]),
            unused=_op_uses(diff["unused"]),
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
        load_failures=_failures(data["load_failures"]),
        sizes=tuple(_arch_sizes(a) for a in data["sizes"]) if "sizes" in data else _legacy_sizes(data),
        models_without_yaml=tuple(data.get("models_without_yaml", [])),
        closure_changes=tuple(
            ClosureChange(c["model"], tuple(c["added"]), tuple(c["removed"]), tuple(c["lacking"]))
            for c in data.get("closure_changes", [])
        ),
        not_traced=tuple(NotTraced(n["model"], tuple(n["ops"])) for n in data.get("not_traced", [])),
        yaml_error=data.get("yaml_error", ""),
    )


def from_data(data: dict[str, Any]) -> tuple[PrReport, dict[str, object]]:
    """A report from data that passed `validate`."""
    r = data["report"]
    report = PrReport(
        base_ref=r["base_ref"],
        base_sha=r["base_sha"],
        head_sha=r["head_sha"],
        targets=tuple(_target(t) for t in r["targets"]),
        stale_files=tuple(r["stale_files"]),
        changed_files=tuple(r.get("changed_files", [])),
        graph_added=tuple(Edge(**e) for e in r.get("graph_added", [])),
        graph_removed=tuple(Edge(**e) for e in r.get("graph_removed", [])),
        build_error=r.get("build_error", ""),
        model_failures=_failures(r.get("model_failures", [])),
        runtime=r.get("runtime", ""),
    )
    return report, dict(data.get("pr") or {})


def _reject_constant(name: str) -> None:
    raise ValueError(f"{name} is not JSON")


def loads(text: str, source: str) -> tuple[PrReport, dict[str, object]]:
    try:
        data = json.loads(text, parse_constant=_reject_constant)
    except RecursionError:
        raise BotError(f"{source}: not a report: nested too deeply", ExitCode.BAD_INPUT) from None
    except ValueError as exc:
        where = f" at line {exc.lineno}" if isinstance(exc, json.JSONDecodeError) else ""
        raise BotError(f"{source}: not a report: not valid JSON{where}", ExitCode.BAD_INPUT) from None
    validate(data, source)
    return from_data(data)


def load(path: Path) -> tuple[PrReport, dict[str, object]]:
    try:
        text = read_text(Path(path), ARTIFACT_BYTES, "a report artifact")
    except UnsafeFileError as exc:
        raise BotError(str(exc), ExitCode.BAD_INPUT) from None
    return loads(text, str(path))


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
        build_error=next((r.build_error for r in reports if r.build_error), ""),
        model_failures=tuple(dict.fromkeys(f for r in reports for f in r.model_failures)),
    )
