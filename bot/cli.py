"""`python -m bot <command>`: a thin layer over the modules that do the work."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

from rich.console import Console

from bot import build, compare, runner
from bot.errors import BotError, ExitCode

console = Console(stderr=True, highlight=False)


def cmd_run(args: argparse.Namespace) -> int:
    flavour = build.ALL_OPS
    with console.status(f"building the {flavour.name} runtime"):
        build_dir = build.build(flavour)
    result = runner.run_model(build.runner_path(build_dir), args.model, args.input, args.output_dir)
    for i, out in enumerate(result.outputs):
        print(f"output{i}: shape={tuple(out.shape)} dtype={out.dtype} -> {args.output_dir / f'output{i}.npy'}")
    return ExitCode.OK


def cmd_zoo(args: argparse.Namespace) -> int:
    """Runs every bundled model and compares it with ExecuTorch's reference outputs."""
    import numpy as np
    from rich.table import Table

    zoo = args.zoo_dir
    models = sorted(zoo.glob("*.pte"))
    if not models:
        raise BotError(f"{zoo}: no .pte models found", ExitCode.BAD_INPUT)
    with console.status("building the all-ops runtime"):
        runtime = build.runner_path(build.build(build.ALL_OPS))
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


def make_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m bot", description="selective build for on-device runtimes")
    sub = parser.add_subparsers(dest="command", required=True)

    run = sub.add_parser("run", help="run a .pte model on the native runtime")
    run.add_argument("model", type=Path)
    run.add_argument("--input", type=Path, action="append", default=[], help=".npy input (repeat per input)")
    run.add_argument("--output-dir", type=Path, default=Path("out"))
    run.set_defaults(func=cmd_run)

    zoo = sub.add_parser("zoo", help="run every bundled model and compare with ExecuTorch's outputs")
    zoo.add_argument("--zoo-dir", type=Path, default=build.REPO_ROOT / "models" / "zoo")
    zoo.add_argument("--output-dir", type=Path, default=Path("out/zoo"))
    zoo.set_defaults(func=cmd_zoo)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = make_parser()
    args = parser.parse_args(argv)
    func: Callable[[argparse.Namespace], int] = args.func
    try:
        return int(func(args))
    except BotError as exc:
        console.print(f"[red]error:[/red] {exc.message}", soft_wrap=True)
        return int(exc.exit_code)
    except KeyboardInterrupt:
        console.print("[red]interrupted[/red]")
        return 130
