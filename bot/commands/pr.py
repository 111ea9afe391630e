"""`python -m bot pr`: the PR pipeline, locally; the report written and judged."""

from __future__ import annotations

import argparse
import json

from rich.console import Console

from bot import config, pipeline
from bot.commands import output
from bot.errors import BotError, ExitCode
from bot.report import patch, publish, terminal, verdict
from bot.report.escape import count
from bot.safety.redact import current


def run(args: argparse.Namespace) -> int:
    only = {t.strip() for t in args.targets.split(",") if t.strip()} if args.targets else None
    with output.make_progress() as progress:
        pr_run = pipeline.analyze(args.root, args.base, args.head, progress, only)
    result = pr_run.report
    output.print_timings(progress)
    # Judged by the base's policy, as the Action judges a PR (a local run has no PR body).
    judged = verdict.judge(result, config.policy_at(args.root.resolve(), result.base_sha))
    json_path = args.output.with_suffix(".json")
    patch_path = json_path.with_suffix(patch.SUFFIX)
    # The report is read here, on this machine: the patch it offers is the one written beside it.
    source = patch.local(patch_path)
    publish.write_report(result, judged, current(), args.output, json_path, diffs=pr_run.diffs, source=source)
    written = patch_path if pr_run.diffs else None
    if args.json:
        shown = terminal.to_json(publish.publishable(result, current()), judged)
        shown["patch"] = str(written) if written else None
        print(current().text(json.dumps(shown, indent=2)))
    else:
        out = Console(highlight=False)
        out.print(output.safe(publish.title(result, judged, current())), markup=False)
        for line in terminal.lines(result, judged, output.safe):
            out.print(line, soft_wrap=True)
        out.print(output.safe(f"report written to {args.output}"), markup=False, soft_wrap=True)
        if written is not None:
            how = source.command() if source is not None else f"git apply {written}"
            line = f"patch of {count(len(pr_run.diffs), 'stale yaml')} written to {written}: apply it with {how}"
            out.print(output.safe(line), markup=False, soft_wrap=True)
    if result.first_build_error():
        raise BotError(f"{result.first_build_error()} (details in {args.output})", ExitCode.BUILD)
    for reason in judged.warnings:
        output.console().print("[yellow]warns:[/yellow] ", end="")
        output.console().print(output.safe(reason.message), soft_wrap=True, markup=False)
    for reason in judged.failures:
        output.console().print("[red]fails:[/red] ", end="")
        output.console().print(output.safe(reason.message), soft_wrap=True, markup=False)
    return judged.exit_code
