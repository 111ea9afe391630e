"""`python -m bot <command>`: a thin layer over the modules that do the work.

Modules are imported inside the commands that use them, so quick commands
(`oplist` on a .pte) do not pay for numpy or rich at start-up.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from bot.errors import BotError, ExitCode, inert, internal_error
from bot.limits import DEFAULT_LIMITS, Limits

if TYPE_CHECKING:
    from rich.console import Console

    from bot import build
    from bot import oplist as oplist_mod
    from bot.progress import Progress


@functools.cache
def console() -> Console:
    from rich.console import Console

    return Console(stderr=True, highlight=False)


def _log_line(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def make_progress(environ: dict[str, str] | None = None, terminal: bool | None = None) -> Progress:
    """Live rich bars on a terminal; start/end lines on stderr in a job log (no terminal, or GitHub Actions).

    Every label and detail goes through `_safe`: they quote the PR (model and target names).
    """
    from bot.progress import LogProgress, RichProgress

    environ = dict(os.environ) if environ is None else environ
    terminal = sys.stderr.isatty() if terminal is None else terminal
    if terminal and environ.get("GITHUB_ACTIONS") != "true":
        return RichProgress(sanitize=_safe, console=console())
    return LogProgress(sanitize=_safe, write=_log_line)


def print_timings(progress: Progress) -> None:
    """The command's step timings: a small table on a terminal, plain lines in a job log."""
    from bot.progress import RichProgress, timing_table

    rows = timing_table(progress)
    if isinstance(progress, RichProgress):
        from rich.table import Table
        from rich.text import Text

        table = Table(title="timings", title_justify="left", show_header=False, box=None, padding=(0, 2))
        table.add_column("step")
        table.add_column("time", justify="right")
        for label, seconds in rows:
            # Labels are sanitized already; rich Text keeps any [markup] in them inert.
            table.add_row(Text(label, style="bold" if label == "total" else ""), Text(seconds))
        console().print(table)
    else:
        _log_line("timings:")
        for label, seconds in rows:
            _log_line(f"  {seconds:>10}  {label}")


def _input_file(path: Path, limit: int, what: str) -> Path:
    """A model or .npy the runtime will read: an existing regular file within its limit
    (never a FIFO or device, which the runtime would block on or read forever)."""
    from bot.safe_files import MissingFileError, UnsafeFileError, check_regular_file

    try:
        return check_regular_file(path, limit, f"a {what}")
    except MissingFileError:
        raise BotError(f"{path}: {what} file not found", ExitCode.BAD_INPUT) from None
    except UnsafeFileError as exc:
        raise BotError(str(exc), ExitCode.BAD_INPUT) from None


def _checked_inputs(model: Path, inputs: list[Path], limits: Limits) -> tuple[Path, list[Path]]:
    return _input_file(model, limits.model_bytes, "model"), [_input_file(p, limits.npy_bytes, "input") for p in inputs]


def _selective_flavour(ops_yaml: Path, dtype_selective: bool, limits: Limits = DEFAULT_LIMITS) -> build.Flavour:
    """Checks the yaml (and that every op it selects has a kernel) before any build starts."""
    from bot import build, oplist
    from bot.kernel_library import KernelLibraryError, load_libraries
    from bot.resolve import ResolveError, resolve

    try:
        selection = oplist.load_ops_yaml(ops_yaml, limits.yaml_bytes)
        resolve(load_libraries([build.REPO_ROOT / "kernels" / "portable" / "functions.yaml"]), selection)
    except (oplist.OplistError, ResolveError, KernelLibraryError) as exc:
        raise BotError(
            f"{ops_yaml}: {exc}" if isinstance(exc, ResolveError) else str(exc), ExitCode.BAD_INPUT
        ) from None
    return build.selective_flavour(ops_yaml, dtype_selective)


