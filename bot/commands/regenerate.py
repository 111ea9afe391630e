"""`python -m bot regenerate`: every model traced, every yaml rewritten (or checked).

A model that cannot be traced does not stop the others: every yaml that can be written is, each such
model is named with its error line, and the command exits 1 (see `Regenerated` for which yamls stay).
"""

from __future__ import annotations

import argparse
import functools
import json
import sys
from typing import TYPE_CHECKING

from bot.commands import output
from bot.errors import ExitCode

if TYPE_CHECKING:
    from bot.config import Config
    from bot.selection.regenerate import Regenerated

MESSAGE_LIMIT = 400  # characters of a model's error line


def run(args: argparse.Namespace) -> int:
    from bot import config as config_mod
    from bot.selection import regenerate, trace

    cfg = config_mod.load(args.root.resolve())
    with output.make_progress() as progress:
        tracer = trace.tracer_runner(progress, cfg=cfg)
        trace_model = functools.partial(trace.trace_model, limits=cfg.limits)
        regenerated = regenerate.regenerate(cfg, tracer, trace_model, progress)
    output.print_timings(progress)
    untraced = ExitCode.FINDINGS if regenerated.failures else ExitCode.OK
    if args.check:
        diffs = regenerate.stale_files(cfg, regenerated)
        if args.json:
            print(json.dumps({"stale": sorted(p.as_posix() for p in diffs), **_untraced_json(cfg, regenerated)}))
        else:
            for diff in diffs.values():
                # The diff quotes PR text (paths, yaml lines): each line is made safe for a job log.
                sys.stdout.write("".join(output.safe(line) + "\n" for line in diff.splitlines()))
            _print_untraced(cfg, regenerated)
            if diffs:
                output.console().print(
                    f"[red]{len(diffs)} yaml file(s) are stale[/red]: run [bold]python -m bot regenerate[/bold]"
                )
            elif regenerated.failures:
                output.console().print("[green]every yaml that could be regenerated is up to date[/green]")
            else:
                output.console().print("[green]all yaml files are up to date[/green]")
            _print_untraced_count(regenerated)
        return ExitCode.FINDINGS if diffs else untraced
    written = regenerate.write(cfg, regenerated)
    if args.json:
        print(json.dumps({"written": [p.as_posix() for p in written], **_untraced_json(cfg, regenerated)}))
    else:
        for path in written:
            output.console().print(output.safe(f"wrote {path}"), markup=False)
        _print_untraced(cfg, regenerated)
        unchanged = len(regenerated.files(cfg)) - len(written)
        output.console().print(f"{len(written)} file(s) changed, {unchanged} up to date")
        _print_untraced_count(regenerated)
    return untraced


def _untraced_lines(cfg: Config, regenerated: Regenerated) -> list[str]:
    """Plain text, one line each: every model that could not be traced, with its error line and whether
    regenerating can fix it; every per-model yaml kept as checked in; every target yaml left as it is."""
    from bot.report.escape import plain

    lines = []
    for failure in regenerated.failures:
        line = f"could not trace {plain(failure.model)}: {plain(failure.message, MESSAGE_LIMIT)}"
        why = failure.cannot_fix
        lines.append(line + (f"; {plain(why.line, MESSAGE_LIMIT)}" if why else ""))
    for model in cfg.models():
        path = cfg.per_model_yaml(model)
        if path in regenerated.kept:
            lines.append(
                f"kept {plain(path.as_posix())} as checked in, the selection of {plain(model.path.as_posix())} "
                "(not traced)"
            )
    for target in cfg.targets:
        untraced = regenerated.untraced_models(cfg, target)
        if untraced:
            models = ", ".join(plain(m.path.as_posix()) for m in untraced)
            has = "has" if len(untraced) == 1 else "have"
            lines.append(
                f"not regenerated: {plain(target.yaml.as_posix())} (target {plain(target.name)}), left as checked "
                f"in: {models} could not be traced and {has} no checked-in per-model yaml"
            )
    return lines


def _print_untraced(cfg: Config, regenerated: Regenerated) -> None:
    for line in _untraced_lines(cfg, regenerated):
        output.console().print(output.safe(line), markup=False, soft_wrap=True)


def _print_untraced_count(regenerated: Regenerated) -> None:
    n = len(regenerated.failures)
    if n:
        output.console().print(f"[red]{n} model{'s' if n != 1 else ''} could not be traced[/red]")


def _untraced_json(cfg: Config, regenerated: Regenerated) -> dict[str, object]:
    return {
        "untraced": [
            {
                "model": f.model,
                "message": f.message,
                "cannot_fix": f.cannot_fix.line if f.cannot_fix else None,
            }
            for f in regenerated.failures
        ],
        "kept": sorted(p.as_posix() for p in regenerated.kept),
        "not_regenerated": [t.yaml.as_posix() for t in cfg.targets if regenerated.untraced_models(cfg, t)],
    }
