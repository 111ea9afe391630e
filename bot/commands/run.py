"""`python -m bot run`: a .pte model on the native runtime (all ops, or a selective one)."""

from __future__ import annotations

import argparse

from bot.commands import inputs, output
from bot.errors import ExitCode
from bot.safety.limits import DEFAULT_LIMITS


def run(args: argparse.Namespace) -> int:
    from bot.build import cmake, runner

    model, feeds = inputs.checked_inputs(args.model, args.input, DEFAULT_LIMITS)
    data = inputs.checked_data(args.data, DEFAULT_LIMITS)
    inputs.check_steps(args.steps)
    threads = inputs.checked_threads(args.threads)
    flavour = cmake.ALL_OPS
    if args.ops_yaml:
        inputs.check_selection(args.ops_yaml)
        flavour = cmake.selective_flavour(args.ops_yaml, not args.no_dtype_selection)
    with output.console().status(f"building the {flavour.name} runtime"):
        build_dir = cmake.build(flavour)
    result = runner.run_model(
        cmake.runner_path(build_dir),
        model,
        feeds,
        args.output_dir,
        extra_args=("--threads", str(threads)) if threads > 1 else (),
        data=data,
        method=args.method,
        steps=args.steps,
    )
    for step, outputs in enumerate(result.step_outputs):
        folder = args.output_dir if args.steps == 1 else args.output_dir / f"step{step}"
        prefix = "" if args.steps == 1 else f"step {step} "
        for i, out in enumerate(outputs):
            print(f"{prefix}output{i}: shape={tuple(out.shape)} dtype={out.dtype} -> {folder / f'output{i}.npy'}")
    return ExitCode.OK
