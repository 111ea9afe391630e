"""Checks on what a command is given, before any build or run starts."""

from __future__ import annotations

from pathlib import Path

from bot.errors import BotError, ExitCode
from bot.safety.limits import DEFAULT_LIMITS, Limits


def input_file(path: Path, limit: int, what: str) -> Path:
    """A model or .npy the runtime will read: an existing regular file within its limit
    (never a FIFO or device, which the runtime would block on or read forever)."""
    from bot.safety.safe_files import MissingFileError, UnsafeFileError, check_regular_file

    try:
        return check_regular_file(path, limit, f"a {what}")
    except MissingFileError:
        raise BotError(f"{path}: {what} file not found", ExitCode.BAD_INPUT) from None
    except UnsafeFileError as exc:
        raise BotError(str(exc), ExitCode.BAD_INPUT) from None


def checked_inputs(model: Path, inputs: list[Path], limits: Limits) -> tuple[Path, list[Path]]:
    return input_file(model, limits.model_bytes, "model"), [input_file(p, limits.npy_bytes, "input") for p in inputs]


def checked_data(data: list[Path], limits: Limits) -> tuple[Path, ...]:
    """The .ptd files a run is given: existing regular files within the model limit."""
    return tuple(input_file(p, limits.model_bytes, "data") for p in data)


MAX_THREADS = 256  # executor_runner's own bound (kMaxThreads): more only oversubscribes any machine's cores


def checked_threads(text: str) -> int:
    """--threads as a count, refused in one line (before any build) unless a whole number from 1 to
    MAX_THREADS. A string, not argparse's int: its refusal would print the usage too."""
    value = text.strip()
    # The length first: int() refuses strings of thousands of digits with an error of its own.
    if not (value.isascii() and value.isdigit() and len(value) <= 6 and 1 <= int(value) <= MAX_THREADS):
        message = f"--threads {text[:40]!r}: give a whole number of threads from 1 to {MAX_THREADS}"
        raise BotError(message, ExitCode.BAD_INPUT)
    return int(value)


def check_steps(steps: int) -> None:
    from bot.feeds import MAX_STEPS

    if not 1 <= steps <= MAX_STEPS:
        raise BotError(f"--steps {steps}: give between 1 and {MAX_STEPS} steps", ExitCode.BAD_INPUT)


def check_selection(ops_yaml: Path, limits: Limits = DEFAULT_LIMITS) -> None:
    """Checks the yaml (and that every op it selects has a kernel) before any build starts."""
    from bot.build import bundle
    from bot.selection import oplist
    from bot.selection.kernel_library import KernelLibraryError, load_libraries
    from bot.selection.resolve import ResolveError, resolve

    try:
        selection = oplist.load_ops_yaml(ops_yaml, limits.yaml_bytes)
        resolve(load_libraries(bundle.runtime_libraries()), selection)
    except (oplist.OplistError, ResolveError, KernelLibraryError) as exc:
        raise BotError(
            f"{ops_yaml}: {exc}" if isinstance(exc, ResolveError) else str(exc), ExitCode.BAD_INPUT
        ) from None
