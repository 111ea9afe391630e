"""What of a build's output may leave the bot, and in which form.

A PR controls the sources the compiler reads, and a source can make the
compiler read any file the job can: `#include "/etc/hostname"`, a `../../..`
include, an assembler `.include`. The tools then quote that file: a
diagnostic located in it (with a source excerpt), a macro-expansion note or
template "required from" chain through it, or, when the file compiled, a
message located in the PR's own source naming what the file spelled
("cannot convert 'S' to 'int'" for a struct the file named).

So a build log is read as groups (`groups`): a diagnostic with everything
that belongs to it (its include chain and function context, its excerpt,
caret and label lines, its notes), a CMake message with its call stack, a
ninja line. A group may be shown only when every file it names as a location
resolves (`os.path.realpath`) to an existing file inside the repository
being built, the tool's bundled runtime or the build directory (`Scope`; a
`.git` directory is not the repository), and when its translation unit read
no file outside those, the toolchain's include directories and /usr/: the depfile
ninja keeps for each compile says which files it read (`outside_reads`).
Never shown: lines before the first recognized one (a log kept from its tail
starts mid-message), output after a ninja line in no shape read here (a
custom command's), and, once a compile read an outside file, messages that
name no file (a linker's "undefined reference" to a name that file spelled).
Where unsure, lines join the group before, so doubt hides more, never less.

One classification serves both readers:

- `safe_diagnostics`, for the report (PR comment, artifact, check run,
  terminal): at most a few error lines of shown groups, each on one line and
  capped, its path made repo-relative; never an excerpt, a note or CMake's
  raw output. A compile that read an outside file is named, not quoted.
- `filtered_log`, for the job log (`to_job_log`: redacted, line by line,
  never a workflow command): the whole log, each group that may not be shown
  replaced by one line saying what was left out.

This stops the tools from quoting files. PR code that reads a file itself
(CMake's `file(READ)`, a custom command, a kernel at run time) can print it
in any shape, a compiler's included; only the sandbox's view of the file
system stops that.
"""

from __future__ import annotations

import os
import re
import stat
import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

MAX_DIAGNOSTICS = 5  # error lines a report shows per failed build
DIAGNOSTIC_CHARS = 300  # each capped to this
DEPFILE_BYTES = 4 << 20  # a depfile lists paths: a real one is a few KiB
ELLIPSIS = "…"
READ_OUTSIDE = "its compile read a file outside the repository"
MAX_DEPFILES = 100_000  # a build directory's depfiles looked at, at most

# Where toolchains keep their headers: a dependency here is the toolchain's, not a file of the runner's.
# (/usr/include, /usr/lib/gcc/<triple>/<v>/include, /usr/<triple>/include, /usr/lib/llvm-<v>/lib/clang/<v>/include,
# /usr/lib/arm-none-eabi/include, /usr/local/include...)
SYSTEM_PREFIX = "/usr/"  # the system's packages: compilers, their headers, a sanitizer's ignore list

# --- line shapes ------------------------------------------------------------------------------

_PATH = r"(?P<path>\S.*?)"  # lazy: up to the first `:<line>` that fits; a path may hold ':' or ' '

NINJA = re.compile(r"^(?:\[\d+/\d+\] |FAILED: |ninja: )")
BUILDING = re.compile(r"^\[\d+/\d+\] Building (?:CXX|C|ASM) object (\S+)$")  # CMake's description of a compile
CMAKE_HEADLINE = re.compile(
    r"^CMake (?P<severity>Error|Warning|Deprecation Warning|Deprecation Error)(?: \(dev\))?"
    r"(?: at (?P<at>\S.*?):(?P<line>\d+)(?: \((?P<command>[^)]*)\))?:| in (?P<in>\S.*?):|:)"
    r"(?P<rest>.*)$"
)
CMAKE_CALL = re.compile(r"^\s+" + _PATH + r":(?P<line>\d+) \([^)]*\)\s*$")
STATUS = re.compile(r"^-- ")
INCLUDED_FIRST = re.compile(r"^In (?:file included from|module imported at) ")
INCLUDED = re.compile(r"^(?:In (?:file included from|module imported at)|\s+from) " + _PATH + r":\d+(?::\d+)?[,:]$")
CONTEXT = re.compile(r"^" + _PATH + r": (?:In |At |Assembler messages:)")
LOCATED = re.compile(r"^" + _PATH + r":(?P<line>\d+):(?:(?P<col>\d+):)?(?P<rest>(?: .*)?)$")
PATH_ONLY = re.compile(
    r"^" + _PATH + r":(?P<rest> (?:fatal error|error|Error|warning|Warning|note|sorry, unimplemented):.*)$"
)
SEVERITY = re.compile(r"^ (?P<severity>fatal error|error|Error|warning|Warning|note|sorry, unimplemented):")
TOOL = re.compile(r"^[\w.+-]+: (?:fatal error|error|warning|note|sorry, unimplemented|all warnings)")
LINKER = re.compile(r"^(?:\S*/)?(?:[\w.+-]*-)?(?:ld(?:\.\w+)?|lld|collect2)(?:\.exe)?: ")
NEUTRAL = re.compile(r"^(?:compilation terminated\.|\d+ (?:errors?|warnings?)(?: and \d+ warnings?)? generated\.)$")
TRACEBACK_FRAME = re.compile(r'^\s*File "(?P<path>[^"]+)", line \d+')
CARET = re.compile(r"^\s*(?:\d+\s*)?\|?\s*[~^][~^\s]*$")  # a caret/range line under a source excerpt
ERROR_SEVERITIES = frozenset({"error", "fatal error", "Error", "sorry, unimplemented"})


