"""Listing directories a pull request controls, with a bound on entries and on time.

A PR controls the trees the bot lists (kernel folders, the models' folders, what a
build or a runtime writes) and some of the globs it lists them with
(`kernel_libraries[].sources`). Nothing bounded either: pathlib's glob cost grows
exponentially with the `**` segments of a pattern (`**/**/**/**/**/**/**/*.cpp` over
a 30-deep folder chain ran for minutes), a tree can hold millions of entries, and
`**` followed symlinked directories.

Every listing goes through here instead: one pass with os.scandir that never enters a
symlinked directory, counts every entry it sees against `limits.listing_entries` and
checks `limits.listing_seconds`; either bound ends the listing with one BotError line
naming what was listed. Globs are matched during that pass, a path component at a
time, by a set of positions in the pattern (an NFA, with `**` as one position however
often it repeats), so matching costs at most (path components x pattern components) per
entry, whatever the pattern. Directories no pattern can match below are not entered.

Patterns mean what pathlib's (Python 3.11) mean on POSIX: `/`-separated components, each
matched with fnmatch rules, case-sensitive (`*` also matches a leading dot); a component
that is exactly `**` matches zero or more directories. A `**` inside a component (`a**`)
is an ordinary `*` (pathlib refused it with a ValueError).
"""

from __future__ import annotations

import fnmatch
import os
import re
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from bot.errors import BotError, ExitCode
from bot.safety.limits import DEFAULT_LIMITS, Limits

ANY_DIRS = "**"

# (state, name, is_dir) -> (keep the entry, the state its directory is entered with; None: not entered)
Step = Callable[[object, str, bool], tuple[bool, object | None]]


@dataclass(frozen=True)
class Entry:
    """One entry of a listing."""

    path: Path  # the listed top / relative
    relative: str  # '/'-separated, relative to the listed top
    is_dir: bool  # a directory (never a symlink to one: those are not entered)
    is_symlink: bool


class _Bound:
    """The entry count and the deadline of one listing."""

    def __init__(self, what: str, limits: Limits, exit_code: ExitCode) -> None:
        self.what = what
        self.limits = limits
        self.exit_code = exit_code
        self.left = limits.listing_entries
        self.deadline = time.monotonic() + limits.listing_seconds

    def see(self) -> None:
        self.left -= 1
        if self.left < 0:
            raise BotError(
                f"{self.what}: more than {self.limits.listing_entries:,} entries (limits.listing_entries)",
                self.exit_code,
            )
        if time.monotonic() > self.deadline:
            raise BotError(
                f"{self.what}: listing took over {self.limits.listing_seconds:g} s (limits.listing_seconds)",
                self.exit_code,
            )


def _scan(directory: str) -> list[os.DirEntry[str]]:
    """A directory's entries; one that cannot be read (gone, no permission, a name too long) has none."""
    try:
        with os.scandir(directory) as entries:
            return list(entries)
    except OSError:
        return []


def walk(
    top: Path,
    what: str,
    limits: Limits = DEFAULT_LIMITS,
    *,
    recursive: bool = True,
    exit_code: ExitCode = ExitCode.CONFIG,
) -> list[Entry]:
    """Every entry under `top` (not `top` itself), within the bounds; nothing when `top` is not a directory.

    `what` names the listing in errors ("kernel library x/functions.yaml: its sources").
    """
    return _listing(top, what, limits, exit_code, _everything if recursive else _one_level, None)


def glob(
    top: Path,
    patterns: Sequence[str],
    what: str,
    limits: Limits = DEFAULT_LIMITS,
    *,
    exit_code: ExitCode = ExitCode.CONFIG,
) -> list[Path]:
    """The entries under `top` matching any of `patterns` (relative globs, pathlib's meaning), sorted;
    `top` itself too when a pattern matches no component at all (`**`), as pathlib has it.
    Only the directories a pattern can still match below are listed, each once for all patterns."""
    matcher = _Matcher(patterns)
    found = [entry.path for entry in _listing(top, what, limits, exit_code, matcher, matcher.start)]
    itself = top.is_dir() and any(at == len(matcher.parts[index]) for index, at in matcher.start)
    return sorted([top, *found] if itself else found)


