"""Tracing-based op info: run a model on the model_tracer build and turn what
the runtime recorded into a per-model selected-operators yaml."""

from __future__ import annotations

import functools
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from bot.build import cmake
from bot.build.arch import HOST, Arch
from bot.build.runner import emulator, run_model
from bot.errors import BotError, ExitCode
from bot.feeds import FORWARD, NO_FEEDS, Feeds
from bot.progress import Progress
from bot.safety import safe_files, sandbox
from bot.safety.limits import DEFAULT_LIMITS, Limits
from bot.selection import oplist, pte
from bot.selection.kernel_library import KernelLibraryError
from bot.selection.oplist import CALLED_BY, NOT_TRACED, Operator, SelectedOps

if TYPE_CHECKING:
    from bot.config import Config

TRACER = cmake.Flavour("tracer", {"SB_TRACING": "ON", "SELECT_ALL_OPS": "ON"})


def parse_trace(text: str, model: str) -> SelectedOps:
    """Lines of `<op>\\t<caller or ->\\t<kernel key>` from executor_runner --trace-out."""
    roots: set[str] = set()
    callers: dict[str, set[str]] = {}
    keys: dict[str, set[str]] = {}
    for number, line in enumerate(text.splitlines(), 1):
        parts = line.split("\t")
        if len(parts) != 3:
            raise BotError(f"trace of {model}: malformed line {number}", ExitCode.RUNTIME)
        op, caller, key = parts
        keys.setdefault(op, set()).add(key)
        callers.setdefault(op, set())
        if caller == "-":
            roots.add(op)
        else:
            callers[op].add(caller)
    operators = {
        op: Operator(
            is_root_operator=op in roots,
            debug_info=tuple(sorted({model} | {CALLED_BY + c for c in callers[op]})),
        )
        for op in sorted(keys)
    }
    return SelectedOps(operators=operators, et_kernel_metadata={op: tuple(sorted(k)) for op, k in keys.items()})


def declared_calls(runner: Path, limits: Limits = DEFAULT_LIMITS, arch: Arch = HOST) -> dict[str, tuple[str, ...]]:
    """Each registered op and the ops its kernel declares it may call (executor_runner --list-kernels)."""
    proc = sandbox.run_program(
        [runner, "--list-kernels"], what=f"{runner.name} --list-kernels", limits=limits, emulator=emulator(arch)
    )
    if proc.returncode != 0:
        raise BotError(f"{runner.name} --list-kernels failed: {proc.last_error_line()[:200]}", ExitCode.RUNTIME)
    calls = {}
    for line in proc.stdout.splitlines():
        op, _, callees = line.partition("\t")
        calls[op] = tuple(c for c in callees.split(",") if c)
    return calls


def close_over_calls(selection: SelectedOps, calls: dict[str, tuple[str, ...]], label: str) -> SelectedOps:
    """Adds every op a selected kernel may call, transitively, that the run did not reach.

    The loader resolves declared calls up front, so a runtime lacking one would
    refuse the model; these ops are marked "reachable, not traced".
    """
    added: dict[str, set[str]] = {}
    pending = list(selection.operators)
    while pending:
        op = pending.pop()
        for callee in calls.get(op, ()):
            if callee in selection.operators:
                continue
            if callee not in added:
                added[callee] = set()
                pending.append(callee)
            added[callee].add(op)
    extra = SelectedOps(
        operators={
            op: Operator(
                is_root_operator=False,
                debug_info=tuple(sorted({label, NOT_TRACED} | {CALLED_BY + c for c in callers})),
            )
            for op, callers in sorted(added.items())
        }
    )
    return oplist.merge([selection, extra])


