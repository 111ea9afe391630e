"""`python -m bot regenerate`: every model traced, every yaml rewritten (or checked)."""

from __future__ import annotations

import argparse
import functools
import json
import sys

from bot.commands import output
from bot.errors import ExitCode


def run(args: argparse.Namespace) -> int:
    from bot import config as config_mod
    from bot.selection import regenerate, trace

    cfg = config_mod.load(args.root.resolve())
    with output.make_progress() as progress:
        tracer = trace.tracer_runner(progress, cfg=cfg)
        trace_model = functools.partial(trace.trace_model, limits=cfg.limits)
        regenerated = regenerate.regenerate(cfg, tracer, trace_model, progress)
    output.print_timings(progress)
    if args.check:
        diffs = regenerate.stale_files(cfg, regenerated)
        if args.json:
            print(json.dumps({"stale": sorted(p.as_posix() for p in diffs)}))
        else:
            for diff in diffs.values():
                # The diff quotes PR text (paths, yaml lines): each line is made safe for a job log.
                sys.stdout.write("".join(output.safe(line) + "\n" for line in diff.splitlines()))
            if diffs:
                output.console().print(
                    f"[red]{len(diffs)} yaml file(s) are stale[/red]: run [bold]python -m bot regenerate[/bold]"
                )
            else:
                output.console().print("[green]all yaml files are up to date[/green]")
        return ExitCode.FINDINGS if diffs else ExitCode.OK
    written = regenerate.write(cfg, regenerated)
    if args.json:
        print(json.dumps({"written": [p.as_posix() for p in written]}))
    else:
        for path in written:
            output.console().print(output.safe(f"wrote {path}"), markup=False)
        unchanged = len(regenerated.files(cfg)) - len(written)
        output.console().print(f"{len(written)} file(s) changed, {unchanged} up to date")
    return ExitCode.OK
