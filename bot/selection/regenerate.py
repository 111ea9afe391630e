"""Regenerating every op-info yaml of a config: per model (traced) and per target (merged)."""

from __future__ import annotations

import difflib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from bot.config import Config
from bot.errors import BotError, ExitCode
from bot.fileio import write_text_atomic
from bot.progress import Progress
from bot.safety.safe_files import MissingFileError, UnsafeFileError, inside_repo, read_bytes
from bot.selection import oplist
from bot.selection.oplist import SelectedOps

# (runner, model path, inputs, label, include reachable) -> selection; trace.trace_model in production.
Tracer = Callable[[Path, Path, list[Path], str, bool], SelectedOps]


@dataclass(frozen=True)
class Regenerated:
    per_model: dict[Path, SelectedOps]  # keyed by the model's per-model yaml path (repo-relative)
    per_target: dict[str, SelectedOps]  # keyed by target name

    def files(self, config: Config) -> dict[Path, str]:
        """Every yaml this regeneration owns, repo-relative path -> text."""
        out = {path: oplist.dumps(sel) for path, sel in self.per_model.items()}
        for target in config.targets:
            out[target.yaml] = oplist.dumps(self.per_target[target.name])
        return dict(sorted(out.items()))


def regenerate(
    config: Config, tracer_runner: Path, trace_model: Tracer, progress: Progress | None = None
) -> Regenerated:
    """Traces every model of the config (one progress step, advanced per model) and merges per target."""
    progress = progress or Progress()
    traced: dict[Path, SelectedOps] = {}
    by_model: dict[Path, SelectedOps] = {}
    models = config.models()
    with progress.step("tracing models", total=len(models)) as step:
        for model in models:
            label = model.path.as_posix()
            step.working_on(label)
            selection = trace_model(
                tracer_runner,
                config.root / model.path,
                [config.root / p for p in model.inputs],
                label,
                config.include == "static",
            )
            by_model[model.path] = selection
            traced[config.per_model_yaml(model)] = selection
            step.advance(label)
    per_target = {t.name: oplist.merge(by_model[m.path] for m in t.models) for t in config.targets}
    return Regenerated(traced, per_target)


def _inside(config: Config, path: Path) -> Path:
    """`config.root / path`, refused if it leads out of the repo (a directory on the way
    may have become a symlink since the config was checked)."""
    try:
        inside_repo(config.root, path, "regenerated yaml")
    except UnsafeFileError as exc:
        raise BotError(str(exc), ExitCode.BAD_INPUT) from None
    return config.root / path


def checked_in_text(config: Config, path: Path) -> str:
    """The checked-in text of a yaml this regeneration owns ("" when there is none yet).

    Only a regular file inside the repo is read: the diff shows its content, so
    a yaml symlinked to a secret or a device must never be.
    """
    try:
        data = read_bytes(_inside(config, path), config.limits.yaml_bytes, "yaml", shown_as=path.as_posix())
    except MissingFileError:
        return ""
    except UnsafeFileError as exc:
        raise BotError(str(exc), ExitCode.BAD_INPUT) from None
    return data.decode("utf-8", errors="replace")  # not UTF-8: simply stale, and regenerating replaces it


def stale_files(config: Config, regenerated: Regenerated) -> dict[Path, str]:
    """Unified diffs of the files whose content would change (missing files included)."""
    diffs: dict[Path, str] = {}
    for path, text in regenerated.files(config).items():
        current = checked_in_text(config, path)
        if current != text:
            diffs[path] = "".join(
                difflib.unified_diff(
                    current.splitlines(keepends=True),
                    text.splitlines(keepends=True),
                    fromfile=f"a/{path.as_posix()}" if current else "/dev/null",
                    tofile=f"b/{path.as_posix()}",
                )
            )
    return diffs


def write(config: Config, regenerated: Regenerated) -> list[Path]:
    written = []
    for path, text in regenerated.files(config).items():
        if checked_in_text(config, path) != text:
            write_text_atomic(_inside(config, path), text)
            written.append(path)
    return written
