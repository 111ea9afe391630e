"""The patch of a PR's stale yamls: their regenerated content as one unified diff that `git apply` applies
with no toolchain, written beside the report (`<report>.patch`) and carried in the report's artifact.

Pure functions on text. A file's diff (`file_diff`) is what `git diff` writes for the change: a
`diff --git` header, `new file mode` for a yaml that does not exist yet, names quoted as git quotes them,
`\\ No newline at end of file` where a side lacks one. The patch (`join`) is those diffs after a preamble
naming the base and head commits, which `git apply` skips. The report carries each diff's hunks, capped
(`capped`); the trusted side reads a patch back (`parse`) and checks it against the report (`mismatch`)
before it offers the command that applies it (`Fetch`, `Local`).

Text is `str` as read with surrogateescape: a checked-in yaml that is not UTF-8 is matched byte for byte.
"""

from __future__ import annotations

import difflib
import itertools
import re
import shlex
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from urllib.parse import urlsplit

from bot.report.escape import cap, count
from bot.report.model import DIFF_CHARS, DIFF_LINE_CHARS, DIFF_LINES, PrReport, YamlDiff
from bot.safety.limits import MIB

SUFFIX = ".patch"
PATCH_BYTES = 32 * MIB  # as large as a report artifact may be
PREAMBLE = "selective-build patch"
NO_NEWLINE = "\\ No newline at end of file"
NEW_FILE = "new file mode 100644"
_C_ESCAPES = {7: "a", 8: "b", 9: "t", 10: "n", 11: "v", 12: "f", 13: "r", 0x22: '"', 0x5C: "\\"}
_UNESCAPES = {v: k for k, v in _C_ESCAPES.items()}
HUNK_HEADER = re.compile(r"@@ -(\d{1,9})(?:,(\d{1,9}))? \+(\d{1,9})(?:,(\d{1,9}))? @@.*")


class PatchError(Exception):
    """A patch that is not one this module writes: one line, naming where, never the content."""


# --- writing ---------------------------------------------------------------------------------------


def quote(name: str) -> str:
    """A path as git writes it in a diff: C-quoted when it holds a control character, a double quote, a
    backslash or a non-ASCII byte (git's default core.quotePath), else as it is."""
    raw = name.encode("utf-8", "surrogateescape")
    if not any(b < 0x20 or b in (0x22, 0x5C) or b >= 0x7F for b in raw):
        return name
    out = []
    for b in raw:
        if b in _C_ESCAPES:
            out.append("\\" + _C_ESCAPES[b])
        elif b < 0x20 or b >= 0x7F:
            out.append(f"\\{b:03o}")
        else:
            out.append(chr(b))
    return '"' + "".join(out) + '"'


def _lines(text: str) -> list[str]:
    """Lines as git sees them: split at "\\n" only (a CR or a form feed is part of its line), ends kept."""
    parts = text.split("\n")
    return [p + "\n" for p in parts[:-1]] + ([parts[-1]] if parts[-1] else [])


def file_diff(path: str, before: str | None, after: str) -> str:
    """The diff that turns `before` (None: no such file yet) into `after` at `path`, as `git diff` writes
    it and `git apply` reads it; "" when they are the same."""
    body = []
    hunks = difflib.unified_diff(_lines(before or ""), _lines(after), lineterm="\n")
    for line in itertools.islice(hunks, 2, None):  # difflib's own ---/+++ lines: the header below names the file
        body.append(line if line.endswith("\n") else f"{line}\n{NO_NEWLINE}\n")
    if not body:
        return ""
    old, new = quote(f"a/{path}"), quote(f"b/{path}")
    tab = "\t" if " " in path else ""  # git ends a name holding a space with a tab, so it reads to the end
    header = [f"diff --git {old} {new}\n"]
    header += [f"{NEW_FILE}\n", "--- /dev/null\n"] if before is None else [f"--- {old}{tab}\n"]
    header.append(f"+++ {new}{tab}\n")
    return "".join(header + body)


def join(diffs: Iterable[str], base: str, head: str) -> str:
    """The patch: a preamble naming the commits (git apply skips it), then each file's diff; "" for none."""
    files = [d for d in diffs if d]
    if not files:
        return ""
    preamble = f"{PREAMBLE}: the regenerated content of {count(len(files), 'stale yaml')}\nbase {base}\nhead {head}\n\n"
    return preamble + "".join(files)


# --- the report's view of it -----------------------------------------------------------------------


