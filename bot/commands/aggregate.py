"""`python -m bot aggregate`: per-model yamls merged into one."""

from __future__ import annotations

import argparse

from bot.commands import output
from bot.errors import BotError, ExitCode


def run(args: argparse.Namespace) -> int:
    from bot.selection import oplist

    try:
        merged = oplist.merge(oplist.load(path) for path in args.yamls)
    except oplist.OplistError as exc:
        raise BotError(str(exc), ExitCode.BAD_INPUT) from None
    return output.emit_selection(merged, args.output)