def trace_model(
    tracer_runner: Path,
    model: Path,
    inputs: list[Path],
    label: str,
    include_reachable: bool = True,
    limits: Limits = DEFAULT_LIMITS,
    arch: Arch = HOST,
    feeds: Feeds = NO_FEEDS,
) -> SelectedOps:
    """Static root ops of the program, everything a run of each of its methods executed (every step
    of it), and what the executed kernels may call on other inputs.

    `inputs` are forward's; `feeds` gives the program's data files, the other methods' inputs (a
    method without any runs on generated ones) and the steps each method runs.

    The static parts matter: the loader needs every operator of the program and
    every op a selected kernel declares, including ones a given input never reaches.
    With `include_reachable` False (config `include: traced`) the last part is
    left out; such a selection needs a lenient-calls build.
    `tracer_runner` is built for `arch` (tracer_runner(arch=...)) and runs under its emulator.
    """
    try:
        static = oplist.from_model(model, label, limits.model_bytes)
        methods = [plan.name for plan in pte.load(model, limits.model_bytes).plans]
    except pte.PteError as exc:
        # As the runtime says it ("<file>: invalid program: ..."): no regenerated yaml fixes it (report/model.py).
        detail = str(exc).removeprefix(f"{model}: ")
        raise BotError(f"{model.name}: invalid program: {detail}", ExitCode.BAD_INPUT) from None
    traced = [
        _trace_method(tracer_runner, model, method, _inputs_of(method, inputs, feeds), label, limits, arch, feeds)
        for method in methods
    ]
    observed = oplist.merge([static, *traced])
    if not include_reachable:
        return observed
    return close_over_calls(observed, _declared_calls_cached(tracer_runner, limits, arch), label)


def _inputs_of(method: str, forward: list[Path], feeds: Feeds) -> list[Path]:
    return list(forward) if method == FORWARD else list(feeds.inputs_of(method))


def _trace_method(
    tracer_runner: Path,
    model: Path,
    method: str,
    inputs: list[Path],
    label: str,
    limits: Limits,
    arch: Arch,
    feeds: Feeds,
) -> SelectedOps:
    """What one method's run (every step of it) executed."""
    with tempfile.TemporaryDirectory(prefix="sb-trace-") as tmp:
        trace_file = Path(tmp) / "trace.tsv"
        trace_args = ("--trace-out", str(trace_file))
        try:
            run_model(
                tracer_runner,
                model,
                inputs,
                Path(tmp) / "out",
                extra_args=trace_args,
                limits=limits,
                arch=arch,
                extra_writes=(Path(tmp),),
                data=feeds.data,
                method=method,
                steps=feeds.steps,
            )
        except BotError as exc:
            error = _no_kernel(exc, model)
            if method != FORWARD:
                error = BotError(
                    error.message.replace(f"{model.name}: ", f"{model.name}: method {method}: ", 1), error.exit_code
                )
            raise error from None
        try:
            # The tracer writes one line per distinct (op, caller, kernel key): a yaml's worth at most.
            text = safe_files.read_text(
                trace_file, limits.yaml_bytes, "a trace", shown_as=f"trace of {label}", follow_symlinks=False
            )
        except safe_files.UnsafeFileError as exc:
            raise BotError(str(exc), ExitCode.RUNTIME) from None
        return parse_trace(text, label)


def _no_kernel(exc: BotError, model: Path) -> BotError:
    """The tracer registers every kernel of every library: an op it misses (say a delegate's node kind
    no library implements, xnnpack::convert.f32_qd8) is one no regenerated yaml can select. Said so."""
    prefix = f"{model.name}: missing operator"
    if exc.exit_code != ExitCode.RUNTIME or not exc.message.startswith(prefix) or " and backend" in exc.message:
        return exc
    rest = exc.message.removeprefix(prefix).removeprefix("s")
    return BotError(f"{model.name}: no kernel library implements{rest}", exc.exit_code)


@functools.cache
def _declared_calls_cached(runner: Path, limits: Limits, arch: Arch) -> dict[str, tuple[str, ...]]:
    return declared_calls(runner, limits, arch)


def tracer_runner(progress: Progress | None = None, arch: Arch = HOST, cfg: Config | None = None) -> Path:
    """The model tracer for `arch`, built (incrementally) as one progress step: this checkout's, or with
    `cfg`, the config's runtime with its kernel libraries (custom ops included)."""
    flavour, source_dir = TRACER.for_arch(arch), None
    if cfg is not None:
        try:
            flavour = cmake.with_options(flavour, cmake.kernel_library_options(cfg.root, cfg.libraries()))
        except KernelLibraryError as exc:
            raise BotError(str(exc), ExitCode.CONFIG) from None
        source_dir = cfg.root / cfg.runtime_source
    label = "building the model tracer" + ("" if arch == HOST else f" for {arch.name}")
    with (progress or Progress()).step(label):
        limits = cfg.limits if cfg else DEFAULT_LIMITS
        repo_root = cfg.root if cfg else None
        return cmake.runner_path(cmake.build(flavour, source_dir=source_dir, limits=limits, repo_root=repo_root))