@dataclass
class Group:
    """Lines of a log that belong together, and every file they name as a location."""

    # "compiler", "cmake", "ninja", "neutral" (a linker's, a tool's, CMake's status), "other" (output after
    # a ninja line in no shape read here) or "orphan" (lines before the first recognized one)
    kind: str
    unit: str = ""  # the outputs of the ninja edge (FAILED: ...) whose output this is
    lines: list[str] = field(default_factory=list)
    locations: list[str] = field(default_factory=list)
    headline: int | None = None  # index in `lines` of the diagnostic: a compiler error/warning, a CMake headline
    severity: str = ""  # the headline's

    def add(self, line: str, location: str | None = None) -> None:
        self.lines.append(line)
        if location is not None:
            self.locations.append(location)

    @property
    def failed_line(self) -> bool:
        """The group of a ninja `FAILED:` line: the command that failed, before its output."""
        return self.kind == "ninja" and bool(self.lines) and self.lines[0].startswith("FAILED: ")


def groups(text: str) -> list[Group]:
    """The log `text` as groups, in order; every line lands in exactly one. Pure: no file is read.

    When unsure, lines are joined to the group before (a group is shown only when all of it may be):
    a new group starts only at a line of a recognized shape at the start of a line, never at an
    indented line (GCC's excerpts, CMake's message lines) or a raw source line above a caret line
    (clang's excerpts)."""
    lines = text.splitlines()
    out: list[Group] = []
    unit = ""
    current: Group | None = None
    excerpt = -1  # the index of a line known to be a source excerpt: a caret line follows it

    def start(kind: str, line: str, location: str | None = None) -> Group:
        group = Group(kind, unit)
        group.add(line, location)
        out.append(group)
        return group

    for i, line in enumerate(lines):
        frame = TRACEBACK_FRAME.match(line)
        elsewhere = frame.group("path") if frame else None  # a Python traceback's frame names a file too
        if i == excerpt or not line.strip() or line[0] in " \t":
            # Excerpts, carets, CMake's message lines, an include chain's "from" lines: the group before's.
            call = CMAKE_CALL.match(line) if current is not None and current.kind == "cmake" else None
            chained = INCLUDED.match(line)
            elsewhere = call.group("path") if call else chained.group("path") if chained else elsewhere
            if current is None:
                current = start("orphan", line, elsewhere)
            else:
                current.add(line, elsewhere)
            continue
        # Shapes no path can take first (a path printed starts with / or ../, or is a bare file name);
        # then the located shapes, before any shape a path could imitate (`<dir>/ld: ...`).
        if NINJA.match(line):
            building = BUILDING.match(line)
            unit = _outputs(line) if line.startswith("FAILED: ") else building.group(1) if building else ""
            current = start("ninja", line)
            continue
        cmake = CMAKE_HEADLINE.match(line)
        if cmake:
            path = cmake.group("at") or cmake.group("in")
            current = start("cmake", line, path)
            if path:
                current.headline, current.severity = 0, cmake.group("severity")
            continue
        if STATUS.match(line) or NEUTRAL.match(line):
            current = start("neutral", line)
            continue
        open_context = current is not None and current.kind == "compiler" and current.headline is None
        context_path: str | None = None
        if INCLUDED_FIRST.match(line):
            chained = INCLUDED.match(line)
            context_path = chained.group("path") if chained else ""  # unparsable: a location nothing resolves
        elif (context := CONTEXT.match(line)) is not None:
            context_path = context.group("path")
        if context_path is not None:
            if open_context and current is not None:
                current.add(line, context_path)
            else:
                current = start("compiler", line, context_path)
            continue
        located = LOCATED.match(line) or (None if TOOL.match(line) else PATH_ONLY.match(line))
        if located:
            severity = SEVERITY.match(located.group("rest"))
            primary = severity is not None and severity.group("severity") != "note"
            if current is None or current.kind != "compiler" or (primary and current.headline is not None):
                current = start("compiler", line, located.group("path"))
            else:
                current.add(line, located.group("path"))
            if primary and severity is not None and current.headline is None:
                current.headline, current.severity = len(current.lines) - 1, severity.group("severity")
            if i + 2 < len(lines) and lines[i + 1].strip() and CARET.match(lines[i + 2]):
                excerpt = i + 1  # a raw source line (clang prints excerpts unindented)
            continue
        if TOOL.match(line) or LINKER.match(line):
            current = start("neutral", line)
            continue
        if current is None:
            current = start("orphan", line, elsewhere)
        elif current.kind == "ninja" and not (current.failed_line and len(current.lines) == 1):
            # Output after a ninja line in no shape read here (a custom command's): never shown.
            current = start("other", line, elsewhere)
        else:
            current.add(line, elsewhere)
    return out


