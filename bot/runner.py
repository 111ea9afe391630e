"""Runs models on a built runtime through executor_runner, sandboxed: the runtime
is built from the PR's kernels, so it is PR code (bot/sandbox.py)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from bot import sandbox
from bot.arch import HOST, Arch
from bot.errors import BotError, ExitCode
from bot.limits import DEFAULT_LIMITS, Limits

MESSAGE_CHARS = 400  # of the runtime's error line, in messages and reports


@dataclass(frozen=True)
class RunResult:
    outputs: list[np.ndarray]
    stdout: str


def run_model(
    runner: Path,
    model: Path,
    inputs: list[Path],
    output_dir: Path,
    extra_args: tuple[str, ...] = (),
    limits: Limits = DEFAULT_LIMITS,
    arch: Arch = HOST,
    extra_writes: tuple[Path, ...] = (),
) -> RunResult:
    """Runs `model` on `runner` (built for `arch`; under its emulator when that is not this machine).
    The sandboxed run reads the model and inputs and writes only `output_dir` and `extra_writes`."""
    if not model.is_file():
        raise BotError(f"{model}: model file not found", ExitCode.BAD_INPUT)
    for path in inputs:
        if not path.is_file():
            raise BotError(f"{path}: input file not found", ExitCode.BAD_INPUT)
    output_dir.mkdir(parents=True, exist_ok=True)
    for stale in output_dir.glob("output*.npy"):
        stale.unlink()
    # Absolute: the sandboxed run starts in its output directory, and sees only these paths.
    runner, model, output_dir = runner.absolute(), model.absolute(), output_dir.absolute()
    inputs = [path.absolute() for path in inputs]
    cmd = [str(runner), "--model", str(model), "--output-dir", str(output_dir), *extra_args]
    for path in inputs:
        cmd += ["--input", str(path)]
    view = sandbox.View(reads=(model, *inputs), writes=(output_dir, *extra_writes))
    proc = sandbox.run_program(cmd, what=f"model {model.name}", limits=limits, view=view, emulator=emulator(arch))
    if proc.returncode != 0:
        message = proc.last_error_line() or f"exit {proc.returncode}"
        raise BotError(f"{model.name}: {message.removeprefix('error: ')[:MESSAGE_CHARS]}", ExitCode.RUNTIME)
    outputs = sorted(output_dir.glob("output*.npy"), key=lambda p: int(p.stem.removeprefix("output")))
    return RunResult(outputs=[np.load(p) for p in outputs], stdout=proc.stdout)


def emulator(arch: Arch) -> tuple[str, ...]:
    """The command prefix running `arch`'s programs here (empty: natively)."""
    if arch.emulator is None:
        raise BotError(f"{arch.description} programs cannot run here (it is measured for size only)", ExitCode.RUNTIME)
    return arch.emulator
