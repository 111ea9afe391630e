"""`python -m bot oplist`: a model's selected_operators.yaml, from its program or a traced run."""

from __future__ import annotations

import argparse
import glob

from bot.commands import inputs, output
from bot.errors import BotError, ExitCode
from bot.safety.limits import DEFAULT_LIMITS


def run(args: argparse.Namespace) -> int:
    from bot.selection import oplist, pte

    label = args.label or args.model.name
    if args.trace:
        from bot.feeds import FORWARD, Feeds, classify
        from bot.selection import trace

        inputs.checked_inputs(args.model, args.input, DEFAULT_LIMITS)
        # Data files, other methods' inputs and steps: as given, else found by name beside the model (bot/feeds.py).
        found = classify(args.model.stem, args.model.parent.glob(f"{glob.escape(args.model.stem)}.*"))
        data = inputs.checked_data(args.data, DEFAULT_LIMITS) if args.data else found.data
        steps = args.steps if args.steps is not None else found.steps
        inputs.check_steps(steps)
        methods = tuple((m, paths) for m, paths in found.inputs.items() if m != FORWARD)
        feeds = Feeds(data=data, method_inputs=methods, steps=steps)
        inputs.checked_inputs(args.model, [*args.input, *feeds.paths()], DEFAULT_LIMITS)
        with output.console().status("building the model tracer"):
            tracer = trace.tracer_runner()
        forward = args.input or list(found.inputs.get(FORWARD, ()))
        selection = trace.trace_model(tracer, args.model, forward, label, feeds=feeds)
    else:
        try:
            selection = oplist.from_model(args.model, label)
        except pte.PteError as exc:
            raise BotError(str(exc), ExitCode.BAD_INPUT) from None
    return output.emit_selection(selection, args.output)
