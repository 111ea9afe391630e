"""The GitHub Action's entrypoint (`python -m bot action`), speaking the runner's
contract: INPUT_* variables, GITHUB_EVENT_PATH, GITHUB_OUTPUT and
GITHUB_STEP_SUMMARY.

Two modes keep fork PRs safe: `analyze` builds and measures (it runs PR
code, so it gets a read-only token) and saves the report; `post` (run from
a workflow_run job with a write token) only reads that report, a hostile
artifact validated against its schema before use, and posts it.

Every line printed goes through `workflow_log.Log` (workflow-command
escaping, redaction); every report text written or posted goes through
`bot/report/publish.py` (redaction).

The token never sits beside PR code: it is taken out of the environment and the
inputs at start-up and handed to the poster (bot/github/poster.py), a process forked
before any PR code runs, which alone talks to GitHub.
"""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

from github import GithubException

from bot import config
from bot.errors import BotError, ExitCode, inert, internal_error
from bot.github import api, commands, poster
from bot.github.workflow_log import Log
from bot.report import artifact, patch, publish, verdict
from bot.report.escape import COMMIT, count, plain
from bot.report.model import PrReport
from bot.safety import redact
from bot.safety.redact import Redactor, looks_secret

LISTED = 20  # findings an annotation lists before counting the rest


