"""File writes that never leave a half-written file behind."""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path


def current_umask() -> int:
    """The process umask, read without changing it (other threads may be creating files)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)  # no /proc: the classic swap, briefly
    os.umask(mask)
    return mask


def _mode_for(path: Path) -> int:
    """An existing file keeps its mode; a new one gets what open() would give it."""
    try:
        return stat.S_IMODE(path.stat().st_mode)
    except OSError:
        return 0o666 & ~current_umask()


def _holds(path: Path, data: bytes) -> bool:
    """Whether `path` is a regular file with exactly `data` (never opens a FIFO or device)."""
    try:
        info = path.lstat()
    except OSError:
        return False
    return stat.S_ISREG(info.st_mode) and info.st_size == len(data) and path.read_bytes() == data


def write_bytes_atomic(path: Path, data: bytes) -> None:
    """Writes to a temporary file beside `path`, then renames it into place.

    Rewriting with identical content leaves the file (and its mtime) alone,
    so build systems do not rebuild for nothing.
    """
    path = Path(path)
    if _holds(path, data):
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = _mode_for(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.fchmod(fd, mode)  # mkstemp creates 0600 whatever the umask
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise OSError(exc.errno, exc.strerror, str(path)) from None  # name the file the user asked for
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_text_atomic(path: Path, text: str) -> None:
    write_bytes_atomic(path, text.encode())
