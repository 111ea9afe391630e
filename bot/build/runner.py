"""Runs models on a built runtime through executor_runner, sandboxed: the runtime
is built from the PR's kernels, so it is PR code (bot/safety/sandbox.py)."""

from __future__ import annotations

import io
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from bot.build.arch import HOST, Arch
from bot.errors import BotError, ExitCode
from bot.safety import bounded_walk, sandbox
from bot.safety.limits import DEFAULT_LIMITS, Limits
from bot.safety.safe_files import UnsafeFileError, read_bytes

MESSAGE_CHARS = 400  # of the runtime's error line, in messages and reports


@dataclass(frozen=True)
class RunResult:
    outputs: list[np.ndarray]  # the last step's
    stdout: str
    step_outputs: tuple[list[np.ndarray], ...] = ()  # every step's, in order


def run_model(
    runner: Path,
    model: Path,
    inputs: list[Path],
    output_dir: Path,
    extra_args: tuple[str, ...] = (),
    limits: Limits = DEFAULT_LIMITS,
    arch: Arch = HOST,
    extra_writes: tuple[Path, ...] = (),
    data: tuple[Path, ...] = (),
    method: str = "forward",
    steps: int = 1,
) -> RunResult:
    """Runs `method` of `model` on `runner` (built for `arch`; under its emulator when that is not this
    machine), with the program's `data` files (.ptd), for `steps` executes of the one loaded method
    (`inputs`: one per input, or one per input per step). The sandboxed run reads the model, its data
    and inputs and writes only `output_dir` and `extra_writes`."""
    if not model.is_file():
        raise BotError(f"{model}: model file not found", ExitCode.BAD_INPUT)
    for path in inputs:
        if not path.is_file():
            raise BotError(f"{path}: input file not found", ExitCode.BAD_INPUT)
    for path in data:
        if not path.is_file():
            raise BotError(f"{path}: data file not found", ExitCode.BAD_INPUT)
    output_dir.mkdir(parents=True, exist_ok=True)
    for stale in [*output_dir.glob("output*.npy"), *output_dir.glob("step*/output*.npy")]:
        stale.unlink()
    # Absolute: the sandboxed run starts in its output directory, and sees only these paths.
    runner, model, output_dir = runner.absolute(), model.absolute(), output_dir.absolute()
    inputs = [path.absolute() for path in inputs]
    data = tuple(path.absolute() for path in data)
    cmd = [str(runner), "--model", str(model), "--output-dir", str(output_dir), *extra_args]
    if method != "forward":
        cmd += ["--method", method]
    if steps != 1:
        cmd += ["--steps", str(steps)]
    for path in data:
        cmd += ["--data", str(path)]
    for path in inputs:
        cmd += ["--input", str(path)]
    view = sandbox.View(reads=(model, *data, *inputs), writes=(output_dir, *extra_writes))
    proc = sandbox.run_program(cmd, what=f"model {model.name}", limits=limits, view=view, emulator=emulator(arch))
    if proc.returncode != 0:
        message = proc.last_error_line() or f"exit {proc.returncode}"
        raise BotError(f"{model.name}: {message.removeprefix('error: ')[:MESSAGE_CHARS]}", ExitCode.RUNTIME)
    if steps == 1:
        outputs = _read_outputs(output_dir, model, limits)
        return RunResult(outputs=outputs, stdout=proc.stdout, step_outputs=(outputs,))
    per_step = tuple(_read_outputs(output_dir / f"step{k}", model, limits) for k in range(steps))
    return RunResult(outputs=per_step[-1], stdout=proc.stdout, step_outputs=per_step)


OUTPUT_NAME = re.compile(r"output([0-9]{1,6})\.npy")


def _read_outputs(output_dir: Path, model: Path, limits: Limits) -> list[np.ndarray]:
    """The runtime's outputs, in order. The runtime is PR code: what it wrote is read like any hostile
    file (regular files only, bounded, never unpickled), and a file that is not a usable .npy is the
    model's failure, not a traceback."""
    listed = bounded_walk.walk(
        output_dir, f"the outputs of model {model.name}", limits, recursive=False, exit_code=ExitCode.RUNTIME
    )
    numbered = sorted(
        (int(match.group(1)), entry.path) for entry in listed if (match := OUTPUT_NAME.fullmatch(entry.relative))
    )
    outputs = []
    for index, path in numbered:
        try:
            data = read_bytes(Path(path), limits.run_memory_bytes, "a runtime output", shown_as=f"output{index}.npy")
            outputs.append(np.load(io.BytesIO(data), allow_pickle=False))
        except UnsafeFileError as exc:
            raise BotError(f"{model.name}: {exc}", ExitCode.RUNTIME) from None
        except (ValueError, OSError, EOFError) as exc:
            raise BotError(
                f"{model.name}: output{index}.npy is not a usable .npy ({exc.__class__.__name__})", ExitCode.RUNTIME
            ) from None
    return outputs


def emulator(arch: Arch) -> tuple[str, ...]:
    """The command prefix running `arch`'s programs here (empty: natively)."""
    if arch.emulator is None:
        raise BotError(f"{arch.description} programs cannot run here (it is measured for size only)", ExitCode.RUNTIME)
    return arch.emulator
