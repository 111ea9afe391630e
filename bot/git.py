"""The few git operations the PR pipeline needs, with one-line errors."""

from __future__ import annotations

import hashlib
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


def show(repo: Path, commit: str, path: str) -> str | None:
    """The file at `commit`, or None when it does not exist there."""
    try:
        return _git(repo, "show", f"{commit}:{path}")
    except BotError:
        return None


def repo_key(repo: Path) -> str:
    """A short name for a clone, for what the cache keeps per clone."""
    return hashlib.sha256(str(repo).encode()).hexdigest()[:12]


def worktree(repo: Path, commit: str, cache: Path, role: str = "base", keep: tuple[str, ...] = ()) -> Path:
    """A clean detached worktree at `commit`. One per repo and role, moved between
    commits, so its build directories stay warm and rebuilds are incremental.

    A run killed while checking out leaves a worktree with missing or stale
    files; it is repaired, or recreated when it cannot be, and checked before use.
    Untracked files go too, except those matching the gitignore patterns `keep`
    (build directories).
    """
    path = cache / "worktrees" / f"{role}-{repo_key(repo)}"
    if (path / ".git").exists():
        try:
            _git(path, "checkout", "--quiet", "--force", "--detach", commit)
            _git(path, "clean", "-fdq", *(f"--exclude={pattern}" for pattern in keep))
            if _is_clean_checkout(path, commit):
                return path
        except BotError:
            pass  # a torn worktree (locked index, missing objects): start over
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


def _discard_worktree(repo: Path, path: Path) -> None:
    if path.exists() or path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
        if path.exists() or path.is_symlink():
            path.unlink()  # a symlink or a file where the worktree should be
    path.parent.mkdir(parents=True, exist_ok=True)
    _git(repo, "worktree", "prune")


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