def _shown(line: str) -> str:
    """A hunk line for the report: valid Unicode (a byte that is not UTF-8 as U+FFFD), capped."""
    text = line.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    return cap(text, DIFF_LINE_CHARS)


def capped(path: str, diff: str) -> YamlDiff:
    """One file's diff (as `file_diff` writes it) as the report carries it: its hunks, at most DIFF_LINES
    lines of at most DIFF_LINE_CHARS characters and DIFF_CHARS in all; the counts of the whole diff."""
    lines = [line.removesuffix("\n") for line in _lines(diff)]
    start = next((i for i, line in enumerate(lines) if line.startswith("@@")), len(lines))
    hunks = lines[start:]
    shown: list[str] = []
    size = -1  # no newline before the first line
    for line in hunks[:DIFF_LINES]:
        piece = _shown(line)
        if size + 1 + len(piece) > DIFF_CHARS:
            break
        shown.append(piece)
        size += 1 + len(piece)
    return YamlDiff(
        path=path,
        hunks="\n".join(shown),
        lines=len(hunks),
        added=sum(1 for line in hunks if line.startswith("+")),
        removed=sum(1 for line in hunks if line.startswith("-")),
        new=NEW_FILE in lines[:start],
    )


def hunks_problem(text: str) -> bool:
    """Whether `text` is not hunks as `capped` writes them (the artifact's schema format "diff-hunks")."""
    if not text:
        return False
    lines = text.split("\n")
    return (
        len(lines) > DIFF_LINES
        or not HUNK_HEADER.fullmatch(lines[0])
        or any(len(line) > DIFF_LINE_CHARS for line in lines)
        or any(not (line[:1] in (" ", "+", "-", "\\") or HUNK_HEADER.fullmatch(line)) for line in lines)
    )


# --- reading one back ------------------------------------------------------------------------------


@dataclass(frozen=True)
class FilePatch:
    path: str
    new: bool
    text: str  # its whole diff, header included


@dataclass(frozen=True)
class Patch:
    base: str
    head: str
    files: tuple[FilePatch, ...]


def _unquote(name: str, where: str) -> str:
    """A name as git writes it (C-quoted or not) as the path it stands for."""
    if not name.startswith('"'):
        return name
    if len(name) < 2 or not name.endswith('"'):
        raise PatchError(f"{where}: a quoted name is not closed")
    raw = bytearray()
    body = name[1:-1]
    i = 0
    while i < len(body):
        ch = body[i]
        if ch == '"':
            raise PatchError(f"{where}: a quoted name holds an unescaped quote")
        if ch != "\\":
            raw += ch.encode("utf-8", "surrogateescape")
            i += 1
            continue
        nxt = body[i + 1 : i + 2]
        if nxt in _UNESCAPES:
            raw.append(_UNESCAPES[nxt])
            i += 2
        elif re.fullmatch(r"[0-3][0-7]{2}", body[i + 1 : i + 4]):
            raw.append(int(body[i + 1 : i + 4], 8))
            i += 4
        else:
            raise PatchError(f"{where}: a quoted name holds an unknown escape")
    return raw.decode("utf-8", "surrogateescape")


def _names(rest: str, where: str) -> str:
    """The path of a `diff --git a/P b/P` line (P the same on both sides: the bot's patches rename nothing)."""
    if rest.startswith('"'):
        i = 1
        while i < len(rest) and rest[i] != '"':
            i += 2 if rest[i] == "\\" else 1
        if rest[i + 1 : i + 2] != " ":
            raise PatchError(f"{where}: the diff header's names cannot be read")
        old, new = _unquote(rest[: i + 1], where), _unquote(rest[i + 2 :], where)
    else:
        half = (len(rest) - 1) // 2
        if rest[half : half + 1] != " ":
            raise PatchError(f"{where}: the diff header's names cannot be read")
        old, new = rest[:half], rest[half + 1 :]
    if not (old.startswith("a/") and new.startswith("b/")) or old[2:] != new[2:] or not old[2:]:
        raise PatchError(f"{where}: the diff header must name one file as a/<path> b/<path>")
    return old[2:]