def cmd_run(args: argparse.Namespace) -> int:
    from bot import build, runner

    model, inputs = _checked_inputs(args.model, args.input, DEFAULT_LIMITS)
    flavour = _selective_flavour(args.ops_yaml, not args.no_dtype_selection) if args.ops_yaml else build.ALL_OPS
    with console().status(f"building the {flavour.name} runtime"):
        build_dir = build.build(flavour)
    result = runner.run_model(build.runner_path(build_dir), model, inputs, args.output_dir)
    for i, out in enumerate(result.outputs):
        print(f"output{i}: shape={tuple(out.shape)} dtype={out.dtype} -> {args.output_dir / f'output{i}.npy'}")
    return ExitCode.OK


def cmd_zoo(args: argparse.Namespace) -> int:
    """Runs every bundled model and compares it with ExecuTorch's reference outputs."""
    import numpy as np
    from rich.console import Console
    from rich.table import Table

    from bot import build, compare, runner

    zoo = args.zoo_dir
    models = sorted(zoo.glob("*.pte"))
    if not models:
        raise BotError(f"{zoo}: no .pte models found", ExitCode.BAD_INPUT)
    with console().status("building the all-ops runtime"):
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


def _emit_selection(selection: oplist_mod.SelectedOps, output: Path | None) -> int:
    """A selection as yaml: to `output` (atomically), or to stdout."""
    from bot import oplist

    if output is None:
        sys.stdout.write(oplist.dumps(selection))
    else:
        oplist.dump(selection, output)
        print(f"wrote {output} ({len(selection.operators)} operators)", file=sys.stderr)
    return ExitCode.OK


def cmd_oplist(args: argparse.Namespace) -> int:
    from bot import oplist, pte

    label = args.label or args.model.name
    if args.trace:
        from bot import trace

        _checked_inputs(args.model, args.input, DEFAULT_LIMITS)
        with console().status("building the model tracer"):
            tracer = trace.tracer_runner()
        selection = trace.trace_model(tracer, args.model, args.input, label)
    else:
        try:
            selection = oplist.from_program(pte.load(args.model), label)
        except pte.PteError as exc:
            raise BotError(str(exc), ExitCode.BAD_INPUT) from None
    return _emit_selection(selection, args.output)


def cmd_build(args: argparse.Namespace) -> int:
    from bot import arch as arches
    from bot import build, size
    from bot import config as config_mod

    ops_yaml, dtype_selective, limits = args.ops_yaml, not args.no_dtype_selection, DEFAULT_LIMITS
    arch = arches.get(args.arch)
    # The kernel choice: the target's (with --target), then what the options say.
    optimized_ops: str | tuple[str, ...] | None = None
    named_cpu: str | None = None
    if args.target:
        cfg = config_mod.load(args.root.resolve())
        limits = cfg.limits
        target = cfg.target(args.target)
        ops_yaml, dtype_selective = cfg.root / target.yaml, dtype_selective and target.dtype_selective
        optimized_ops, named_cpu = target.optimized_ops, dict(target.cpu).get(arch.name)
        if not ops_yaml.is_file():
            raise BotError(
                f"{target.yaml}: target {target.name} has no yaml yet: run python -m bot regenerate", ExitCode.CONFIG
            )
    if args.kernels:
        optimized_ops = "ALL" if args.kernels == "optimized" else None
    if args.cpu is not None:
        if not config_mod.MARCH.fullmatch(args.cpu):
            raise BotError(
                f"--cpu: {args.cpu!r} is not a -march value (e.g. x86-64-v3; letters, digits, . + _ -)", ExitCode.USAGE
            )
        named_cpu = args.cpu
        if not optimized_ops:
            raise BotError(
                "--cpu: a cpu is the -march of the optimized kernels; add --kernels optimized", ExitCode.USAGE
            )
    cpu = (named_cpu or arch.optimized_cpu) if optimized_ops else None
    flavour = _selective_flavour(ops_yaml, dtype_selective, limits).for_arch(arch)
    flavour = build.with_options(flavour, build.kernel_choice_options(optimized_ops, cpu))
    kernels = config_mod.kernel_choice(optimized_ops)
    with make_progress() as progress:
        with progress.step(f"build {flavour.name} ({kernels} kernels) for {arch.name}"):
            build_dir = build.build(flavour, targets=build.runtime_targets(arch), build_dir=args.build_dir)
        with progress.step(f"size analysis ({arch.name})"), tempfile.TemporaryDirectory() as tmp:
            probe = build_dir / build.SIZE_PROBE
            sizes = size.analyse(probe, None, {}, Path(tmp), arch=arch, limits=limits)
    print_timings(progress)
    if args.json:
        figures = {"vm_bytes": sizes.vm_size, "bss_bytes": sizes.bss, "file_bytes": sizes.file_size}
        print(json.dumps({"build_dir": str(build_dir), "kernels": kernels, "cpu": cpu, **figures}))
    else:
        choice = f"{kernels} kernels" + (f", -march={cpu}" if cpu else "")
        print(
            f"selective runtime ({choice}): {sizes.vm_size:,} VM bytes (loadable sections, stripped), "
            f"+ {sizes.bss:,} bss; stripped file {sizes.file_size:,} bytes ({build_dir})"
        )
    return ExitCode.OK