@dataclasses.dataclass(frozen=True)
class Inputs:
    """The action's inputs but the token, which only the poster holds."""

    mode: str
    post: bool
    base: str
    targets: set[str]
    fail_on_stale: bool | None
    fail_on_budget: bool | None
    report: Path
    comment_author: str = ""
    # The name of the artifact the workflow uploads the report and its patch in (`<report>.patch`): the
    # comment's command downloads the patch from it. Analyze mode offers it only when set; post mode
    # defaults it to the report's name (what the workflows in .github/workflows upload).
    artifact: str = ""
    analyze_workflow: str = "selective-build"  # command mode: the workflow whose runs made the patch


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
    if mode not in ("analyze", "post", "command"):
        raise BotError(f"input mode must be analyze, post or command, got {mode!r}", ExitCode.USAGE)
    return Inputs(
        mode=mode,
        post=_bool(env, "post") is not False,
        base=_input(env, "base"),
        targets={t.strip() for t in _input(env, "targets").split(",") if t.strip()},
        fail_on_stale=_bool(env, "fail-on-stale"),
        fail_on_budget=_bool(env, "fail-on-budget"),
        report=Path(_input(env, "report", "selective-build-report")),
        comment_author=_input(env, "comment-author"),
        artifact=_input(env, "artifact"),
        analyze_workflow=_input(env, "analyze-workflow", "selective-build"),
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


def write_outputs(env: Mapping[str, str], outputs: Mapping[str, str], redactor: Redactor = redact.NOTHING) -> None:
    lines = []
    for key, raw in outputs.items():
        value = redactor.text(raw)
        if "\n" in value or "\r" in value:
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


def policy(root: Path, commit: str, body: str, inputs: Inputs) -> verdict.Policy:
    """The policy a PR is judged by: the config at `commit` (the base, or the default branch in post mode),
    the PR body's Binary-Size line, and the workflow's fail-on inputs where they are set."""
    return config.policy_at(root, commit).for_pr(body).overridden(inputs.fail_on_stale, inputs.fail_on_budget)


def annotations(report: PrReport, judged: verdict.Verdict) -> list[api.Annotation]:
    """Check-run annotations (plain text: names shown, capped): one per target with a yaml finding, then one
    per runtime over a size limit, on the config that sets it: a failure where it fails the PR, a warning
    (neutral: it fails nothing) over a warn level or where the policy lets it pass."""
    Annotation = api.Annotation
    found = []
    for t in report.targets:
        problems = [f"missing {plain(m.op)}" for m in t.diff.missing] + [f"unused {plain(u.op)}" for u in t.diff.unused]
        title = f"{plain(t.name)}: stale yaml"
        if t.yaml_error:
            problems = [f"the yaml cannot be used: {plain(t.yaml_error, 400)}"]
            title = f"{plain(t.name)}: unusable yaml"
        elif not problems and not t.yaml_exists:
            problems = ["the yaml does not exist"]
        if problems:
            message = "; ".join(problems[:LISTED])
            message += f"; and {len(problems) - LISTED} more" if len(problems) > LISTED else ""
            fix = "python -m bot regenerate"
            if t.untraced_models:  # regenerate leaves this yaml as checked in until they can be traced
                untraced = t.untraced_models
                models = ", ".join(plain(m) for m in untraced[:3]) + (", …" if len(untraced) > 3 else "")
                fix = f"make {models} traceable (or check in a per-model yaml), then {fix}"
            found.append(Annotation(t.yaml, f"{message}. Fix: {fix}", title))
    return found + _limit_annotations(judged)


def _limit_annotations(judged: verdict.Verdict) -> list[api.Annotation]:
    """One annotation per runtime over a size limit, on the config that sets it."""
    failing = any(r.kind == "budget" for r in judged.failures)
    found = []
    for target, arch in dict.fromkeys((b.target, b.arch) for b in judged.breaches):
        over = [b for b in judged.breaches if (b.target, b.arch) == (target, arch)]
        level = over[0].level  # fail level first
        message = "; ".join(b.describe() for b in over[:LISTED])
        message += f"; and {len(over) - LISTED} more" if len(over) > LISTED else ""
        if level == "fail" and failing:
            message += " (add a 'Binary-Size: <reason>' line to the PR body to pass anyway)"
        elif level == "fail" and judged.overridden:
            message += f" (passes: Binary-Size: {plain(judged.policy.size_reason, 400)})"
        title = f"{plain(target)} on {plain(arch)}: over its {level} level"
        severity = "failure" if level == "fail" and failing else "warning"
        found.append(api.Annotation(config.CONFIG_NAME, message, title, severity))
    return found


def _post(
    holder: poster.Poster | None,
    report: PrReport,
    judged: verdict.Verdict,
    number: int,
    head: str,
    redactor: Redactor,
    source: patch.Source | None = None,
) -> str:
    if holder is None:
        return "not posted: no github-token"
    safe = publish.publishable(report, redactor)
    request = poster.Request(
        number=number,
        head_sha=head,
        body=publish.markdown(safe, judged, redactor, source=source),
        conclusion=judged.conclusion,
        title=publish.title(safe, judged, redactor),
        summary=publish.markdown(safe, judged, redactor, limit=api.CHECK_SUMMARY_LIMIT, source=source),
        annotations=tuple(
            (a.path, redactor.text(a.message), redactor.text(a.title), a.level) for a in annotations(safe, judged)
        ),
    )
    return holder.post(request)


def _commit(value: object) -> str:
    return value if isinstance(value, str) and COMMIT.fullmatch(value) and value != "working tree" else ""


def patch_source(env: Mapping[str, str], inputs: Inputs, run_id: object, artifact_name: str) -> patch.Fetch | None:
    """Where the comment says the patch is: run `run_id`'s artifact `artifact_name` in this repository, every
    value from the trusted side (the workflow's environment and inputs, the workflow_run event), never from
    the report (None when one is missing or not of its form: no command is offered)."""
    return patch.fetch(
        run_id,
        env.get("GITHUB_REPOSITORY", ""),
        artifact_name,
        patch.file_name(inputs.report),
        env.get("GITHUB_SERVER_URL", ""),
    )


def _offered(json_path: Path, report: PrReport, head: str, log: Log) -> bool:
    """Whether the patch beside the artifact's report may be offered: it is there, a patch as the bot writes
    them, the one the report shows, made for `head`. When it may not, one plain line says why."""
    try:
        found = artifact.load_patch(json_path.with_suffix(patch.SUFFIX))
    except BotError as exc:
        log.info(f"the patch beside the report is not offered: {exc.message}")
        return False
    if found is None:
        if report.yaml_diffs:
            log.info("no patch beside the report: the comment offers no command that applies it")
        return False
    reason = patch.mismatch(found, report, head)
    if reason:
        log.info(f"the patch beside the report is not offered: {reason}")
    return not reason


def run(env: Mapping[str, str], log: Log | None = None) -> int:
    redactor = Redactor.from_env(os.environ, env)
    log = log or Log(redactor)
    token = _input(env, "github-token")
    if token:
        log.mask(token)  # the runner hides it from every later log line
    env = {name: value for name, value in env.items() if not looks_secret(name)}
    inputs = read_inputs(env)
    if inputs.mode == "command":
        return _command(env, log, inputs, token, redactor)
    holder = None
    if token and (inputs.mode == "post" or inputs.post):
        api_url = env.get("GITHUB_API_URL", api.DEFAULT_API_URL)
        holder = poster.start(token, env.get("GITHUB_REPOSITORY", ""), api_url, inputs.comment_author, redactor)
    del token
    try:
        return _run(env, log, inputs, holder, redactor)
    finally:
        if holder is not None:
            holder.close()


def _run(env: Mapping[str, str], log: Log, inputs: Inputs, holder: poster.Poster | None, redactor: Redactor) -> int:
    event = read_event(env)
    root = Path(env.get("GITHUB_WORKSPACE") or ".").resolve()
    subprocess.run(["git", "config", "--global", "--add", "safe.directory", str(root)], capture_output=True)
    number, base_sha, head_sha, body = _pr_from_event(event)
    json_path = inputs.report.with_suffix(".json")
    md_path = inputs.report.with_suffix(".md")
    summary_path = env.get("GITHUB_STEP_SUMMARY")

    if inputs.mode == "post":
        report, pr = artifact.load(json_path)
        # The event, not the artifact, says which commit and pull request the run was for.
        run_info = event.get("workflow_run") or {}
        head_sha = _commit(run_info.get("head_sha")) or _commit(head_sha) or _commit(pr.get("head_sha"))
        if head_sha:
            report = dataclasses.replace(report, head_sha=head_sha)
        pulls = run_info.get("pull_requests") or []
        number = pulls[0].get("number") if pulls and isinstance(pulls[0], dict) else pr.get("number")
        if not isinstance(number, int) or isinstance(number, bool) or number < 1:
            raise BotError("the report names no pull request to post to", ExitCode.BAD_INPUT)
        # Judged here, on the artifact's data, by the default branch's config and the PR body as GitHub
        # holds it: the run that wrote the artifact ran PR code and is trusted with nothing.
        current = holder.pull_body(number) if holder is not None else None
        if current is None:
            log.info("the PR body could not be read: no Binary-Size line is taken into account")
        judged = verdict.judge(report, policy(root, "HEAD", current or "", inputs))
        # The patch beside the report is offered only when it is the one the report shows, for this head;
        # the command names the run from the event and the artifact from this workflow's inputs.
        offered = _offered(json_path, report, _commit(run_info.get("head_sha")), log)
        name = inputs.artifact or inputs.report.name
        source = patch_source(env, inputs, run_info.get("id"), name) if offered else None
        status = _post(holder, report, judged, number, report.head_sha, redactor, source)
        log.info(status)
        _append(summary_path, publish.markdown(report, judged, redactor, source=source) + f"\n\n_{status}_\n")
        write_outputs(env, {"verdict": judged.outcome}, redactor)
        _log_verdict(log, judged)
        return judged.exit_code

    from bot import pipeline

    base = inputs.base or base_sha
    if not base:
        raise BotError("no base commit: set the 'base' input or run on pull_request events", ExitCode.USAGE)
    from bot.progress import LogProgress, timing_table

    # A line per step as it starts and ends, through the job log (redacted, never a workflow command).
    progress = LogProgress(write=log.info)
    try:
        pr_run = pipeline.analyze(root, base, None, progress, inputs.targets or None)
    finally:
        log.info("timings:")
        for label, seconds in timing_table(progress):
            log.info(f"  {seconds:>10}  {label}")
    report = pr_run.report
    if head_sha:
        report = dataclasses.replace(report, head_sha=head_sha)
    judged = verdict.judge(report, policy(root, report.base_sha, body, inputs))
    # The patch (its preamble naming the PR's head) goes beside the report, in the artifact the workflow
    # uploads when it names one: then the comment says how to download and apply it.
    source = patch_source(env, inputs, env.get("GITHUB_RUN_ID"), inputs.artifact) if inputs.artifact else None
    pr_info = {"number": number, "head_sha": head_sha}
    markdown = publish.write_report(
        report, judged, redactor, md_path, json_path, pr_info, diffs=pr_run.diffs, source=source
    )
    patch_path = json_path.with_suffix(patch.SUFFIX)
    if pr_run.diffs:
        log.info(f"the patch of {count(len(pr_run.diffs), 'stale yaml')} is written to {patch_path}")
    _append(summary_path, markdown + "\n")
    write_outputs(
        env,
        {
            "size-delta": str(report.size_delta),
            "stale": "true" if report.stale else "false",
            "report": str(md_path),
            "verdict": judged.outcome,
            "patch": str(patch_path) if pr_run.diffs else "",
        },
        redactor,
    )
    if inputs.post and number is not None and head_sha:
        status = _post(holder, report, judged, int(number), head_sha, redactor, source)
        log.info(status)
        _append(summary_path, f"\n_{status}_\n")
    _log_verdict(log, judged)
    return judged.exit_code


def _command(env: Mapping[str, str], log: Log, inputs: Inputs, token: str, redactor: Redactor) -> int:
    """A comment command (bot/github/commands.py). It runs no PR code, so its client holds the token in
    this process; it reads the default branch's config from the workspace."""
    request = commands.read_request(read_event(env))
    if request is None:
        log.info(f"not a {commands.PREFIX} command on a pull request: nothing to do")
        return int(ExitCode.OK)
    if not token:
        raise BotError("command mode needs the github-token input", ExitCode.USAGE)
    root = Path(env.get("GITHUB_WORKSPACE") or ".").resolve()
    client = api.GitHubClient(
        token, env.get("GITHUB_REPOSITORY", ""), env.get("GITHUB_API_URL", api.DEFAULT_API_URL), redactor=redactor
    )
    settings = commands.Settings(
        inputs.analyze_workflow, inputs.artifact or inputs.report.name, patch.file_name(inputs.report)
    )
    writable = commands.Writable.of(config.load(root))
    try:
        answer = commands.handle(request, client, writable, settings)
        client.react(request.comment_id, answer.reaction)
        replied = client.reply(request.number, answer.reply)
    except GithubException as exc:
        raise BotError(f"GitHub answered {exc.status} while handling the command", ExitCode.IO) from None
    (log.info if answer.done else log.error)(plain(answer.reply, 2000))
    log.info(f"the answer is in the sticky comment ({replied.value})")
    return int(ExitCode.OK if answer.done else ExitCode.FINDINGS)


def _log_verdict(log: Log, judged: verdict.Verdict) -> None:
    """The verdict's findings as workflow commands: an error per failure, a warning per warn-level finding."""
    for reason in judged.warnings:
        log.warning(reason.message)
    for reason in judged.failures:
        log.error(reason.message)


def main() -> int:
    """The process entry: secrets are recorded, hidden from children and taken out of the environment
    before anything runs."""
    redactor = redact.install(os.environ)
    env = dict(os.environ)
    redact.take_secrets(os.environ)
    log = Log(redactor)
    try:
        return run(env, log)
    except BotError as exc:
        log.error(exc.message)
        return int(exc.exit_code)
    except OSError as exc:
        # Disk full, permissions: whatever was being written was left as it was.
        log.error(f"{exc.filename + ': ' if exc.filename else ''}{exc.strerror or exc}")
        return int(ExitCode.IO)
    except Exception as exc:
        # A bug, not bad input: one escaped line, never a traceback (it would print PR text raw).
        try:
            log.error(internal_error(exc))
        except Exception:
            print(f"::error::{inert(redactor.text(internal_error(exc)))}", flush=True)
        return int(ExitCode.INTERNAL)


if __name__ == "__main__":
    sys.exit(main())