# --- what may be shown --------------------------------------------------------------------------

Inside = Callable[[str], "str | None"]  # a path as a tool printed it -> its repo-relative form, or None: never shown


def _shown(group: Group, inside: Inside, tainted: Mapping[str, str]) -> bool:
    """Whether all of `group` may be shown. Once a compile read a file outside the repo, a message that
    names no file (a linker's `undefined reference to` a name that file spelled) is not shown either."""
    if group.kind in ("orphan", "other") or (group.kind == "neutral" and tainted):
        return False
    if _tainted_source(group.unit, tainted) and not group.failed_line:
        return False
    return all(inside(path) is not None for path in group.locations)


def _cap(value: str, limit: int) -> str:
    return value if len(value) <= limit else value[: limit - 1] + ELLIPSIS


def _compiler_error(group: Group, inside: Inside) -> str | None:
    if group.headline is None or group.severity not in ERROR_SEVERITIES:
        return None
    located = LOCATED.match(group.lines[group.headline])
    shown = inside(located.group("path")) if located else None
    if located is None or shown is None:
        return None
    col = f":{located.group('col')}" if located.group("col") else ""
    return f"{shown}:{located.group('line')}{col}:{located.group('rest')}"


def _cmake_error(group: Group, inside: Inside) -> str | None:
    headline = CMAKE_HEADLINE.match(group.lines[0])
    if headline is None or headline.group("severity") != "Error":
        return None
    path = headline.group("at") or headline.group("in")
    shown = inside(path) if path else None
    if shown is None:
        return None
    where = f"{shown}:{headline.group('line')}" if headline.group("line") else shown
    command = f" ({headline.group('command')})" if headline.group("command") else ""
    message = [headline.group("rest")]
    for line in group.lines[1:]:
        if line.strip() == "Call Stack (most recent call first):":
            break
        message.append(line)
    return f"CMake Error at {where}{command}: " + " ".join(" ".join(message).split())


def safe_diagnostics(
    text: str,
    inside: Inside,
    tainted: Mapping[str, str] | None = None,
    limit: int = MAX_DIAGNOSTICS,
    chars: int = DIAGNOSTIC_CHARS,
) -> list[str]:
    """The error lines of a build log that a report may show: compiler errors (`path:line:col: error: message`)
    and CMake errors (`CMake Error at path:line (command): message`) of groups located wholly inside the repo
    (`inside`), the path repo-relative, at most `limit`, each on one line capped at `chars`. A translation
    unit that read a file outside the repo (`tainted`: ninja outputs -> its source) is named, not quoted."""
    tainted = tainted or {}
    found: list[str] = []
    for group in groups(text):
        line: str | None
        source = _tainted_source(group.unit, tainted)
        if source and not group.failed_line:
            line = f"{source}: {READ_OUTSIDE}; its messages are not shown"
        elif not _shown(group, inside, tainted):
            continue
        elif group.kind == "cmake":
            line = _cmake_error(group, inside)
        elif group.kind == "compiler":
            line = _compiler_error(group, inside)
        else:
            continue
        if line is None:
            continue
        line = _cap(" ".join(line.split()), chars)
        if line not in found:
            found.append(line)
        if len(found) >= limit:
            break
    return found