def _hunk(lines: list[str], at: int, end: int, source: str) -> int:
    """Checks the hunk whose header is lines[at] (its file's diff ends before `end`); returns the index after it."""
    match = HUNK_HEADER.fullmatch(lines[at].removesuffix("\n"))
    if match is None:
        raise PatchError(f"{source}: line {at + 1}: not a hunk header")
    old = int(match.group(2) if match.group(2) is not None else 1)
    new = int(match.group(4) if match.group(4) is not None else 1)
    i = at + 1
    while old > 0 or new > 0 or (i < end and lines[i].startswith("\\")):
        if i >= end:
            raise PatchError(f"{source}: line {i}: a hunk ends before its header says")
        kind = lines[i][:1]
        if kind == " ":
            old, new = old - 1, new - 1
        elif kind == "-":
            old -= 1
        elif kind == "+":
            new -= 1
        elif kind != "\\":
            raise PatchError(f"{source}: line {i + 1}: not a line of a hunk")
        if old < 0 or new < 0:
            raise PatchError(f"{source}: line {i + 1}: a hunk is longer than its header says")
        i += 1
    return i


def parse(text: str, source: str) -> Patch:
    """A patch as `join` writes it, checked line by line; anything else is a PatchError of one line."""
    lines = _lines(text)
    starts = [i for i, line in enumerate(lines) if line.startswith("diff --git ")]
    preamble = [line.removesuffix("\n") for line in lines[: starts[0] if starts else len(lines)]]
    if not preamble or not preamble[0].startswith(f"{PREAMBLE}: "):
        raise PatchError(f"{source}: not a selective-build patch")
    fields = dict(line.split(" ", 1) for line in preamble[1:] if line.startswith(("base ", "head ")))
    if not starts:
        raise PatchError(f"{source}: the patch holds no file")
    files: list[FilePatch] = []
    for start, end in itertools.pairwise([*starts, len(lines)]):
        where = f"{source}: line {start + 1}"
        path = _names(lines[start].removesuffix("\n").removeprefix("diff --git "), where)
        i = start + 1
        new = lines[i : i + 1] == [f"{NEW_FILE}\n"]
        i += int(new)
        tab = "\t" if " " in path else ""
        old_name = "/dev/null" if new else quote(f"a/{path}") + tab
        expected = [f"--- {old_name}\n", f"+++ {quote(f'b/{path}')}{tab}\n"]
        if lines[i : i + 2] != expected:
            raise PatchError(f"{source}: line {i + 1}: the ---/+++ lines must name the diff header's file")
        i += 2
        if i >= end:
            raise PatchError(f"{source}: line {i + 1}: a file's diff has no hunk")
        while i < end:
            i = _hunk(lines, i, end, source)
        if any(f.path == path for f in files):
            raise PatchError(f"{where}: a file is patched twice")
        files.append(FilePatch(path, new, "".join(lines[start:end])))
    return Patch(fields.get("base", ""), fields.get("head", ""), tuple(files))


def apply(found: FilePatch, before: str | None) -> str:
    """The file's content after its diff (`found`, as `parse` checked it), from `before` (None: no such file):
    every context and removed line must match exactly where its hunk says, with no offset and no fuzz, as
    `git apply` wants it; else a PatchError of one line naming the file."""
    where = quote(found.path)
    if found.new != (before is None):
        raise PatchError(f"{where}: the patch creates it, but it exists" if found.new else f"{where}: no such file")
    old = _lines(before or "")
    lines = _lines(found.text)
    out: list[str] = []
    at = 0  # the next line of `old` not yet taken
    i = next(k for k, line in enumerate(lines) if line.startswith("@@"))
    while i < len(lines):
        header = HUNK_HEADER.fullmatch(lines[i].removesuffix("\n"))
        if header is None:
            raise PatchError(f"{where}: line {i + 1} is not a hunk header")
        start, length = int(header.group(1)), int(header.group(2) if header.group(2) is not None else 1)
        first = start - 1 if length else start  # an empty old side names the line it follows
        if first < at or first > len(old):
            raise PatchError(f"{where}: a hunk starts outside the file or before the one above it")
        out += old[at:first]
        at = first
        i += 1
        while i < len(lines) and not lines[i].startswith("@@"):
            kind, body = lines[i][:1], lines[i][1:]
            unterminated = i + 1 < len(lines) and lines[i + 1].startswith("\\")
            if unterminated:
                body = body.removesuffix("\n")
            if kind in " -":
                if at >= len(old) or old[at] != body:
                    raise PatchError(f"{where}: the patch does not apply: line {at + 1} is not what it expects")
                at += 1
            if kind in " +":
                out.append(body)
            i += 2 if unterminated else 1
    return "".join(out + old[at:])


