"""`python -m bot zoo`: every bundled model on the native runtime, against ExecuTorch's outputs."""

from __future__ import annotations

import argparse

from bot.commands import output
from bot.errors import BotError, ExitCode


def run(args: argparse.Namespace) -> int:
    """Runs every bundled model and compares it with ExecuTorch's reference outputs."""
    import numpy as np
    from rich.console import Console
    from rich.table import Table

    from bot.build import cmake, compare, runner

    zoo = args.zoo_dir
    models = sorted(zoo.glob("*.pte"))
    if not models:
        raise BotError(f"{zoo}: no .pte models found", ExitCode.BAD_INPUT)
    with output.console().status("building the all-ops runtime"):
        runtime = cmake.runner_path(cmake.build(cmake.ALL_OPS))
    table = Table(title=f"{len(models)} models on the native runtime")
    for column in ("model", "outputs", "max error vs ExecuTorch", "result"):
        table.add_column(column)
    failures = 0
    for model in models:
        inputs = sorted(zoo.glob(f"{model.stem}.input*.npy"))
        expected = sorted(zoo.glob(f"{model.stem}.expected*.npy"))
        try:
            result = runner.run_model(runtime, model, inputs, args.output_dir / model.stem)
        except BotError as exc:
            failures += 1
            table.add_row(model.stem, "-", "-", f"[red]{exc.message}[/red]")
            continue
        errors = [compare.max_error(a, np.load(e)) for a, e in zip(result.outputs, expected, strict=False)]
        worst = max(errors, default=0.0)
        ok = len(errors) == len(expected) and worst <= compare.TOLERANCE
        failures += not ok
        table.add_row(
            model.stem, str(len(result.outputs)), f"{worst:.2e}", "[green]ok[/green]" if ok else "[red]MISMATCH[/red]"
        )
    Console().print(table)
    return ExitCode.FINDINGS if failures else ExitCode.OK