def filtered_log(text: str, inside: Inside, tainted: Mapping[str, str] | None = None) -> list[str]:
    """The log's lines for the job log: every group that may not be shown replaced by one line saying so."""
    tainted = tainted or {}
    out: list[str] = []
    for group in groups(text):
        source = _tainted_source(group.unit, tainted)
        if group.kind == "ninja" and source:
            kept = 2 if group.failed_line else 1  # the status (FAILED: and the command); then the compiler's output
            out += group.lines[:kept]
            if group.lines[kept:]:
                out.append(_left_out(group.lines[kept:], f"the compile of {source} read a file outside the repository"))
        elif _shown(group, inside, tainted):
            out += group.lines
        elif group.kind == "orphan":
            out.append(_left_out(group.lines, "the end of a message whose start was not kept"))
        elif group.kind == "other":
            out.append(_left_out(group.lines, "output not in a compiler's or CMake's shape"))
        elif source:
            out.append(_left_out(group.lines, f"the compile of {source} read a file outside the repository"))
        elif group.kind == "neutral":
            out.append(_left_out(group.lines, "a message naming no file, in a build that read a file outside"))
        else:
            out.append(_left_out(group.lines, "a message about a file outside the repository"))
    return out


def _left_out(lines: list[str], why: str) -> str:
    return f"[{'1 line' if len(lines) == 1 else f'{len(lines)} lines'} not shown: {why}]"


def to_job_log(title: str, lines: list[str], write: Callable[[str], None] | None = None) -> None:
    """`lines` (filtered_log's) on stderr, the job log: each redacted, never a workflow command, indented
    under a `title` line and ended by one."""
    out = write or (lambda line: print(line, file=sys.stderr, flush=True))
    out(_job_line(f"{title}:"))
    for line in lines:
        out(_job_line(f"  {line}"))
    out(_job_line(f"end of {title}"))


def _job_line(value: str) -> str:
    """Redacted, shown as plain text. A percent sign stays one: the runner reads escapes only in commands."""
    from bot.github.workflow_log import plain
    from bot.safety.redact import redact

    return "%".join(plain(piece) for piece in redact(value).split("%"))


FAILED_CODE = re.compile(r"^\[code=-?\d+\] ")  # ninja 1.12+: "FAILED: [code=1] out.o"


def _outputs(failed: str) -> str:
    """The outputs of a ninja `FAILED:` line, as ninja names them (relative to the build directory)."""
    return FAILED_CODE.sub("", failed[len("FAILED: ") :].strip())


def _tainted_source(unit: str, tainted: Mapping[str, str]) -> str | None:
    """The source of the edge `unit` (its outputs) if one of its outputs read a file outside the repo."""
    return next((tainted[output] for output in unit.split() if output in tainted), None)


# --- where "inside" is ----------------------------------------------------------------------------


