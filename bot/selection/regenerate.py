"""Regenerating every op-info yaml of a config: per model (traced) and per target (merged)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from bot.config import Config, Model, Target
from bot.errors import BotError, ExitCode
from bot.fileio import write_text_atomic
from bot.progress import Progress
from bot.report import patch
from bot.report.model import LoadFailure
from bot.safety.safe_files import MissingFileError, UnsafeFileError, inside_repo, read_bytes
from bot.selection import oplist, pte
from bot.selection.oplist import SelectedOps

# (runner, model path, inputs, label, include reachable, feeds=...) -> selection; trace.trace_model in production.
Tracer = Callable[..., SelectedOps]


@dataclass(frozen=True)
class Regenerated:
    """Every model's selection (traced, or a stand-in for one that could not be) and every target's.

    A model that could not be traced is never written: its checked-in per-model yaml is `kept` and stands
    in for it, or, without one (`unknown`), its static root ops stand in and every target holding it keeps
    its checked-in yaml too (what the model needs is not known, so no target yaml is written without it).
    """

    per_model: dict[Path, SelectedOps]  # keyed by the model's per-model yaml path (repo-relative)
    per_target: dict[str, SelectedOps]  # keyed by target name
    failures: tuple[LoadFailure, ...] = ()  # the models that could not be traced, in config order
    kept: frozenset[Path] = frozenset()  # per-model yamls of failed models, kept as checked in
    unknown: frozenset[Path] = frozenset()  # per-model yamls of failed models without a usable checked-in one

    def untraced_models(self, config: Config, target: Target) -> list[Model]:
        """The target's models that could not be traced and have no checked-in per-model yaml to stand in."""
        return [m for m in target.models if config.per_model_yaml(m) in self.unknown]

    def files(self, config: Config) -> dict[Path, str]:
        """Every yaml this regeneration may write, repo-relative path -> text: the per-model yaml of each
        traced model, and the yaml of each target none of whose models is unknown."""
        out = {
            path: oplist.dumps(sel)
            for path, sel in self.per_model.items()
            if path not in self.kept and path not in self.unknown
        }
        for target in config.targets:
            if not self.untraced_models(config, target):
                out[target.yaml] = oplist.dumps(self.per_target[target.name])
        return dict(sorted(out.items()))


def regenerate(
    config: Config, tracer_runner: Path, trace_model: Tracer, progress: Progress | None = None
) -> Regenerated:
    """Traces every model of the config (one progress step, advanced per model) and merges per target.

    A model the tracer cannot run (the runtime refuses it, it is not a valid program, it crashes or runs
    over its limits) does not stop the others: it is one of the `failures`, and its checked-in per-model
    yaml (else its static root ops) stands in for it (see `Regenerated`)."""
    progress = progress or Progress()
    traced: dict[Path, SelectedOps] = {}
    by_model: dict[Path, SelectedOps] = {}
    failures: list[LoadFailure] = []
    kept: set[Path] = set()
    unknown: set[Path] = set()
    models = config.models()
    with progress.step("tracing models", total=len(models)) as step:
        for model in models:
            label = model.path.as_posix()
            per_model = config.per_model_yaml(model)
            step.working_on(label)
            try:
                selection = trace_model(
                    tracer_runner,
                    config.root / model.path,
                    [config.root / p for p in model.inputs],
                    label,
                    config.include == "static",
                    feeds=model.feeds.under(config.root),
                )
            except BotError as exc:
                if exc.exit_code not in (ExitCode.RUNTIME, ExitCode.BAD_INPUT):
                    raise
                failures.append(LoadFailure(label, exc.message))
                checked_in = _checked_in_selection(config, per_model)
                (kept if checked_in is not None else unknown).add(per_model)
                selection = checked_in if checked_in is not None else _static_roots(config, model.path, label)
            by_model[model.path] = selection
            traced[per_model] = selection
            step.advance(label)
    per_target = {t.name: oplist.merge(by_model[m.path] for m in t.models) for t in config.targets}
    return Regenerated(traced, per_target, tuple(failures), frozenset(kept), frozenset(unknown))


def _checked_in_selection(config: Config, path: Path) -> SelectedOps | None:
    """The checked-in per-model yaml at `path`, None when there is none or it cannot be used."""
    try:
        text = checked_in_text(config, path)
        return oplist.loads(text, path.as_posix(), config.limits.yaml_bytes) if text else None
    except oplist.OplistError:
        return None
    except BotError as exc:
        if exc.exit_code not in (ExitCode.BAD_INPUT, ExitCode.CONFIG):
            raise
        return None


def _static_roots(config: Config, model: Path, label: str) -> SelectedOps:
    """The root ops the program names (empty when it cannot be read): a stand-in, never written."""
    try:
        return oplist.from_model(config.root / model, label, config.limits.model_bytes)
    except pte.PteError:
        return SelectedOps()


def _inside(config: Config, path: Path) -> Path:
    """`config.root / path`, refused if it leads out of the repo (a directory on the way
    may have become a symlink since the config was checked)."""
    try:
        inside_repo(config.root, path, "regenerated yaml")
    except UnsafeFileError as exc:
        raise BotError(str(exc), ExitCode.BAD_INPUT) from None
    return config.root / path


def _checked_in(config: Config, path: Path, errors: str) -> str | None:
    """The checked-in text of a yaml this regeneration owns (None when there is none yet).

    Only a regular file inside the repo is read: the diff shows its content, so
    a yaml symlinked to a secret or a device must never be.
    """
    try:
        data = read_bytes(_inside(config, path), config.limits.yaml_bytes, "yaml", shown_as=path.as_posix())
    except MissingFileError:
        return None
    except UnsafeFileError as exc:
        raise BotError(str(exc), ExitCode.BAD_INPUT) from None
    return data.decode("utf-8", errors=errors)


def checked_in_text(config: Config, path: Path) -> str:
    """The checked-in text of a yaml this regeneration owns ("" when there is none yet); not UTF-8, it is
    simply stale, and regenerating replaces it."""
    return _checked_in(config, path, "replace") or ""


def stale_files(config: Config, regenerated: Regenerated) -> dict[Path, str]:
    """The diff of each file whose content would change (missing files included), as `git apply` reads it
    (bot/report/patch.py): the checked-in side byte for byte, read with surrogateescape."""
    diffs: dict[Path, str] = {}
    for path, text in regenerated.files(config).items():
        diff = patch.file_diff(path.as_posix(), _checked_in(config, path, "surrogateescape"), text)
        if diff:
            diffs[path] = diff
    return diffs


def write(config: Config, regenerated: Regenerated) -> list[Path]:
    written = []
    for path, text in regenerated.files(config).items():
        if checked_in_text(config, path) != text:
            write_text_atomic(_inside(config, path), text)
            written.append(path)
    return written
