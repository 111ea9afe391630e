"""The Action run the way the runner runs it: INPUT_* variables, a real webhook
payload from @octokit/webhooks-examples at GITHUB_EVENT_PATH, real
GITHUB_OUTPUT and GITHUB_STEP_SUMMARY files, a temporary repo with a base and a
head commit, and GitHub itself played by the in-process fake."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.build import cmake
from bot.report import escape, patch
from bot.report.comment import MARKER
from tests.conftest import REPO_ROOT
from tests.github_fake import FakeGitHub
from tests.scenario_repo import clone_of, commit_all, git, make_kernel_call_another_op

EXAMPLES = REPO_ROOT / "tests" / "node" / "node_modules" / "@octokit" / "webhooks-examples" / "api.github.com"
TOKEN = "ghs_contract_token_must_never_leak_42"


def webhook_examples(event: str, action: str) -> list[dict]:
    index = json.loads((EXAMPLES / "index.json").read_text())
    examples = next(e for e in index if e["name"] == event)["examples"]
    found = [e for e in examples if e.get("action") == action]
    assert found, f"no {event}.{action} example"
    return found


def opened_event(base_sha: str, head_sha: str, fake: FakeGitHub | None = None) -> dict:
    """A real pull_request.opened payload for base..head; `fake`, when given, answers for that PR."""
    event = copy.deepcopy(webhook_examples("pull_request", "opened")[0])
    event["pull_request"]["base"]["sha"], event["pull_request"]["head"]["sha"] = base_sha, head_sha
    if fake is not None:
        fake.owner, fake.repo = event["repository"]["full_name"].split("/")
        fake.pr_number, fake.head_sha = event["number"], head_sha
    return event


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    server = FakeGitHub().start()
    yield server
    server.stop()


def runner_env(tmp_path: Path, workspace: Path, event: dict, fake: FakeGitHub, inputs: dict[str, str]) -> dict:
    tmp_path.mkdir(parents=True, exist_ok=True)
    (tmp_path / "event.json").write_text(json.dumps(event))
    (tmp_path / "github_output").write_text("")
    (tmp_path / "step_summary").write_text("")
    home = tmp_path / "home"  # the action edits the global git config (safe.directory)
    home.mkdir(exist_ok=True)
    env = {key: value for key, value in os.environ.items() if not key.startswith(("GITHUB_", "INPUT_", "RUNNER_"))}
    env.update(
        {
            "HOME": str(home),
            "PYTHONPATH": str(REPO_ROOT),  # this checkout's bot, where the workspace has none
            "CCACHE_DIR": subprocess.run(["ccache", "-k", "cache_dir"], capture_output=True, text=True).stdout.strip(),
            "SB_CCACHE_DIR": str(cmake.ccache_home()),  # the bot's compiler caches, shared with the other tests
            "SB_CACHE_DIR": str(tmp_path / "cache"),
            "GITHUB_ACTIONS": "true",
            "GITHUB_EVENT_NAME": "pull_request",
            "GITHUB_EVENT_PATH": str(tmp_path / "event.json"),
            "GITHUB_WORKSPACE": str(workspace),
            "GITHUB_REPOSITORY": f"{fake.owner}/{fake.repo}",
            "GITHUB_API_URL": fake.base_url,
            "GITHUB_OUTPUT": str(tmp_path / "github_output"),
            "GITHUB_STEP_SUMMARY": str(tmp_path / "step_summary"),
            "INPUT_GITHUB-TOKEN": TOKEN,
            **{f"INPUT_{k.upper()}": v for k, v in inputs.items()},
        }
    )
    return env


def run_action(env: dict, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "bot", "action"], cwd=cwd, env=env, capture_output=True, text=True)


def outputs(path: Path) -> dict[str, str]:
    return dict(line.split("=", 1) for line in path.read_text().splitlines() if "=" in line)


@pytest.mark.parametrize("action", ["opened", "synchronize"])
def test_pull_request_run_writes_outputs_summary_comment_and_check(
    action: str, base_repo: Path, tmp_path: Path, fake: FakeGitHub
) -> None:
    repo = clone_of(base_repo, tmp_path / "workspace")
    base_sha = git(repo, "rev-parse", "HEAD").strip()
    make_kernel_call_another_op(repo)
    head_sha = commit_all(repo, "clone via _to_dim_order_copy")

    event = copy.deepcopy(webhook_examples("pull_request", action)[0])
    event["pull_request"]["base"]["sha"] = base_sha
    event["pull_request"]["head"]["sha"] = head_sha
    fake.owner, fake.repo = event["repository"]["full_name"].split("/")
    fake.pr_number, fake.head_sha = event["number"], head_sha

    inputs = {"post": "true", "report": str(tmp_path / "report"), "artifact": "selective-build-report"}
    env = runner_env(tmp_path, repo, event, fake, inputs) | {"GITHUB_RUN_ID": "987654321"}
    proc = run_action(env, repo)

    assert proc.returncode == 1, proc.stdout + proc.stderr  # stale yaml fails the job (fail_on.stale)
    assert "::error::the selected-operators yaml is stale" in proc.stdout
    assert f"::add-mask::{TOKEN}" in proc.stdout
    assert (proc.stdout + proc.stderr).count(TOKEN) == 1

    out = outputs(tmp_path / "github_output")
    assert out["stale"] == "true"
    artifact = json.loads((tmp_path / "report.json").read_text())["report"]
    measured = [s for t in artifact["targets"] for s in t["sizes"] if s["base"] and s["head"]]
    assert measured and int(out["size-delta"]) == sum(s["head"]["vm_size"] - s["base"]["vm_size"] for s in measured)
    assert Path(out["report"]).read_text().startswith(MARKER)

    summary = (tmp_path / "step_summary").read_text()
    assert (
        "Selective build report" in summary
        and f"missing {escape.code('dim_order_ops::_to_dim_order_copy.out')}" in summary
    )

    assert len(fake.comments) == 1 and fake.comments[0]["body"].startswith(MARKER)
    assert f"<!-- selective-build-head: {head_sha} -->" in fake.comments[0]["body"]
    # The patch of the stale yaml beside the report, made for the PR's head; the comment downloads it from
    # this run's artifact (the workflow's input and run id, never the report's word) and applies it.
    assert out["patch"] == str(tmp_path / "report.patch") and f"is written to {out['patch']}" in proc.stdout
    found = patch.parse(Path(out["patch"]).read_text(), "report.patch")
    stale = ["apps/cnn/selected_operators.yaml", "models/oplist/squeezenet.yaml"]
    assert [f.path for f in found.files] == artifact["stale_files"] == stale
    assert found.head == head_sha and found.base == base_sha
    download = f'gh run download 987654321 -R {fake.owner}/{fake.repo} -n selective-build-report -D "$d"'
    assert f'```sh\nd=$(mktemp -d) && {download} && git apply "$d/report.patch"\n```' in fake.comments[0]["body"]
    run = fake.check_runs[0]
    assert run["head_sha"] == head_sha and run["conclusion"] == "failure"
    assert run["output"]["annotations"][0]["path"] == "apps/cnn/selected_operators.yaml"


def test_workflow_run_post_mode_posts_the_saved_report(base_repo: Path, tmp_path: Path, fake: FakeGitHub) -> None:
    """The second half of the fork-safe pair: no build, only the artifact and the event."""
    repo = clone_of(base_repo, tmp_path / "workspace")
    base_sha = git(repo, "rev-parse", "HEAD").strip()
    head_sha = commit_all(repo, "no change")
    analyze_event = opened_event(base_sha, head_sha)
    report = tmp_path / "artifact" / "selective-build-report"
    report.parent.mkdir()
    env = runner_env(tmp_path, repo, analyze_event, fake, {"post": "false", "report": str(report)})
    analyzed = subprocess.run(
        [sys.executable, "-m", "bot", "action"], cwd=repo, env=env, capture_output=True, text=True
    )
    assert analyzed.returncode == 0, analyzed.stdout + analyzed.stderr
    assert fake.requests == []  # read-only half: no GitHub calls at all
    assert outputs(tmp_path / "github_output")["stale"] == "false"

    run_event = copy.deepcopy(webhook_examples("workflow_run", "completed")[0])
    run_event["workflow_run"]["head_sha"] = head_sha
    run_event["workflow_run"]["pull_requests"] = [{"number": analyze_event["number"]}]
    fake.pr_number, fake.head_sha = analyze_event["number"], head_sha
    env = runner_env(
        tmp_path / "post", tmp_path / "elsewhere", run_event, fake, {"mode": "post", "report": str(report)}
    )
    posted = subprocess.run(
        [sys.executable, "-m", "bot", "action"], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert posted.returncode == 0, posted.stdout + posted.stderr
    assert len(fake.comments) == 1 and "No change" in fake.comments[0]["body"]
    assert fake.check_runs[0]["conclusion"] == "success"