def cmd_aggregate(args: argparse.Namespace) -> int:
    from bot import oplist

    try:
        merged = oplist.merge(oplist.load(path) for path in args.yamls)
    except oplist.OplistError as exc:
        raise BotError(str(exc), ExitCode.BAD_INPUT) from None
    return _emit_selection(merged, args.output)


def cmd_regenerate(args: argparse.Namespace) -> int:
    from bot import config as config_mod
    from bot import regenerate, trace

    cfg = config_mod.load(args.root.resolve())
    with make_progress() as progress:
        tracer = trace.tracer_runner(progress, cfg=cfg)
        trace_model = functools.partial(trace.trace_model, limits=cfg.limits)
        regenerated = regenerate.regenerate(cfg, tracer, trace_model, progress)
    print_timings(progress)
    if args.check:
        diffs = regenerate.stale_files(cfg, regenerated)
        if args.json:
            print(json.dumps({"stale": sorted(p.as_posix() for p in diffs)}))
        else:
            for diff in diffs.values():
                # The diff quotes PR text (paths, yaml lines): each line is made safe for a job log.
                sys.stdout.write("".join(_safe(line) + "\n" for line in diff.splitlines()))
            if diffs:
                console().print(
                    f"[red]{len(diffs)} yaml file(s) are stale[/red]: run [bold]python -m bot regenerate[/bold]"
                )
            else:
                console().print("[green]all yaml files are up to date[/green]")
        return ExitCode.FINDINGS if diffs else ExitCode.OK
    written = regenerate.write(cfg, regenerated)
    if args.json:
        print(json.dumps({"written": [p.as_posix() for p in written]}))
    else:
        for path in written:
            console().print(_safe(f"wrote {path}"), markup=False)
        console().print(f"{len(written)} file(s) changed, {len(regenerated.files(cfg)) - len(written)} up to date")
    return ExitCode.OK


def _safe(message: str) -> str:
    """PR-controlled text for the terminal or job log: redacted, one line, never a workflow command.

    A percent sign stays one: the runner reads escapes only inside workflow commands, so in a
    plain line "%" needs none (plain() would show "+0.05%" as "+0.05%25"). Each piece between
    them is made plain; a "%" between pieces cannot form a command or a newline.
    """
    from bot.redact import redact
    from bot.workflow_log import plain

    return "%".join(plain(piece) for piece in redact(message).split("%"))