def _within(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


@dataclass(frozen=True)
class Scope:
    """What inside the repository means for one build's log: its roots (the checkout, the bundled runtime,
    the build directory), and the directories a relative path in the log may be relative to (build, source)."""

    roots: tuple[str, ...]
    bases: tuple[str, ...]
    _seen: dict[str, str | None] = field(default_factory=dict, compare=False, repr=False)
    _dep_seen: dict[str, bool] = field(default_factory=dict, compare=False, repr=False)

    @staticmethod
    def of(roots: Iterable[Path], bases: Iterable[Path]) -> Scope:
        real_roots = tuple(dict.fromkeys(os.path.realpath(r) for r in roots))
        return Scope(real_roots, tuple(dict.fromkeys(os.path.realpath(b) for b in bases)))

    def _resolved(self, path: str) -> list[str]:
        """Every existing file `path` can name: itself if absolute, else joined to each base."""
        if not path or "\0" in path:
            return []
        candidates = [path] if os.path.isabs(path) else [os.path.join(base, path) for base in self.bases]
        return [os.path.realpath(c) for c in candidates if os.path.isfile(c)]

    def _shown_path(self, real: str) -> str | None:
        """`real` relative to the first root holding it, or None. Git's own files (.git) are not the repo's."""
        for root in self.roots:
            if _within(real, root):
                relative = Path(os.path.relpath(real, root))
                return None if ".git" in relative.parts else relative.as_posix()
        return None

    def inside(self, path: str) -> str | None:
        """A path as a tool printed it: repo-relative when every existing file it can name lies inside the roots;
        None when one lies outside, or none exists (`<command-line>`, `{standard input}`, a deleted temp)."""
        if path not in self._seen:
            shown = [self._shown_path(real) for real in self._resolved(path)]
            self._seen[path] = shown[0] if shown and all(s is not None for s in shown) else None
        return self._seen[path]

    def toolchain_or_inside(self, path: str, toolchain: tuple[str, ...] = ()) -> bool:
        """For a depfile's entry: inside the roots, or the toolchain's: in one of the `toolchain` directories
        (real paths), or under /usr/ (the system's packages)."""
        key = "\0".join((path, *toolchain))
        if key not in self._dep_seen:
            resolved = self._resolved(path)
            self._dep_seen[key] = bool(resolved) and all(
                self._shown_path(real) is not None
                or any(_within(real, directory) for directory in toolchain)
                or real.startswith(SYSTEM_PREFIX)
                for real in resolved
            )
        return self._dep_seen[key]


IMPLICIT_INCLUDES = re.compile(r'^set\(CMAKE_(?:CXX|C)_IMPLICIT_INCLUDE_DIRECTORIES "([^"]*)"\)', re.MULTILINE)


def toolchain_dirs(build_dir: Path) -> tuple[str, ...]:
    """The compilers' own include directories, as CMake found them at configure time
    (`CMakeFiles/<version>/CMakeCXXCompiler.cmake`), real paths; the file system root never counts."""
    found: list[str] = []
    for path in sorted((build_dir / "CMakeFiles").glob("*/CMake*Compiler.cmake")):
        try:
            text = path.read_text(errors="replace")[:DEPFILE_BYTES]
        except OSError:
            continue
        for listed in IMPLICIT_INCLUDES.findall(text):
            found += [os.path.realpath(d) for d in listed.split(";") if os.path.isabs(d)]
    return tuple(d for d in dict.fromkeys(found) if d != os.sep)


def depfile_entries(text: str) -> tuple[list[str], list[str]]:
    """(targets, prerequisites) of a Make-syntax depfile (`out.o: a.cpp b.h \\` ...); escapes undone."""
    joined = text.replace("\\\r\n", " ").replace("\\\n", " ")
    targets: list[str] = []
    deps: list[str] = []
    for rule in joined.splitlines():
        words: list[str] = []
        current = ""
        i = 0
        while i < len(rule):
            pair = rule[i : i + 2]
            if pair in ("\\ ", "\\#", "\\\\", "$$"):
                current += pair[1]
                i += 2
                continue
            if rule[i].isspace():
                words.append(current)
                current = ""
            else:
                current += rule[i]
            i += 1
        words.append(current)
        seen_colon = False
        for word in (w for w in words if w):
            if seen_colon:
                deps.append(word)
            elif word.endswith(":"):
                seen_colon = True
                if word != ":":
                    targets.append(word[:-1])
            else:
                targets.append(word)
    return targets, deps


def outside_reads(build_dir: Path, scope: Scope, since: float = 0.0) -> dict[str, str]:
    """Every compile whose depfile under `build_dir` (`<output>.d`, kept by `ninja -d keepdepfile`), written at
    or after `since`, names a file outside the repo and the toolchain (`Scope.toolchain_or_inside`):
    its output as ninja names it (relative to `build_dir`) -> the source it compiled (repo-relative).
    A compile that stopped before writing its depfile (a missing header) is not listed."""
    found: dict[str, str] = {}
    toolchain = toolchain_dirs(build_dir)
    seen = 0
    for directory, subdirs, files in os.walk(build_dir):
        subdirs.sort()
        for name in sorted(files):
            if not name.endswith(".d"):
                continue
            seen += 1
            if seen > MAX_DEPFILES:
                return found
            path = Path(directory) / name
            try:
                info = path.lstat()
            except OSError:
                continue
            if not stat.S_ISREG(info.st_mode) or info.st_mtime < since or info.st_size > DEPFILE_BYTES:
                continue
            read = _read_depfile(path)
            if read is None:
                continue
            deps = [dep if os.path.isabs(dep) else str(build_dir / dep) for dep in read[1]]
            if not all(scope.toolchain_or_inside(dep, toolchain) for dep in deps):
                output = path.relative_to(build_dir).as_posix()[: -len(".d")]
                found[output] = (scope.inside(deps[0]) if deps else None) or "a translation unit"
    return found


def _read_depfile(path: Path) -> tuple[list[str], list[str]] | None:
    try:
        if not path.is_file() or path.stat().st_size > DEPFILE_BYTES:
            return None
        with open(path, encoding="utf-8", errors="replace") as handle:
            return depfile_entries(handle.read(DEPFILE_BYTES))
    except OSError:
        return None
