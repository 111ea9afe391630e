"""`python -m bot oplist`: a model's selected_operators.yaml, from its program or a traced run."""

from __future__ import annotations

import argparse

from bot.commands import inputs, output
from bot.errors import BotError, ExitCode
from bot.safety.limits import DEFAULT_LIMITS


def run(args: argparse.Namespace) -> int:
    from bot.selection import oplist, pte

    label = args.label or args.model.name
    if args.trace:
        from bot.selection import trace

        inputs.checked_inputs(args.model, args.input, DEFAULT_LIMITS)
        with output.console().status("building the model tracer"):
            tracer = trace.tracer_runner()
        selection = trace.trace_model(tracer, args.model, args.input, label)
    else:
        try:
            selection = oplist.from_model(args.model, label)
        except pte.PteError as exc:
            raise BotError(str(exc), ExitCode.BAD_INPUT) from None
    return output.emit_selection(selection, args.output)
