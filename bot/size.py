"""Binary size analysis of built runtimes (ELF sections, stripped size)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from bot.errors import BotError, ExitCode


def stripped_size(binary: Path, work_dir: Path) -> int:
    """Size in bytes of a stripped copy of `binary` (the original is untouched)."""
    strip = shutil.which("strip")
    if strip is None:
        raise BotError("strip not found: install binutils (scripts/setup.sh)", ExitCode.BUILD)
    work_dir.mkdir(parents=True, exist_ok=True)
    copy = work_dir / f"{binary.name}.stripped"
    shutil.copyfile(binary, copy)
    subprocess.run([strip, "--strip-all", str(copy)], check=True, capture_output=True)
    return copy.stat().st_size
