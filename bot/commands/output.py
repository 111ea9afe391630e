"""What commands show on a terminal or in a job log: the console, progress, timings, and the one
`safe` filter that every PR-controlled line goes through."""

from __future__ import annotations

import functools
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from bot.errors import ExitCode

if TYPE_CHECKING:
    from rich.console import Console

    from bot.progress import Progress
    from bot.selection import oplist as oplist_mod


@functools.cache
def console() -> Console:
    from rich.console import Console

    return Console(stderr=True, highlight=False)


def log_line(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def make_progress(environ: dict[str, str] | None = None, terminal: bool | None = None) -> Progress:
    """Live rich bars on a terminal; start/end lines on stderr in a job log (no terminal, or GitHub Actions).

    Every label and detail goes through `_safe`: they quote the PR (model and target names).
    """
    from bot.progress import LogProgress, RichProgress

    environ = dict(os.environ) if environ is None else environ
    terminal = sys.stderr.isatty() if terminal is None else terminal
    if terminal and environ.get("GITHUB_ACTIONS") != "true":
        return RichProgress(sanitize=safe, console=console())
    return LogProgress(sanitize=safe, write=log_line)


def print_timings(progress: Progress) -> None:
    """The command's step timings: a small table on a terminal, plain lines in a job log."""
    from bot.progress import RichProgress, timing_table

    rows = timing_table(progress)
    if isinstance(progress, RichProgress):
        from rich.table import Table
        from rich.text import Text

        table = Table(title="timings", title_justify="left", show_header=False, box=None, padding=(0, 2))
        table.add_column("step")
        table.add_column("time", justify="right")
        for label, seconds in rows:
            # Labels are sanitized already; rich Text keeps any [markup] in them inert.
            table.add_row(Text(label, style="bold" if label == "total" else ""), Text(seconds))
        console().print(table)
    else:
        log_line("timings:")
        for label, seconds in rows:
            log_line(f"  {seconds:>10}  {label}")


def safe(message: str) -> str:
    """PR-controlled text for the terminal or job log: redacted, one line, never a workflow command.

    A percent sign stays one: the runner reads escapes only inside workflow commands, so in a
    plain line "%" needs none (plain() would show "+0.05%" as "+0.05%25"). Each piece between
    them is made plain; a "%" between pieces cannot form a command or a newline.
    """
    from bot.github.workflow_log import plain
    from bot.safety.redact import redact

    return "%".join(plain(piece) for piece in redact(message).split("%"))


def emit_selection(selection: oplist_mod.SelectedOps, output: Path | None) -> int:
    """A selection as yaml: to `output` (atomically), or to stdout."""
    from bot.selection import oplist

    if output is None:
        sys.stdout.write(oplist.dumps(selection))
    else:
        oplist.dump(selection, output)
        print(f"wrote {output} ({len(selection.operators)} operators)", file=sys.stderr)
    return ExitCode.OK
