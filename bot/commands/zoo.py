"""`python -m bot zoo`: every bundled program on the native runtime, against ExecuTorch's outputs: each of
its methods, each step, with its data files, as the files beside it name them (bot/feeds.py)."""

from __future__ import annotations

import argparse
import glob
from dataclasses import dataclass
from pathlib import Path

from bot.commands import output
from bot.errors import BotError, ExitCode
from bot.feeds import FORWARD, classify

BUNDLED = Path(__file__).resolve().parents[2] / "models"


def bundled_dirs() -> list[Path]:
    """The folders of models/ that hold programs (the zoo, the delegated, quantized, LLM, ... programs)."""
    return sorted(d for d in BUNDLED.iterdir() if d.is_dir() and any(d.glob("*.pte")))


@dataclass(frozen=True)
class Checked:
    program: str  # <folder>/<name>[:<method>]
    outputs: int
    worst: float | None  # the largest error against ExecuTorch over every step compared; None: not run
    problem: str = ""  # why it failed, if it did


def check(runtime: Path, model: Path, out_dir: Path) -> list[Checked]:
    """Runs every method of `model` that has reference outputs, with its inputs, data files and steps, and
    compares each step's outputs that a reference names (every step, or the last) with ExecuTorch's."""
    import numpy as np

    from bot.build import compare, runner

    found = classify(model.stem, model.parent.glob(f"{glob.escape(model.stem)}.*"))
    if not found.expected:
        return [Checked(f"{model.parent.name}/{model.stem}", 0, None, "no ExecuTorch outputs beside it")]
    results = []
    for method, expected in found.expected.items():
        shown = f"{model.parent.name}/{model.stem}" + ("" if method == FORWARD else f":{method}")
        try:
            result = runner.run_model(
                runtime,
                model,
                list(found.inputs.get(method, ())),
                out_dir / model.stem / method,
                data=found.data,
                method=method,
                steps=found.steps,
            )
        except BotError as exc:
            results.append(Checked(shown, 0, None, exc.message))
            continue
        compared = result.step_outputs if len(expected) == len(result.step_outputs) else (result.outputs,)
        errors, problem = [], ""
        for outputs, references in zip(compared, expected[-len(compared) :], strict=True):
            if len(outputs) != len(references):
                problem = f"{len(outputs)} outputs, ExecuTorch gave {len(references)}"
            for ours, path in zip(outputs, references, strict=False):
                try:
                    theirs = np.load(path, allow_pickle=False)
                except (ValueError, OSError, EOFError):
                    problem = f"{path.name} is not a usable .npy"
                    continue
                if ours.shape != theirs.shape or ours.dtype != theirs.dtype:
                    problem = f"output {ours.dtype}{list(ours.shape)}, ExecuTorch's {theirs.dtype}{list(theirs.shape)}"
                else:
                    errors.append(compare.max_error(ours, theirs))
        worst = max(errors, default=0.0)
        if not problem and worst > compare.TOLERANCE:
            problem = "MISMATCH"
        results.append(Checked(shown, len(result.outputs), worst, problem))
    return results


def run(args: argparse.Namespace) -> int:
    """Runs every bundled program and compares it with ExecuTorch's reference outputs."""
    from rich.console import Console
    from rich.table import Table

    from bot.build import cmake

    folders = args.zoo_dir or bundled_dirs()
    models = sorted(p for folder in folders for p in folder.glob("*.pte"))
    if not models:
        raise BotError(f"{', '.join(map(str, folders))}: no .pte models found", ExitCode.BAD_INPUT)
    with output.console().status("building the all-ops runtime"):
        runtime = cmake.runner_path(cmake.build(cmake.ALL_OPS))
    checked = [c for model in models for c in check(runtime, model, args.output_dir / model.parent.name)]
    table = Table(title=f"{len(models)} programs, {len(checked)} methods on the native runtime")
    for column in ("program", "outputs", "max error vs ExecuTorch", "result"):
        table.add_column(column)
    for c in checked:
        error = "-" if c.worst is None else f"{c.worst:.2e}"
        result = f"[red]{c.problem}[/red]" if c.problem else "[green]ok[/green]"
        table.add_row(c.program, str(c.outputs) if c.worst is not None else "-", error, result)
    Console().print(table)
    return ExitCode.FINDINGS if any(c.problem for c in checked) else ExitCode.OK
