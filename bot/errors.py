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


class BotError(Exception):
    def __init__(self, message: str, exit_code: ExitCode, detail: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.exit_code = exit_code
        self.detail = detail  # for reports, e.g. a failed build's error lines located in the repo (bot/build_log.py)
