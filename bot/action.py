"""The GitHub Action's entrypoint (`python -m bot action`), speaking the runner's
contract: INPUT_* variables, GITHUB_EVENT_PATH, GITHUB_OUTPUT and
GITHUB_STEP_SUMMARY.

Two modes keep fork PRs safe: `analyze` builds and measures (it runs PR
code, so it gets a read-only token) and saves the report; `post` (run from
a workflow_run job with a write token) only reads that report and posts it.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

from bot import report as report_mod
from bot import report_io
from bot.errors import BotError, ExitCode
from bot.fileio import write_text_atomic
from bot.pipeline import PrReport

BINARY_SIZE_LINE = re.compile(r"^Binary-Size:\s*\S", re.MULTILINE)


@dataclasses.dataclass(frozen=True)
class Inputs:
    token: str
    mode: str
    post: bool
    base: str
    targets: set[str]
    fail_on_stale: bool | None
    fail_on_budget: bool | None
    report: Path


def _input(env: Mapping[str, str], name: str, default: str = "") -> str:
    # The runner upper-cases the name and keeps hyphens: INPUT_GITHUB-TOKEN.
    return env.get(f"INPUT_{name.upper()}", default).strip() or default


def _bool(env: Mapping[str, str], name: str) -> bool | None:
    value = _input(env, name).lower()
    if value in ("", "config"):
        return None
    if value in ("true", "false"):
        return value == "true"
    raise BotError(f"input {name} must be true, false or config, got {value!r}", ExitCode.USAGE)


def read_inputs(env: Mapping[str, str]) -> Inputs:
    mode = _input(env, "mode", "analyze")
    if mode not in ("analyze", "post"):
        raise BotError(f"input mode must be analyze or post, got {mode!r}", ExitCode.USAGE)
    return Inputs(
        token=_input(env, "github-token"),
        mode=mode,
        post=_bool(env, "post") is not False,
        base=_input(env, "base"),
        targets={t.strip() for t in _input(env, "targets").split(",") if t.strip()},
        fail_on_stale=_bool(env, "fail-on-stale"),
        fail_on_budget=_bool(env, "fail-on-budget"),
        report=Path(_input(env, "report", "selective-build-report")),
    )


def read_event(env: Mapping[str, str]) -> dict:
    path = env.get("GITHUB_EVENT_PATH", "")
    if not path:
        raise BotError("GITHUB_EVENT_PATH is not set: run this inside GitHub Actions", ExitCode.USAGE)
    try:
        return json.loads(Path(path).read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise BotError(f"cannot read the event payload {path} ({exc.__class__.__name__})", ExitCode.USAGE) from None


def _append(path: str | None, text: str) -> None:
    if path:
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(text)


def write_outputs(env: Mapping[str, str], outputs: Mapping[str, str]) -> None:
    lines = []
    for key, value in outputs.items():
        if "\n" in value:
            delimiter = f"EOF_{os.urandom(8).hex()}"  # a value cannot end a block it cannot guess
            lines.append(f"{key}<<{delimiter}\n{value}\n{delimiter}\n")
        else:
            lines.append(f"{key}={value}\n")
    _append(env.get("GITHUB_OUTPUT"), "".join(lines))


def _pr_from_event(event: dict) -> tuple[int | None, str, str, str]:
    """(PR number, base sha, head sha, body) of a pull_request-like event."""
    pull = event.get("pull_request") or {}
    return (
        pull.get("number") or event.get("number"),
        (pull.get("base") or {}).get("sha", "") or event.get("before", ""),
        (pull.get("head") or {}).get("sha", "") or event.get("after", ""),
        pull.get("body") or "",
    )


def _failing(report: PrReport, inputs: Inputs, root: Path, body: str) -> list[str]:
    from bot import config

    cfg = config.load(root)
    fail_stale = cfg.fail_on_stale if inputs.fail_on_stale is None else inputs.fail_on_stale
    fail_budget = cfg.fail_on_budget if inputs.fail_on_budget is None else inputs.fail_on_budget
    reasons = []
    if report.first_build_error():
        reasons.append(f"build failed: {report.first_build_error()}")
    if fail_stale and report.stale:
        reasons.append("the selected-operators yaml is stale")
    over = [t.name for t in report.targets if t.over_budget]
    if fail_budget and over and not BINARY_SIZE_LINE.search(body):
        reasons.append(f"over the size budget: {', '.join(over)} (add a 'Binary-Size: <reason>' line to the PR body)")
    return reasons


def annotations(report: PrReport) -> list:
    from bot.github import Annotation

    found = []
    for t in report.targets:
        problems = [f"missing {m.op}" for m in t.diff.missing] + [f"unused {u.op}" for u in t.diff.unused]
        if problems or not t.yaml_exists:
            message = "; ".join(problems) or "the yaml does not exist"
            found.append(Annotation(t.yaml, f"{message}. Fix: python -m bot regenerate", f"{t.name}: stale yaml"))
    return found


def _post(inputs: Inputs, env: Mapping[str, str], report: PrReport, number: int, head: str, ok: bool) -> str:
    from github import GithubException

    from bot import github

    if not inputs.token:
        return "not posted: no github-token"
    client = github.GitHubClient(
        inputs.token, env.get("GITHUB_REPOSITORY", ""), env.get("GITHUB_API_URL", github.DEFAULT_API_URL)
    )
    markdown = report_mod.render(report)
    try:
        result = github.post(client, number, head, markdown, ok, report_mod.summary_line(report), annotations(report))
    except GithubException as exc:
        # The report is already in the job summary and the artifact.
        return f"not posted: GitHub answered {exc.status}"
    return f"comment {result.comment.value}; check {result.check.value}"


def run(env: Mapping[str, str]) -> int:
    inputs = read_inputs(env)
    if inputs.token:
        print(f"::add-mask::{inputs.token}")  # the runner hides it from every later log line
    event = read_event(env)
    root = Path(env.get("GITHUB_WORKSPACE") or ".").resolve()
    subprocess.run(["git", "config", "--global", "--add", "safe.directory", str(root)], capture_output=True)
    number, base_sha, head_sha, body = _pr_from_event(event)
    json_path = inputs.report.with_suffix(".json")
    md_path = inputs.report.with_suffix(".md")

    if inputs.mode == "post":
        report, pr = report_io.load(json_path)
        # The event, not the artifact, says which commit the run was for.
        run_info = event.get("workflow_run") or {}
        head_sha = run_info.get("head_sha") or head_sha
        pulls = run_info.get("pull_requests") or []
        number = pulls[0]["number"] if pulls else pr.get("number")
        if not isinstance(number, int):
            raise BotError("the report names no pull request to post to", ExitCode.BAD_INPUT)
        status = _post(inputs, env, report, number, head_sha, ok=not report.stale)
        print(status)
        _append(env.get("GITHUB_STEP_SUMMARY"), report_mod.render(report) + f"\n\n_{status}_\n")
        return ExitCode.OK

    from bot import pipeline

    base = inputs.base or base_sha
    if not base:
        raise BotError("no base commit: set the 'base' input or run on pull_request events", ExitCode.USAGE)
    report = pipeline.run_pr(root, base, None, lambda msg: print(msg, flush=True), inputs.targets or None)
    if head_sha:
        report = dataclasses.replace(report, head_sha=head_sha)
    markdown = report_mod.render(report)
    write_text_atomic(md_path, markdown + "\n")
    write_text_atomic(json_path, report_io.dumps(report, {"number": number, "head_sha": head_sha}))
    _append(env.get("GITHUB_STEP_SUMMARY"), markdown + "\n")
    write_outputs(
        env,
        {
            "size-delta": str(report.size_delta),
            "stale": "true" if report.stale else "false",
            "report": str(md_path),
        },
    )
    reasons = _failing(report, inputs, root, body)
    if inputs.post and number is not None and head_sha:
        status = _post(inputs, env, report, int(number), head_sha, ok=not reasons)
        print(status)
        _append(env.get("GITHUB_STEP_SUMMARY"), f"\n_{status}_\n")
    for reason in reasons:
        print(f"::error::{reason}")
    return ExitCode.FINDINGS if reasons else ExitCode.OK


def main() -> int:
    try:
        return run(os.environ)
    except BotError as exc:
        print(f"::error::{exc.message}")
        return int(exc.exit_code)


if __name__ == "__main__":
    sys.exit(main())
