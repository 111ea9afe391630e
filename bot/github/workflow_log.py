"""Lines the bot prints to the job log, where the Actions runner reads workflow
commands: `::name props::data` at the start of a line (after leading blanks),
and the legacy `##[name]data` anywhere in a line.

PR-controlled text (a model path with a newline, an op name with `::error::`)
must never become a command. Every line goes out through `command` or `plain`:
data and properties are escaped the way the runner unescapes them, so a
newline or CR cannot start a new line; a plain line cannot begin with `::`
and cannot contain `##[`. Then no PR text is ever at the start of a line, so
`::stop-commands::` (for printing untrusted blocks verbatim) is not needed:
even a failed build's output goes out line by line, each line plain and
indented (bot/build/build_log.py `to_job_log`).

Every line is redacted (bot/safety/redact.py) and shows invisible characters.
"""

from __future__ import annotations

import sys
from typing import TextIO

from bot.report.escape import visible
from bot.safety.redact import NOTHING, Redactor


def escape_data(value: str) -> str:
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(value: str) -> str:
    return escape_data(value).replace(":", "%3A").replace(",", "%2C")


def command(name: str, data: str = "", **properties: str) -> str:
    """One workflow command line; `name` and property keys are the bot's own."""
    props = ",".join(f"{key}={visible(escape_property(value))}" for key, value in properties.items())
    return f"::{name}{' ' + props if props else ''}::{visible(escape_data(data))}"


def plain(value: str) -> str:
    """A line the runner shows as it is and never reads as a command."""
    line = visible(escape_data(value)).replace("##[", "##%5B")
    stripped = line.lstrip()
    if stripped.startswith("::"):
        at = len(line) - len(stripped)
        line = line[:at] + "%3A" + line[at + 1 :]
    return line


class Log:
    """The job log: progress, errors and masks, each one line, redacted."""

    def __init__(self, redactor: Redactor = NOTHING, out: TextIO | None = None) -> None:
        self.redactor = redactor
        self.out = out

    def _emit(self, line: str) -> None:
        print(line, file=self.out or sys.stdout, flush=True)

    def info(self, message: str) -> None:
        self._emit(plain(self.redactor.text(message)))

    def error(self, message: str) -> None:
        self._emit(command("error", self.redactor.text(message)))

    def warning(self, message: str) -> None:
        self._emit(command("warning", self.redactor.text(message)))

    def mask(self, secret: str) -> None:
        """Asks the runner to hide `secret` from every later line (not redacted: that is the point)."""
        if secret.strip():
            self._emit(command("add-mask", secret.strip()))
