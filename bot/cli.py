"""`python -m bot <command>`: parses the command line and hands it to the command's module
(bot/commands/<command>.py), which does the work through the packages beside it.

Commands are imported when they run, so quick commands (`oplist` on a .pte) do not pay for
numpy or rich at start-up.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from pathlib import Path

from bot.commands.inputs import MAX_THREADS
from bot.errors import BotError, ExitCode, inert, internal_error

# Every command: its name on the command line is its module in bot/commands/.
COMMANDS = ("run", "oplist", "build", "aggregate", "regenerate", "pr", "deps", "action", "merge", "zoo")


def make_parser() -> argparse.ArgumentParser:
    from bot.build import arch as arches

    parser = argparse.ArgumentParser(
        prog="python -m bot",
        description="Selective build for on-device runtimes: find the ops (and dtypes) your models use, "
        "build a runtime with only those kernels, and check PRs for stale op lists and size changes.",
        epilog="Run `python -m bot <command> --help` for a command's options.",
        formatter_class=lambda prog: argparse.HelpFormatter(prog, max_help_position=28),
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="<command>")

    def command(name: str, summary: str, description: str = "") -> argparse.ArgumentParser:
        return sub.add_parser(name, help=summary, description=description or summary[0].upper() + summary[1:] + ".")

    def root_option(p: argparse.ArgumentParser) -> None:
        p.add_argument(
            "--root", type=Path, default=Path("."), help="repo root holding .selective-build.yml (default: %(default)s)"
        )

    def json_option(p: argparse.ArgumentParser, what: str) -> None:
        p.add_argument("--json", action="store_true", help=f"print {what} as JSON on stdout instead of text")

    run = command("run", "run a .pte model on the native runtime")
    run.add_argument("model", type=Path, help="the ExecuTorch program (.pte) to run")
    run.add_argument("--input", type=Path, action="append", default=[], help=".npy input (repeat per input)")
    run.add_argument(
        "--output-dir", type=Path, default=Path("out"), help="where output<N>.npy are written (default: %(default)s)"
    )
    run.add_argument(
        "--data", type=Path, action="append", default=[], help=".ptd file with the program's external weights (repeat)"
    )
    run.add_argument("--method", default="forward", help="the method to run (default: %(default)s)")
    run.add_argument(
        "--steps",
        type=int,
        default=1,
        help="executes on the one loaded method, its state carried over; --input once per input (every step) "
        "or once per input per step (default: %(default)s)",
    )
    run.add_argument(
        "--threads",
        default="1",
        help="threads the kernels run on: this one and a pool's workers, started before the program loads "
        f"(1 to {MAX_THREADS}; outputs are the same at any count; default: %(default)s)",
    )
    run.add_argument("--ops-yaml", type=Path, help="run on the selective runtime built from this yaml")
    run.add_argument("--no-dtype-selection", action="store_true", help="keep every dtype of the selected kernels")

    ol = command(
        "oplist",
        "write a model's selected_operators.yaml",
        "Write the operators a model needs as a selected_operators.yaml: its program's ops, "
        "or with --trace what a run on the tracer reached (with dtypes and ops called by other kernels).",
    )
    ol.add_argument("model", type=Path, help="the ExecuTorch program (.pte)")
    ol.add_argument("-o", "--output", type=Path, help="yaml to write (default: stdout)")
    ol.add_argument("--trace", action="store_true", help="run the model on the tracer: adds transitive ops, dtypes")
    ol.add_argument("--input", type=Path, action="append", default=[], help=".npy input for --trace (repeat)")
    ol.add_argument(
        "--data",
        type=Path,
        action="append",
        default=[],
        help=".ptd data file for --trace (repeat; default: found by name beside the model)",
    )
    ol.add_argument("--steps", type=int, help="steps each method runs for --trace (default: as the inputs name)")
    ol.add_argument("--label", help="name recorded in debug_info (default: the file name)")

    bd = command("build", "build a selective runtime and print its size")
    which = bd.add_mutually_exclusive_group(required=True)
    which.add_argument("--ops-yaml", type=Path, help="a selected_operators.yaml")
    which.add_argument("--target", help="a target of .selective-build.yml (its checked-in yaml)")
    root_option(bd)
    bd.add_argument("--build-dir", type=Path, help="build here (default: a directory per flavour under .sb-build/)")
    bd.add_argument("--no-dtype-selection", action="store_true", help="keep every dtype of the selected kernels")
    bd.add_argument(
        "--arch",
        default=arches.HOST.name,
        choices=list(arches.ARCHES),
        metavar="ARCH",
        help="architecture to build for: %(choices)s (default: %(default)s)",
    )
    bd.add_argument(
        "--kernels",
        choices=["portable", "optimized"],
        help="portable (the smallest runtime) or optimized (the optimized library's vectorised kernels where it "
        "has them: faster, bigger) (default: the target's kernels: with --target, else portable)",
    )
    bd.add_argument(
        "--cpu",
        metavar="MARCH",
        help="with optimized kernels: the -march they are built for, e.g. x86-64-v4 (default: the target's "
        "cpu: with --target; x86-64-v3 on x86-64; else the toolchain's default)",
    )
    json_option(bd, "the build directory, kernel choice and size")

    ag = command("aggregate", "merge per-model yamls into one (union, sorted)")
    ag.add_argument("yamls", type=Path, nargs="+", help="selected_operators.yaml files to merge")
    ag.add_argument("-o", "--output", type=Path, help="yaml to write (default: stdout)")

    rg = command(
        "regenerate",
        "trace every model and rewrite the per-model and per-target yamls",
        "Build the model tracer, run every model of .selective-build.yml on it, and rewrite the per-model "
        "and per-target yamls that changed.",
    )
    rg.add_argument("--check", action="store_true", help="write nothing; exit 1 with a diff when anything is stale")
    root_option(rg)
    json_option(rg, "the files written (or, with --check, the stale ones)")

    pr = command(
        "pr",
        "run the whole PR pipeline locally (no GitHub needed)",
        "Run the PR pipeline locally: regenerate and compare the yamls, smoke-run the models, build base and "
        "head runtimes, measure them, and write the report the bot would post.",
    )
    pr.add_argument("--base", required=True, help="base ref (the merge base with head is used)")
    pr.add_argument("--head", help="head ref (default: the working tree)")
    root_option(pr)
    pr.add_argument(
        "--output",
        type=Path,
        default=Path("selective-build-report.md"),
        help="the report (markdown; the .json beside it) (default: %(default)s)",
    )
    json_option(pr, "the report")
    pr.add_argument("--targets", help="comma-separated subset of targets (a shard)")

    dp = command("deps", "the op -> op call graph of the kernel library, as compiled")
    dp.add_argument("--op", help="print this op's transitive closure")
    root_option(dp)
    json_option(dp, "the edges (or the closure)")

    command("action", "the GitHub Action entrypoint (reads INPUT_* and GITHUB_* variables)")

    mg = command("merge", "merge shard reports (.json) into one report")
    mg.add_argument("reports", type=Path, nargs="+", help="the shards' report .json files")
    mg.add_argument(
        "-o",
        "--output",
        type=Path,
        default=Path("selective-build-report"),
        help="the merged report, without suffix: .md and .json are written (default: %(default)s)",
    )

    zoo = command("zoo", "run every bundled program and compare with ExecuTorch's outputs")
    zoo.add_argument(
        "--zoo-dir",
        type=Path,
        action="append",
        help="a folder of programs (.pte) with their inputs and ExecuTorch's expected outputs, named as the "
        "bot finds them (repeat; default: every folder of models/ holding programs)",
    )
    zoo.add_argument(
        "--output-dir", type=Path, default=Path("out/zoo"), help="where outputs are written (default: %(default)s)"
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    from bot.commands import output
    from bot.safety import redact

    args = make_parser().parse_args(argv)
    redact.install(os.environ)  # before any PR code runs: record the secrets, hide them from children
    if args.command != "action":  # the Action's entry hands its token to the poster (bot/github/action.py) first
        redact.take_secrets(os.environ)  # no other command needs a token: none stays in the environment
    try:
        # Each command's module is imported only when it runs: quick commands do not pay for the others.
        assert args.command in COMMANDS
        command = importlib.import_module(f"bot.commands.{args.command}")
        return int(command.run(args))
    except BotError as exc:
        output.console().print("[red]error:[/red] ", end="")
        output.console().print(output.safe(exc.message), soft_wrap=True, markup=False)
        return int(exc.exit_code)
    except OSError as exc:
        # Disk full, permissions: whatever was being written was left as it was.
        where = f"{exc.filename}: " if exc.filename else ""
        output.console().print("[red]error:[/red] ", end="")
        output.console().print(output.safe(f"{where}{exc.strerror or exc}"), soft_wrap=True, markup=False)
        return int(ExitCode.IO)
    except KeyboardInterrupt:
        output.console().print("[red]interrupted[/red]")
        return 130
    except Exception as exc:
        # A bug, not bad input: still one line (escaped, redacted), never a traceback that would
        # print PR-controlled text raw into a job log.
        line = internal_error(exc)
        try:
            shown = output.safe(line)
        except Exception:  # the handler's own imports failed too (a broken install): print with nothing else
            print(f"error: {inert(redact.redact(line))}", file=sys.stderr, flush=True)
            return int(ExitCode.INTERNAL)
        output.console().print("[red]error:[/red] ", end="")
        output.console().print(shown, soft_wrap=True, markup=False)
        return int(ExitCode.INTERNAL)
