"""`python -m bot pr`: the PR pipeline, locally; the report written and judged."""

from __future__ import annotations

import argparse
import json

from rich.console import Console

from bot import config, pipeline
from bot.commands import output
from bot.errors import BotError, ExitCode
from bot.report import publish, terminal, verdict
from bot.safety.redact import current


def run(args: argparse.Namespace) -> int:
    only = {t.strip() for t in args.targets.split(",") if t.strip()} if args.targets else None
    with output.make_progress() as progress:
        result = pipeline.run_pr(args.root, args.base, args.head, progress, only)
    output.print_timings(progress)
    # Judged by the base's policy, as the Action judges a PR (a local run has no PR body).
    judged = verdict.judge(result, config.policy_at(args.root.resolve(), result.base_sha))
    publish.write_report(result, judged, current(), args.output, args.output.with_suffix(".json"))
    if args.json:
        shown = terminal.to_json(publish.publishable(result, current()), judged)
        print(current().text(json.dumps(shown, indent=2)))
    else:
        out = Console(highlight=False)
        out.print(output.safe(publish.title(result, judged, current())), markup=False)
        for line in terminal.lines(result, judged, output.safe):
            out.print(line, soft_wrap=True)
        out.print(output.safe(f"report written to {args.output}"), markup=False, soft_wrap=True)
    if result.first_build_error():
        raise BotError(f"{result.first_build_error()} (details in {args.output})", ExitCode.BUILD)
    for reason in judged.warnings:
        output.console().print("[yellow]warns:[/yellow] ", end="")
        output.console().print(output.safe(reason.message), soft_wrap=True, markup=False)
    for reason in judged.failures:
        output.console().print("[red]fails:[/red] ", end="")
        output.console().print(output.safe(reason.message), soft_wrap=True, markup=False)
    return judged.exit_code
