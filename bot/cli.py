"""`python -m bot <command>`: a thin layer over the modules that do the work."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

from rich.console import Console

from bot import build, runner
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


def make_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m bot", description="selective build for on-device runtimes")
    sub = parser.add_subparsers(dest="command", required=True)

    run = sub.add_parser("run", help="run a .pte model on the native runtime")
    run.add_argument("model", type=Path)
    run.add_argument("--input", type=Path, action="append", default=[], help=".npy input (repeat per input)")
    run.add_argument("--output-dir", type=Path, default=Path("out"))
    run.set_defaults(func=cmd_run)
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