def _everything(state: object, name: str, is_dir: bool) -> tuple[bool, object | None]:
    """A recursive listing: every entry, every directory entered."""
    del state, name, is_dir
    return True, True


def _one_level(state: object, name: str, is_dir: bool) -> tuple[bool, object | None]:
    """A non-recursive listing: every entry of the top, none of its subdirectories."""
    del state, name, is_dir
    return True, None


def _listing(top: Path, what: str, limits: Limits, exit_code: ExitCode, step: Step, start: object) -> list[Entry]:
    """One bounded pass from `top`, entered with state `start`: `step` decides per entry."""
    bound = _Bound(what, limits, exit_code)
    found: list[Entry] = []
    if not top.is_dir():
        return found
    pending: list[tuple[str, str, object]] = [(os.fspath(top), "", start)]
    while pending:
        directory, prefix, state = pending.pop()
        for entry in _scan(directory):
            bound.see()
            try:
                is_symlink = entry.is_symlink()
                is_dir = not is_symlink and entry.is_dir(follow_symlinks=False)
            except OSError:
                continue
            relative = prefix + entry.name
            keep, inner = step(state, entry.name, is_dir)
            if keep:
                found.append(Entry(top / relative, relative, is_dir, is_symlink))
            if is_dir and inner is not None:
                pending.append((entry.path, relative + "/", inner))
    return found


class _Matcher:
    """Glob patterns as one NFA over path components (a Step). A state is the set of (pattern, position)
    pairs still possible; position len(pattern) means the pattern matched in full."""

    def __init__(self, patterns: Iterable[str]) -> None:
        self.parts: list[list[str | re.Pattern[str]]] = []
        for pattern in patterns:
            parts: list[str | re.Pattern[str]] = []
            for component in pattern.split("/"):
                if component in ("", "."):
                    continue
                if component == ANY_DIRS:
                    if not parts or parts[-1] != ANY_DIRS:  # `**/**` matches what `**` does
                        parts.append(ANY_DIRS)
                else:
                    parts.append(re.compile(fnmatch.translate(component)))
            self.parts.append(parts)
        self.start = self._closure((index, 0) for index in range(len(self.parts)))

    def _closure(self, positions: Iterable[tuple[int, int]]) -> frozenset[tuple[int, int]]:
        """The positions, and past every `**` at one of them (it may match no directory)."""
        out: set[tuple[int, int]] = set()
        for index, at in positions:
            parts = self.parts[index]
            while True:
                out.add((index, at))
                if at < len(parts) and parts[at] == ANY_DIRS:
                    at += 1
                    continue
                break
        return frozenset(out)

    def __call__(self, state: object, name: str, is_dir: bool) -> tuple[bool, object | None]:
        positions = state
        assert isinstance(positions, frozenset)
        after: list[tuple[int, int]] = []
        for index, at in positions:
            parts = self.parts[index]
            if at == len(parts):
                continue
            part = parts[at]
            if part == ANY_DIRS:
                if is_dir:
                    after.append((index, at))  # `**` takes this directory and may take more
            elif isinstance(part, re.Pattern) and part.fullmatch(name):
                after.append((index, at + 1))
        reached = self._closure(after)
        # A directory matches a pattern that ends here or in `**`; anything else only by matching its
        # last component itself (as in pathlib, every component but the last matches directories only).
        ends = reached if is_dir else after
        keep = any(at == len(self.parts[index]) for index, at in ends)
        go_on = [(index, at) for index, at in reached if at < len(self.parts[index])]
        return keep, (frozenset(go_on) if go_on and is_dir else None)
