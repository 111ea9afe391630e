"""The one exception type the CLI turns into a one-line message and an exit code."""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    OK = 0
    FINDINGS = 1  # the tool worked and found a problem (stale yaml, failing model)
    USAGE = 2
    CONFIG = 3
    BAD_INPUT = 4  # a model, yaml or input file that cannot be used
    BUILD = 5  # CMake or the compiler failed
    RUNTIME = 6  # the native runtime rejected or failed a model
    GIT = 7
    IO = 8  # disk full, permissions
    INTERNAL = 9  # an exception the bot did not expect (a bug): still one line, never a traceback


class BotError(Exception):
    def __init__(self, message: str, exit_code: ExitCode, detail: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.exit_code = exit_code
        self.detail = detail  # for reports, e.g. a failed build's error lines located in the repo (bot/build_log.py)


def internal_error(exc: BaseException, limit: int = 400) -> str:
    """The one line for an exception nobody expected: its class and message, capped.
    Callers escape and redact it like any other message (it may quote PR-controlled text)."""
    message = " ".join(str(exc).split())
    if len(message) > limit:
        message = message[: limit - 1] + "…"
    return f"internal error ({exc.__class__.__name__})" + (f": {message}" if message else "")


def inert(line: str) -> str:
    """`line` safe for a job log with nothing else to lean on (the last resort, when even the bot's own
    escaping could not be imported): one line, no `::command` at its start, no legacy `##[command]`."""
    one = line.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A").replace("##[", "##%5B")
    return "%3A" + one[1:] if one.lstrip().startswith("::") else one
