"""Paths a pull request controls, confined to the repository, and files read with a bound.

A PR can check in a symlink (to /proc/self/environ, to a secret, to
/dev/zero) and a config naming `../` or absolute paths. Every path the bot
takes from the repo goes through `inside_repo`; every file it reads from the
repo goes through `read_bytes`/`read_text`, which never open anything but a
regular file and never read more than the limit allows. Files handed to a
subprocess instead get `check_regular_file`.

Errors name the path as configured or given, never what the file holds.
"""

from __future__ import annotations

import io
import os
import stat
import zipfile
from pathlib import Path

from bot.safety import bounded_walk
from bot.safety.limits import DEFAULT_LIMITS, MIB, Limits


class UnsafeFileError(ValueError):
    """A path or file the bot refuses to use; the message is one line naming the path."""


class MissingFileError(UnsafeFileError):
    """The file does not exist (callers may treat that as "not written yet")."""


def _kind(mode: int) -> str:
    kinds = (
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
    )
    return next((name for test, name in kinds if test(mode)), "not a file")


def describe_size(size: int) -> str:
    if size < MIB:
        return f"{size:,} bytes"
    return f"{size / MIB:.1f}".removesuffix(".0") + " MB"


def _over_limit(shown: str, size: int, limit: int, what: str) -> UnsafeFileError:
    have, allowed = describe_size(size), describe_size(limit)
    if have == allowed:  # never "8 MB, over the limit of 8 MB"
        have, allowed = f"{size:,} bytes", f"{limit:,} bytes"
    return UnsafeFileError(f"{shown}: {have}, over the limit of {allowed} for {what}")


def inside_repo(root: Path, path: Path | str, what: str) -> Path:
    """`root / path` with symlinks resolved, refused unless it stays inside `root`.

    `what` names where the path came from (a config field), for the error.
    The path need not exist; whatever part of it exists is resolved.
    """
    if Path(path).is_absolute():
        raise UnsafeFileError(f"{what}: {path} must be relative to the repository root")
    real_root = Path(os.path.realpath(root))
    lexical = Path(os.path.normpath(real_root / path))
    if not lexical.is_relative_to(real_root):
        raise UnsafeFileError(f"{what}: {path} is outside the repository")
    # realpath never raises for a missing path or a symlink loop; a loop stays where it is and fails on open.
    resolved = Path(os.path.realpath(real_root / path))
    if not resolved.is_relative_to(real_root):
        raise UnsafeFileError(f"{what}: {path} leads outside the repository through a symlink")
    return resolved


def _regular_file_info(path: Path, shown: str, follow_symlinks: bool = True) -> os.stat_result:
    """stat of `path`, refused unless it is a regular file (nothing is opened)."""
    try:
        info = os.stat(path, follow_symlinks=follow_symlinks)
    except FileNotFoundError:
        raise MissingFileError(f"{shown}: no such file") from None
    except OSError as exc:
        raise UnsafeFileError(f"{shown}: cannot read ({exc.strerror})") from None
    if not stat.S_ISREG(info.st_mode):
        kind = "a symlink" if stat.S_ISLNK(info.st_mode) else _kind(info.st_mode)
        raise UnsafeFileError(f"{shown}: not a regular file ({kind})")
    return info


def check_regular_file(
    path: Path, limit: int, what: str, *, shown_as: str | None = None, follow_symlinks: bool = True
) -> Path:
    """For files a subprocess reads: an existing regular file of at most `limit` bytes.
    `follow_symlinks` False: for what PR code wrote (a build's output), where a symlink may lead anywhere."""
    shown = shown_as or str(path)
    info = _regular_file_info(path, shown, follow_symlinks)
    if info.st_size > limit:
        raise _over_limit(shown, info.st_size, limit, what)
    return Path(path)


def read_bytes(
    path: Path,
    limit: int,
    what: str,
    *,
    shown_as: str | None = None,
    prefix: int | None = None,
    follow_symlinks: bool = True,
) -> bytes:
    """The whole of a regular file of at most `limit` bytes, or only its first
    `prefix` bytes (the limit still applies to the whole file).

    Never opens a FIFO or device (checked before opening, and again on the open
    descriptor in case the path changed in between) and never reads more than
    `limit + 1` bytes, whatever the file's reported size (/proc files report 0).
    `follow_symlinks` False: a symlink is refused (what PR code wrote, e.g. a build's output).
    """
    shown = shown_as or str(path)
    info = _regular_file_info(path, shown, follow_symlinks)
    if info.st_size > limit:
        raise _over_limit(shown, info.st_size, limit, what)
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC | (0 if follow_symlinks else os.O_NOFOLLOW)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise UnsafeFileError(f"{shown}: cannot read ({exc.strerror})") from None
    try:
        opened = os.fstat(fd)
        if not stat.S_ISREG(opened.st_mode):
            raise UnsafeFileError(f"{shown}: not a regular file ({_kind(opened.st_mode)})")
        chunks: list[bytes] = []
        remaining = limit + 1 if prefix is None else min(prefix, limit + 1)
        while remaining > 0:
            chunk = os.read(fd, min(remaining, MIB))
            if not chunk:
                break
            chunks.append(chunk)
            remaining -= len(chunk)
    except OSError as exc:
        raise UnsafeFileError(f"{shown}: cannot read ({exc.strerror})") from None
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if len(data) > limit:
        raise UnsafeFileError(f"{shown}: over the limit of {describe_size(limit)} for {what}")
    return data


def read_text(path: Path, limit: int, what: str, *, shown_as: str | None = None, follow_symlinks: bool = True) -> str:
    """`read_bytes`, decoded as UTF-8."""
    data = read_bytes(path, limit, what, shown_as=shown_as, follow_symlinks=follow_symlinks)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise UnsafeFileError(f"{shown_as or path}: not UTF-8 text") from None


def symlinks_leaving(root: Path, trees: list[Path], limits: Limits = DEFAULT_LIMITS) -> list[Path]:
    """Symlinks under `trees` whose target lies outside `root`.

    The compiler follows a kernel source symlinked to a secret and quotes it in
    its diagnostics, which reach the report; such a tree is refused before any build.
    Each tree is listed within `limits` (bot/safety/bounded_walk.py), never through a symlinked directory.
    """
    base = root.resolve()
    found = []
    for tree in trees:
        shown = tree.relative_to(root).as_posix() if tree.is_relative_to(root) else str(tree)
        for entry in bounded_walk.walk(tree, f"{shown}: the check for symlinks", limits):
            if entry.is_symlink and not entry.path.resolve().is_relative_to(base):
                found.append(entry.path)
    return sorted(found)


def zip_member(data: bytes, name: str, limit: int) -> bytes | None:
    """The member `name` of a zip archive held in `data` (None: no such member), read with a bound: a member
    whose header or content says it is larger than `limit` is an UnsafeFileError, as is an archive that is
    not a zip. The member's name is matched exactly; nothing is extracted to disk."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        info = next((i for i in archive.infolist() if i.filename == name), None)
        if info is None:
            return None
        if info.file_size > limit or info.is_dir():
            raise _over_limit(name, info.file_size, limit, "an archive member")
        with archive.open(info) as member:
            content = member.read(limit + 1)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError, EOFError, OSError) as exc:
        raise UnsafeFileError(f"not a readable zip archive ({exc.__class__.__name__})") from None
    if len(content) > limit:
        raise _over_limit(name, len(content), limit, "an archive member")
    return content