def cmd_pr(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.markup import escape

    from bot import config as config_mod
    from bot import pipeline, publish, report
    from bot.redact import current

    only = {t.strip() for t in args.targets.split(",") if t.strip()} if args.targets else None
    with make_progress() as progress:
        result = pipeline.run_pr(args.root, args.base, args.head, progress, only)
    print_timings(progress)
    publish.write_report(result, current(), args.output, args.output.with_suffix(".json"))
    if args.json:
        print(current().text(json.dumps(report.to_json(publish.publishable(result, current())), indent=2)))
    else:
        out = Console(highlight=False)
        out.print(_safe(publish.title(result, current())), markup=False)
        for target in result.targets:
            name = escape(_safe(report.plain(target.name)))
            out.print(f"  {name}:" + ("  [yellow]stale yaml[/yellow]" if target.diff.stale else ""))
            for sizes in target.sizes:
                if sizes.build_error:
                    shown = "[red]head build failed: size unknown[/red]"
                else:
                    shown = f"{sizes.head.vm_size:,} VM bytes" if sizes.head else "not built"
                    if sizes.base_error:
                        shown += " [yellow](base build failed: change unknown)[/yellow]"
                    else:
                        shown += f" ({sizes.delta:+,})" if sizes.delta is not None else " (new)"
                    shown += "  [red]over budget[/red]" if sizes.over_budget else ""
                    cost = report.choice_cost(sizes)
                    if cost:
                        phrase = report.kernels_phrase(sizes.kernels, sizes.cpu)
                        shown += "  " + escape(_safe(report.plain(f"{phrase}: {cost}")))
                out.print(f"    {escape(_safe(report.plain(sizes.arch)))}: {shown}")
        out.print(_safe(f"report written to {args.output}"), markup=False, soft_wrap=True)
    if result.first_build_error():
        raise BotError(f"{result.first_build_error()} (details in {args.output})", ExitCode.BUILD)
    cfg = config_mod.load(args.root.resolve())
    over_budget = any(t.over_budget for t in result.targets)
    failing = (cfg.fail_on_stale and result.stale) or (cfg.fail_on_budget and over_budget)
    return ExitCode.FINDINGS if failing else ExitCode.OK


def cmd_action(args: argparse.Namespace) -> int:
    from bot import action

    return action.main()


def cmd_merge(args: argparse.Namespace) -> int:
    from bot import publish, report_io
    from bot.redact import current

    loaded = [report_io.load(path) for path in args.reports]
    merged = report_io.merge([r for r, _ in loaded])
    pr_info = next((info for _, info in loaded if info), {})
    publish.write_report(merged, current(), args.output.with_suffix(".md"), args.output.with_suffix(".json"), pr_info)
    print(f"merged {len(loaded)} report(s) into {args.output.with_suffix('.md')}", file=sys.stderr)
    return ExitCode.OK


def cmd_deps(args: argparse.Namespace) -> int:
    from bot import build, depgraph
    from bot import config as config_mod
    from bot.kernel_library import KernelLibraryError, load_libraries

    root = args.root.resolve()
    cfg = config_mod.load(root)
    try:
        library = load_libraries([root / p for p in cfg.kernel_libraries], cfg.limits.yaml_bytes)
        options = build.kernel_library_options(root, cfg.libraries())
    except KernelLibraryError as exc:
        raise BotError(str(exc), ExitCode.CONFIG) from None
    with console().status("compiling the kernel library"):
        graph = depgraph.graph_for_checkout(root / cfg.runtime_source, library, cfg.limits, options, root)
    if args.op:
        if args.op not in library:
            raise BotError(f"{args.op} is not in the kernel library", ExitCode.BAD_INPUT)
        closure = sorted(graph.closure([args.op]) - {args.op})
        if args.json:
            print(json.dumps({"op": args.op, "closure": closure}))
        else:
            print(_safe(f"{args.op} reaches {len(closure)} op(s): " + (", ".join(closure) or "none")))
        return ExitCode.OK
    if args.json:
        edges = [{"caller": e.caller, "callee": e.callee, "via": e.via, "source": e.source} for e in graph.edges]
        print(json.dumps({"edges": edges, "kernel_sources": graph.kernel_sources}, indent=1))
        return ExitCode.OK
    for op in sorted(graph.kernel_sources):
        callees = sorted(graph.callees(op))
        if callees:
            print(_safe(f"{op} ({graph.kernel_sources[op]}) -> {', '.join(callees)}"))
    leaf = len(graph.kernel_sources) - len({e.caller for e in graph.edges})
    print(f"{len(graph.edges)} edge(s); {leaf} kernel(s) call no other op", file=sys.stderr)
    return ExitCode.OK


def make_parser() -> argparse.ArgumentParser:
    from bot import arch as arches

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
    run.add_argument("--ops-yaml", type=Path, help="run on the selective runtime built from this yaml")
    run.add_argument("--no-dtype-selection", action="store_true", help="keep every dtype of the selected kernels")
    run.set_defaults(func=cmd_run)

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
    ol.add_argument("--label", help="name recorded in debug_info (default: the file name)")
    ol.set_defaults(func=cmd_oplist)

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
    bd.set_defaults(func=cmd_build)

    ag = command("aggregate", "merge per-model yamls into one (union, sorted)")
    ag.add_argument("yamls", type=Path, nargs="+", help="selected_operators.yaml files to merge")
    ag.add_argument("-o", "--output", type=Path, help="yaml to write (default: stdout)")
    ag.set_defaults(func=cmd_aggregate)

    rg = command(
        "regenerate",
        "trace every model and rewrite the per-model and per-target yamls",
        "Build the model tracer, run every model of .selective-build.yml on it, and rewrite the per-model "
        "and per-target yamls that changed.",
    )
    rg.add_argument("--check", action="store_true", help="write nothing; exit 1 with a diff when anything is stale")
    root_option(rg)
    json_option(rg, "the files written (or, with --check, the stale ones)")
    rg.set_defaults(func=cmd_regenerate)

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
    pr.set_defaults(func=cmd_pr)

    dp = command("deps", "the op -> op call graph of the kernel library, as compiled")
    dp.add_argument("--op", help="print this op's transitive closure")
    root_option(dp)
    json_option(dp, "the edges (or the closure)")
    dp.set_defaults(func=cmd_deps)

    ac = command("action", "the GitHub Action entrypoint (reads INPUT_* and GITHUB_* variables)")
    ac.set_defaults(func=cmd_action)

    mg = command("merge", "merge shard reports (.json) into one report")
    mg.add_argument("reports", type=Path, nargs="+", help="the shards' report .json files")
    mg.add_argument(
        "-o",
        "--output",
        type=Path,
        default=Path("selective-build-report"),
        help="the merged report, without suffix: .md and .json are written (default: %(default)s)",
    )
    mg.set_defaults(func=cmd_merge)

    zoo = command("zoo", "run every bundled model and compare with ExecuTorch's outputs")
    zoo.add_argument(
        "--zoo-dir",
        type=Path,
        default=Path(__file__).resolve().parent.parent / "models" / "zoo",
        help="models (.pte) with their inputs and ExecuTorch's expected outputs (default: models/zoo)",
    )
    zoo.add_argument(
        "--output-dir", type=Path, default=Path("out/zoo"), help="where outputs are written (default: %(default)s)"
    )
    zoo.set_defaults(func=cmd_zoo)
    return parser


def main(argv: list[str] | None = None) -> int:
    from bot import redact

    parser = make_parser()
    args = parser.parse_args(argv)
    func: Callable[[argparse.Namespace], int] = args.func
    redact.install(os.environ)  # before any PR code runs: record the secrets, hide them from children
    if func is not cmd_action:  # the Action's entry hands its token to the poster (bot/action.py) first
        redact.take_secrets(os.environ)  # no other command needs a token: none stays in the environment
    try:
        return int(func(args))
    except BotError as exc:
        console().print("[red]error:[/red] ", end="")
        console().print(_safe(exc.message), soft_wrap=True, markup=False)
        return int(exc.exit_code)
    except OSError as exc:
        # Disk full, permissions: whatever was being written was left as it was.
        where = f"{exc.filename}: " if exc.filename else ""
        console().print("[red]error:[/red] ", end="")
        console().print(_safe(f"{where}{exc.strerror or exc}"), soft_wrap=True, markup=False)
        return int(ExitCode.IO)
    except KeyboardInterrupt:
        console().print("[red]interrupted[/red]")
        return 130
    except Exception as exc:
        # A bug, not bad input: still one line (escaped, redacted), never a traceback that would
        # print PR-controlled text raw into a job log.
        line = internal_error(exc)
        try:
            shown = _safe(line)
        except Exception:  # the handler's own imports failed too (a broken install): print with nothing else
            print(f"error: {inert(redact.redact(line))}", file=sys.stderr, flush=True)
            return int(ExitCode.INTERNAL)
        console().print("[red]error:[/red] ", end="")
        console().print(shown, soft_wrap=True, markup=False)
        return int(ExitCode.INTERNAL)
