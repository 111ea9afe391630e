"""PrReport to and from JSON: the artifact a fork-safe workflow hands from its
build job to its posting job, and what `merge` combines across shards.

One definition serves all three: the dataclasses of bot/report/model.py. The
writer is `dataclasses.asdict`; the JSON Schema and the reader are derived from
the same fields and type hints, so a field added to the model is written,
validated and read back with nothing else to change. Its bounds come from its
type (every string capped, every count and list bounded) or from the field's
`schema` metadata (commit ids, architecture names).

The artifact is written by a run of PR code, so it is read as hostile input:
a regular file of bounded size, valid JSON, then valid against that schema
before any field is used. A rejection is one line naming the field, never
its content. Fields with a default are optional, so an artifact written before
they existed is still read.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import re
import types
from collections import deque
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Union, get_args, get_origin, get_type_hints

from jsonschema import Draft202012Validator, FormatChecker, ValidationError
from jsonschema.exceptions import best_match

from bot.errors import BotError, ExitCode
from bot.report import patch
from bot.report.model import PrReport
from bot.safety.limits import MIB
from bot.safety.safe_files import UnsafeFileError, read_bytes, read_text

FORMAT = "selective-build-report/1"
ARTIFACT_BYTES = 32 * MIB  # a real report of dozens of targets is well under 1 MiB
STRING_LIMIT = 65_536  # the schema's maxLength; longer strings are cut when written
ITEMS_LIMIT = 100_000  # entries of a list or a name -> bytes table
BYTES_LIMIT = 2**53 - 1  # the largest integer every JSON reader keeps exact
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


# --- the schema, from the model ----------------------------------------------------------------


def _optional(tp: Any) -> tuple[Any, bool]:
    """(the type without None, whether None was allowed)."""
    if get_origin(tp) in (Union, types.UnionType):
        args = get_args(tp)
        rest = tuple(a for a in args if a is not type(None))
        if len(rest) < len(args):
            return (rest[0] if len(rest) == 1 else Union[rest]), True  # noqa: UP007 (a runtime-built union)
    return tp, False


_JSON_TYPES = {str: "string", int: "integer", float: "number", bool: "boolean"}


def _type_schema(tp: Any) -> dict[str, Any]:
    """The schema of a value of type `tp` (None allowed: see `_field_schema`)."""
    if tp in _JSON_TYPES:
        number = {"minimum": 0, "maximum": BYTES_LIMIT}
        bounds: dict[str, Any] = {str: {"maxLength": STRING_LIMIT}, int: number, float: number}.get(tp, {})
        return {"type": _JSON_TYPES[tp], **bounds}
    origin = get_origin(tp)
    if origin in (Union, types.UnionType):
        kinds = get_args(tp)
        if all(k in _JSON_TYPES for k in kinds):
            return {"type": [_JSON_TYPES[k] for k in kinds], "minimum": 0, "maximum": BYTES_LIMIT}
        raise TypeError(f"no schema for the union {tp}")
    if origin is tuple:
        item = get_args(tp)[0]
        return {"type": "array", "maxItems": ITEMS_LIMIT, "items": _type_schema(item)}
    if origin is dict:
        key, value = get_args(tp)
        assert key is str
        return {
            "type": "object",
            "maxProperties": ITEMS_LIMIT,
            "propertyNames": {"maxLength": STRING_LIMIT},
            "additionalProperties": _type_schema(value),
        }
    if dataclasses.is_dataclass(tp):
        hints = get_type_hints(tp)
        fields = dataclasses.fields(tp)
        return {
            "type": "object",
            "additionalProperties": False,
            "properties": {f.name: _field_schema(hints[f.name], f) for f in fields},
            "required": sorted(
                f.name
                for f in fields
                if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING  # type: ignore[misc]
            ),
        }
    raise TypeError(f"no schema for {tp}")


def _field_schema(tp: Any, field: dataclasses.Field | None = None) -> dict[str, Any]:
    inner, nullable = _optional(tp)
    schema = {**_type_schema(inner), **(field.metadata.get("schema", {}) if field is not None else {})}
    if nullable:
        kinds = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        schema["type"] = [*kinds, "null"]
    return schema


@functools.cache
def schema() -> dict[str, Any]:
    """The artifact's JSON Schema, derived from the model."""
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "selective-build report artifact",
        "type": "object",
        "additionalProperties": False,
        "required": ["format", "report"],
        "properties": {
            "format": {"const": FORMAT},
            "pr": {
                "type": "object",
                "additionalProperties": False,
                "properties": {
                    "number": {"type": ["integer", "null"], "minimum": 1, "maximum": 2**31 - 1},
                    "head_sha": {
                        "type": ["string", "null"],
                        "format": "commit",
                        "description": "a commit sha: 40 (or 64) hex digits",
                    },
                },
            },
            "report": _type_schema(PrReport),
        },
    }


# --- reading -----------------------------------------------------------------------------------


@functools.cache
def _validator() -> Draft202012Validator:
    checker = FormatChecker(formats=())
    checker.checks("commit")(lambda value: not isinstance(value, str) or bool(COMMIT.fullmatch(value)))
    checker.checks("head-commit")(
        lambda value: not isinstance(value, str) or value == "working tree" or bool(COMMIT.fullmatch(value))
    )
    checker.checks("diff-hunks")(lambda value: not isinstance(value, str) or not patch.hunks_problem(value))
    return Draft202012Validator(schema(), format_checker=checker)


@functools.cache
def _field_names() -> frozenset[str]:
    """Every property name the schema declares: the only keys an error message may repeat."""
    names: set[str] = set()
    pending: list[Any] = [schema()]
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


def _read(tp: Any, value: Any) -> Any:
    """A value of type `tp` from data that passed `validate`."""
    inner, _ = _optional(tp)
    if value is None:
        return None
    if dataclasses.is_dataclass(inner):
        hints = get_type_hints(inner)
        known = {f.name for f in dataclasses.fields(inner)}
        return inner(**{name: _read(hints[name], item) for name, item in value.items() if name in known})
    origin = get_origin(inner)
    if origin is tuple:
        item = get_args(inner)[0]
        return tuple(_read(item, v) for v in value)
    if origin is dict:
        return dict(value)
    return value


def from_data(data: dict[str, Any]) -> tuple[PrReport, dict[str, object]]:
    """A report from data that passed `validate`."""
    return _read(PrReport, data["report"]), dict(data.get("pr") or {})


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


def load_patch(path: Path) -> patch.Patch | None:
    """The patch beside a report artifact (`<report>.patch`; None when there is none), read as hostile
    input too: a regular file of bounded size, then parsed line by line (bot/report/patch.py)."""
    if not path.exists() and not path.is_symlink():
        return None
    try:
        data = read_bytes(path, patch.PATCH_BYTES, "a patch")
        return patch.parse(data.decode("utf-8", "surrogateescape"), str(path))
    except (UnsafeFileError, patch.PatchError) as exc:
        raise BotError(str(exc), ExitCode.BAD_INPUT) from None


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
        yaml_diffs=tuple(sorted({d.path: d for r in reports for d in r.yaml_diffs}.values(), key=lambda d: d.path)),
        build_error=next((r.build_error for r in reports if r.build_error), ""),
        model_failures=tuple(dict.fromkeys(f for r in reports for f in r.model_failures)),
    )
