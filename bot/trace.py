"""Tracing-based op info: run a model on the model_tracer build and turn what
the runtime recorded into a per-model selected-operators yaml."""

from __future__ import annotations

import tempfile
from pathlib import Path

from bot import build, oplist, pte
from bot.errors import BotError, ExitCode
from bot.oplist import CALLED_BY, Operator, SelectedOps
from bot.runner import run_model

TRACER = build.Flavour("tracer", {"SB_TRACING": "ON", "SELECT_ALL_OPS": "ON"})


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


def trace_model(tracer_runner: Path, model: Path, inputs: list[Path], label: str) -> SelectedOps:
    """Static root ops of the program united with everything a run executed.

    The static part matters: the loader needs every operator of the program,
    including ones a given input never reaches.
    """
    try:
        program = pte.load(model)
    except pte.PteError as exc:
        raise BotError(str(exc), ExitCode.BAD_INPUT) from None
    with tempfile.TemporaryDirectory(prefix="sb-trace-") as tmp:
        trace_file = Path(tmp) / "trace.tsv"
        run_model(tracer_runner, model, inputs, Path(tmp) / "out", extra_args=("--trace-out", str(trace_file)))
        traced = parse_trace(trace_file.read_text(), label)
    return oplist.merge([oplist.from_program(program, label), traced])


def tracer_runner() -> Path:
    return build.runner_path(build.build(TRACER))
