"""`python -m bot run`: a .pte model on the native runtime (all ops, or a selective one)."""

from __future__ import annotations

import argparse

from bot.commands import inputs, output
from bot.errors import ExitCode
from bot.safety.limits import DEFAULT_LIMITS


def run(args: argparse.Namespace) -> int:
    from bot.build import cmake, runner

    model, feeds = inputs.checked_inputs(args.model, args.input, DEFAULT_LIMITS)
    flavour = cmake.ALL_OPS
    if args.ops_yaml:
        inputs.check_selection(args.ops_yaml)
        flavour = cmake.selective_flavour(args.ops_yaml, not args.no_dtype_selection)
    with output.console().status(f"building the {flavour.name} runtime"):
        build_dir = cmake.build(flavour)
    result = runner.run_model(cmake.runner_path(build_dir), model, feeds, args.output_dir)
    for i, out in enumerate(result.outputs):
        print(f"output{i}: shape={tuple(out.shape)} dtype={out.dtype} -> {args.output_dir / f'output{i}.npy'}")
    return ExitCode.OK
