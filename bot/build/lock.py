"""Advisory file locks that keep two runs in one clone (or one cache) apart.

Two `bot pr` runs share the base worktree, the build directories and the
yamls they rewrite; interleaved, they corrupt each other's builds and
reports. Each holds an exclusive `flock` on the shared thing instead: the
kernel drops it when the process dies, so a killed run never leaves a stale
lock behind.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from bot.errors import BotError, ExitCode

DEFAULT_WAIT_SECONDS = 3600.0
POLL_SECONDS = 0.2


@contextlib.contextmanager
def exclusive(
    path: Path,
    what: str,
    wait_seconds: float = DEFAULT_WAIT_SECONDS,
    on_wait: Callable[[str], None] | None = None,
) -> Iterator[None]:
    """Holds an exclusive lock on `path` (created if needed) for the block.

    Waits for another holder up to `wait_seconds`, telling `on_wait` once that it does.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o666)
    try:
        deadline = time.monotonic() + wait_seconds
        told = False
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except OSError as exc:
                if exc.errno not in (errno.EWOULDBLOCK, errno.EAGAIN):
                    raise
            if time.monotonic() >= deadline:
                raise BotError(
                    f"{what} is still in use by another run after {wait_seconds:.0f} s ({path})", ExitCode.IO
                )
            if not told and on_wait is not None:
                on_wait(f"waiting for another run that is using {what}")
                told = True
            time.sleep(POLL_SECONDS)
        yield
    finally:
        os.close(fd)  # closing the last descriptor releases the lock


def clone(
    repo: Path, cache: Path, on_wait: Callable[[str], None] | None = None
) -> contextlib.AbstractContextManager[None]:
    """The lock of one clone: its worktrees, build directories and regenerated yamls."""
    from bot.git import repo_key

    return exclusive(cache / "locks" / f"{repo_key(repo)}.lock", f"the clone {repo}", on_wait=on_wait)