def is_yaml_path(path: str) -> bool:
    """A repo-relative path a patch the bot offers may touch: a .yaml/.yml file, no hidden folder on the way
    (never .git/ or .github/), no `..`, no control character."""
    parts = PurePosixPath(path).parts
    return (
        bool(parts)
        and not path.startswith("/")
        and PurePosixPath(path).suffix in (".yaml", ".yml")
        and all(part not in ("", ".", "..") and not part.startswith(".") for part in parts)
        and not any(ord(ch) < 0x20 or ord(ch) == 0x7F for ch in path)
    )


def merge(patches: Iterable[Patch]) -> tuple[str, ...]:
    """The file diffs of shards' patches, by path, each file once (a per-model yaml that two shards both
    regenerated is the same); `join` makes them one patch."""
    files: dict[str, str] = {}
    for found in patches:
        for f in found.files:
            if files.setdefault(f.path, f.text) != f.text:
                raise PatchError(f"the shards' patches change {quote(f.path)} differently; refusing to merge")
    return tuple(files[path] for path in sorted(files))


def mismatch(found: Patch, report: PrReport, head: str = "") -> str:
    """Why the patch is not the one the report describes ("" when it is): it touches exactly the report's
    stale yamls, each a yaml path, each diff is the one the report shows (as far as the report's cap), and
    it was made for `head` (when given)."""
    expected = {d.path: d for d in report.yaml_diffs}
    if sorted(f.path for f in found.files) != sorted(expected):
        return "it does not touch exactly the stale yamls the report names"
    if not all(is_yaml_path(f.path) for f in found.files):
        return "it touches a file that is not a yaml of the repository"
    if any(capped(f.path, f.text) != expected[f.path] for f in found.files):
        return "a file's diff is not the one the report shows"
    if head and found.head != head:
        return "it was made for another commit"
    return ""


# --- the command that applies it -------------------------------------------------------------------

_RUN_ID = re.compile(r"[1-9][0-9]{0,19}")
_REPOSITORY = re.compile(r"(?:[A-Za-z0-9.-]{1,253}/)?[A-Za-z0-9][A-Za-z0-9-]{0,38}/[A-Za-z0-9._-]{1,100}")
_ARTIFACT = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")


@dataclass(frozen=True)
class Fetch:
    """The patch in a workflow run's artifact. Every value comes from the trusted side (the workflow's own
    environment, the workflow_run event, the workflow's inputs) and is checked by `fetch`, so the command
    needs no quoting."""

    run_id: str
    repository: str  # [host/]owner/name
    artifact: str
    file: str  # the patch's name in the artifact

    def command(self) -> str:
        download = f'gh run download {self.run_id} -R {self.repository} -n {self.artifact} -D "$d"'
        return f'd=$(mktemp -d) && {download} && git apply "$d/{self.file}"'

    @property
    def where(self) -> str:
        return f"in the `{self.artifact}` artifact of run {self.run_id}"


@dataclass(frozen=True)
class Local:
    """The patch a local run wrote (`python -m bot pr`): applied from the repository's root."""

    path: Path

    def command(self) -> str:
        return f"git apply {shlex.quote(str(self.path))}"

    @property
    def where(self) -> str:
        return "written beside this report"


Source = Fetch | Local


def fetch(run_id: object, repository: str, artifact: str, file: str, server_url: str = "") -> Fetch | None:
    """Where a run's patch can be downloaded from, or None when a value is missing or not of its form
    (then no command is offered). A server other than github.com names its host, as gh's -R takes it."""
    run = str(run_id) if isinstance(run_id, int | str) and not isinstance(run_id, bool) else ""
    host = (urlsplit(server_url).hostname or "") if server_url else ""
    if host and host != "github.com" and repository.count("/") == 1:
        repository = f"{host}/{repository}"
    if not (
        _RUN_ID.fullmatch(run)
        and _REPOSITORY.fullmatch(repository)
        and _ARTIFACT.fullmatch(artifact)
        and _ARTIFACT.fullmatch(file)
    ):
        return None
    return Fetch(run, repository, artifact, file)


def local(path: Path) -> Local | None:
    """The local form for a patch at `path` (made absolute), or None when its name has a control character."""
    shown = str(path.absolute())
    return None if any(ord(ch) < 0x20 or ord(ch) == 0x7F for ch in shown) else Local(path.absolute())


def file_name(report: Path) -> str:
    """The patch's file name beside a report named `report` (with or without its suffix)."""
    return report.with_suffix(SUFFIX).name


def diffs_for(stale: dict[str, str]) -> tuple[YamlDiff, ...]:
    """The report's view of each stale yaml's diff, by path, in the order given."""
    return tuple(capped(path, diff) for path, diff in stale.items())
