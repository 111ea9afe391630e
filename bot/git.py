"""The few git operations the PR pipeline needs, with one-line errors."""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import shutil
import subprocess
from pathlib import Path

from bot.errors import BotError, ExitCode


def _git(repo: Path, *args: str) -> str:
    try:
        proc = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True)
    except FileNotFoundError:
        raise BotError("git is not installed", ExitCode.GIT) from None
    if proc.returncode != 0:
        message = proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else f"exit {proc.returncode}"
        raise BotError(f"git {args[0]} failed: {message}", ExitCode.GIT)
    return proc.stdout


def toplevel(path: Path) -> Path:
    return Path(_git(path, "rev-parse", "--show-toplevel").strip())


def resolve(repo: Path, ref: str) -> str:
    try:
        return _git(repo, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}").strip()
    except BotError:
        raise BotError(f"git base {ref!r} cannot be found (fetch it, or pass another --base)", ExitCode.GIT) from None


def merge_base(repo: Path, a: str, b: str) -> str:
    return _git(repo, "merge-base", a, b).strip()


def changed_files(repo: Path, base: str, head: str | None) -> list[str]:
    """Files changed from base to head (head None: to the working tree, untracked files included)."""
    if head is None:
        tracked = _git(repo, "diff", "--name-only", base).splitlines()
        untracked = _git(repo, "ls-files", "--others", "--exclude-standard").splitlines()
        return sorted(set(tracked) | set(untracked))
    return sorted(_git(repo, "diff", "--name-only", base, head).splitlines())


def show(repo: Path, commit: str, path: str, limit: int | None = None) -> str | None:
    """The file at `commit`, or None when it does not exist there (or is over `limit` bytes)."""
    try:
        if limit is not None and int(_git(repo, "cat-file", "-s", f"{commit}:{path}")) > limit:
            return None
        return _git(repo, "show", f"{commit}:{path}")
    except (BotError, ValueError):
        return None


def repo_key(repo: Path) -> str:
    """A short name for a clone, for what the cache keeps per clone."""
    return hashlib.sha256(str(repo).encode()).hexdigest()[:12]


def worktree(repo: Path, commit: str, cache: Path, role: str = "base", keep: tuple[str, ...] = ()) -> Path:
    """A clean detached worktree at `commit`. One per repo and role, moved between
    commits, so its build directories stay warm and rebuilds are incremental.

    A run killed at any point leaves something behind: during `git worktree add`,
    an admin entry locked "initializing" (with or without its gitdir file) and a
    partial directory; during a checkout, a half-updated tree and stale lock files.
    Runs in one clone are serialized (bot/build/lock.py), so any lock git left on this
    worktree is stale: it is cleared and the worktree repaired, or removed with
    every trace git keeps of it and recreated; either way it is checked before use.
    Untracked files go too, except those matching the gitignore patterns `keep`
    (build directories).
    """
    path = cache / "worktrees" / f"{role}-{repo_key(repo)}"
    if (path / ".git").exists():
        try:
            _clear_stale_locks(repo, path)
            _git(path, "checkout", "--quiet", "--force", "--detach", commit)
            _git(path, "clean", "-fdq", *(f"--exclude={pattern}" for pattern in keep))
            if _is_clean_checkout(path, commit):
                return path
        except BotError:
            pass  # a torn worktree (missing admin entry, missing objects): start over
    _discard_worktree(repo, path)
    _git(repo, "worktree", "add", "--quiet", "--force", "--detach", str(path), commit)
    if not _is_clean_checkout(path, commit):
        raise BotError(f"git worktree at {path} does not hold {commit[:12]} after checkout", ExitCode.GIT)
    return path


def _is_clean_checkout(path: Path, commit: str) -> bool:
    """HEAD is `commit` and every tracked file matches it."""
    try:
        head = _git(path, "rev-parse", "HEAD").strip()
        changes = _git(path, "status", "--porcelain", "--untracked-files=no", "--ignore-submodules")
    except BotError:
        return False
    return head == commit and not changes.strip()


def _tolerated(repo: Path, *args: str) -> None:
    """A clean-up git command that may fail (there may be nothing to clean up)."""
    with contextlib.suppress(BotError):
        _git(repo, *args)


def _admin_entries(repo: Path, path: Path) -> list[Path]:
    """The admin directories (`.git/worktrees/<name>`) git may keep for the worktree at `path`: named
    after it (git adds a number to a name in use), or recording it as their worktree (`gitdir`)."""
    try:
        common = Path(_git(repo, "rev-parse", "--git-common-dir").strip())
    except BotError:
        return []
    admin = (common if common.is_absolute() else repo / common) / "worktrees"
    own_name = re.compile(re.escape(path.name) + r"[0-9]*")
    real = Path(os.path.realpath(path))
    found = []
    for entry in sorted(admin.iterdir()) if admin.is_dir() else ():
        if not entry.is_dir() or entry.is_symlink():
            continue
        try:
            recorded = (entry / "gitdir").read_text().strip()
        except OSError:
            recorded = ""
        if own_name.fullmatch(entry.name) or (recorded and Path(os.path.realpath(recorded)).parent == real):
            found.append(entry)
    return found


def _clear_stale_locks(repo: Path, path: Path) -> None:
    """The locks a killed `worktree add` or checkout left on the worktree at `path`: git's
    "initializing" lock, and the lock files (index.lock, HEAD.lock) in its admin directory."""
    _tolerated(repo, "worktree", "unlock", str(path))
    for entry in _admin_entries(repo, path):
        for stale in entry.glob("*.lock"):
            stale.unlink(missing_ok=True)


def _discard_worktree(repo: Path, path: Path) -> None:
    """Every trace of the worktree at `path`: its directory, its admin entries (locked ones too)."""
    _tolerated(repo, "worktree", "unlock", str(path))
    _tolerated(repo, "worktree", "remove", "--force", "--force", str(path))
    if path.exists() or path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
        if path.exists() or path.is_symlink():
            path.unlink()  # a symlink or a file where the worktree should be
    # An entry whose add was killed before it wrote its gitdir file: git cannot name it by path,
    # and never prunes a locked entry.
    for entry in _admin_entries(repo, path):
        (entry / "locked").unlink(missing_ok=True)
    path.parent.mkdir(parents=True, exist_ok=True)
    _tolerated(repo, "worktree", "prune")


def verify_checkout(path: Path, commit: str, keep: str) -> None:
    """Just before the base is used: its worktree still holds exactly `commit`, with no file changed,
    added or removed outside the `keep` folder (its build directories). Raises BotError(GIT) otherwise."""
    try:
        head = _git(path, "rev-parse", "HEAD").strip()
        changes = _git(path, "status", "--porcelain", "--untracked-files=all", "--ignored=no", "--ignore-submodules")
    except BotError:
        head, changes = "", "?"
    outside = [line for line in changes.splitlines() if line and not line[3:].startswith(keep)]
    if head != commit or outside:
        raise BotError(f"the base worktree at {path} no longer holds {commit[:12]} as checked out", ExitCode.GIT)
