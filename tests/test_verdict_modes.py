"""One verdict, whichever way the Action runs: the same PR reaches the same conclusion when it is
analyzed with a write token (a same-repo PR: exit code and check run), analyzed with a read-only
token (a fork PR: exit code, artifact), and posted from that artifact by the `workflow_run` job
(the default branch's code and config, the PR body read from the API).

Each row is a real repository: a base commit holding the policy (`.selective-build.yml`'s
`fail_on`, `size_budget` and `size_limits`), a head commit with the PR's change, and a real pull_request
payload. A PR that passes with something to see (a warn level, a finding the policy lets pass) gets a
neutral check run in every mode that posts one.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.github_fake import FakeGitHub
from tests.scenario_repo import clone_of, commit_all, git
from tests.test_action_contract import opened_event, run_action, runner_env, webhook_examples

TARGET = "seq"  # one target (gru) keeps every row to one small runtime per side
BUDGET_OVER = 1  # VM bytes: every runtime is over it
BUDGET_RAISED = 1 << 30


def _config(repo: Path) -> Path:
    return repo / ".selective-build.yml"


def _set_seq(repo: Path, key: str, value: str) -> None:
    """Sets `key` of the seq target in the config (replacing the line that sets it, if one does)."""
    path = _config(repo)
    lines = [line for line in path.read_text().splitlines() if not line.startswith(f"    {key}:")]
    at = lines.index("    models: [models/zoo/gru.pte]") + 1
    path.write_text("\n".join([*lines[:at], f"    {key}: {value}", *lines[at:]]) + "\n")


def _fail_on_stale_off(repo: Path) -> None:
    _config(repo).write_text(_config(repo).read_text() + "fail_on: {stale: false}\n")


def _budget(limit: int) -> Callable[[Path], None]:
    return lambda repo: _set_seq(repo, "size_budget", str(limit))


def _warn_over(limit: int) -> Callable[[Path], None]:
    """A warn level on seq's size: never fails."""
    return lambda repo: _set_seq(repo, "size_limits", f"{{warn: {{size: {limit}}}}}")


def _stale(repo: Path) -> None:
    """The seq target gains a model its checked-in yaml never selected for."""
    path = _config(repo)
    path.write_text(
        path.read_text().replace(
            "models: [models/zoo/gru.pte]", "models: [models/zoo/gru.pte, models/zoo/squeezenet.pte]"
        )
    )


def _broken_build(repo: Path) -> None:
    kernel = repo / "kernels" / "portable" / "op_relu.cpp"
    kernel.write_text(kernel.read_text() + "\nthis is not C++;\n")


def _untraceable(repo: Path) -> None:
    """gru.pte replaced by bytes that are not a program: the tracer cannot run it."""
    (repo / "models" / "zoo" / "gru.pte").write_bytes(b"PK\x03\x04 not an ExecuTorch program" * 64)


def _nothing(repo: Path) -> None:
    pass


@dataclass(frozen=True)
class Row:
    base_policy: Callable[[Path], None]  # what the base commit's config says
    change: Callable[[Path], None]  # the PR
    body: str  # the PR body
    passes: bool
    failure: str = ""  # a piece of the failure line every failing mode prints
    neutral: bool = False  # passes with a warning or a finding the policy lets pass
    warning: str = ""  # a piece of the warning line every mode prints


ROWS = {
    "stale, fail_on.stale on": Row(_nothing, _stale, "", False, "the selected-operators yaml is stale"),
    "stale, fail_on.stale off": Row(_fail_on_stale_off, _stale, "", True, neutral=True),
    "over budget": Row(_budget(BUDGET_OVER), _nothing, "A refactor.", False, "over the size budget: seq on x86-64"),
    "over budget, Binary-Size": Row(
        _budget(BUDGET_OVER), _nothing, "A refactor.\n\nBinary-Size: worth it\n", True, neutral=True
    ),
    "over the warn level": Row(
        _warn_over(BUDGET_OVER), _nothing, "", True, neutral=True, warning="over the warn level: seq on x86-64"
    ),
    "build failure": Row(_nothing, _broken_build, "", False, "build failed"),
    "untraceable model": Row(_nothing, _untraceable, "", False, "could not be traced"),
    "PR raises its own budget": Row(
        _budget(BUDGET_OVER), _budget(BUDGET_RAISED), "", False, "over the size budget: seq on x86-64"
    ),
}


@dataclass
class Outcome:
    exit_code: int
    conclusion: str | None  # the check run's, where one was posted
    errors: list[str]
    comment: str = ""  # the sticky comment, where one was posted
    warnings: tuple[str, ...] = ()  # the ::warning:: lines
    annotations: tuple[str, ...] = ()  # the check run's annotation levels, where one was posted


def _errors(stdout: str) -> list[str]:
    return [line for line in stdout.splitlines() if line.startswith("::error::")]


def _outcome(proc: subprocess.CompletedProcess[str], fake: FakeGitHub, comment: str = "") -> Outcome:
    run = fake.check_runs[0] if fake.check_runs else {}
    return Outcome(
        proc.returncode,
        run.get("conclusion"),
        _errors(proc.stdout),
        comment,
        tuple(line for line in proc.stdout.splitlines() if line.startswith("::warning::")),
        tuple(a["annotation_level"] for a in run.get("output", {}).get("annotations", [])),
    )


def _env(tmp: Path, workspace: Path, event: dict, fake: FakeGitHub, inputs: dict[str, str], cache: Path) -> dict:
    env = runner_env(tmp, workspace, event, fake, inputs)
    env["SB_CACHE_DIR"] = str(cache)  # one cache for every row: the rows' worktrees and builds stay warm
    return env


def _analyze(tmp: Path, repo: Path, event: dict, body: str, read_only: bool, cache: Path) -> tuple[Outcome, Path]:
    event = json.loads(json.dumps(event))
    event["pull_request"]["body"] = body
    fake = FakeGitHub(read_only=read_only).start()
    try:
        opened_event(event["pull_request"]["base"]["sha"], event["pull_request"]["head"]["sha"], fake)
        report = tmp / "report"
        env = _env(tmp, repo, event, fake, {"post": "true", "report": str(report), "targets": TARGET}, cache)
        proc = run_action(env, repo)
        assert "Traceback" not in proc.stderr, proc.stderr
        return _outcome(proc, fake), report.with_suffix(".json")
    finally:
        fake.stop()


def _post(
    tmp: Path, default_branch: Path, artifact: Path, head_sha: str, number: int, body: str, cache: Path
) -> Outcome:
    """The workflow_run job: the default branch checked out, the artifact downloaded beside it."""
    run = next(e for e in webhook_examples("workflow_run", "completed"))
    event = json.loads(json.dumps(run))
    event["workflow_run"]["head_sha"] = head_sha
    event["workflow_run"]["pull_requests"] = [{"number": number, "head": {"sha": head_sha}}]
    fake = FakeGitHub(pr_number=number, head_sha=head_sha, pr_body=body).start()
    try:
        fake.owner, fake.repo = event["repository"]["full_name"].split("/")
        tmp.mkdir(parents=True, exist_ok=True)
        shutil.copy(artifact, tmp / "downloaded.json")
        env = _env(tmp, default_branch, event, fake, {"mode": "post", "report": str(tmp / "downloaded")}, cache)
        env["GITHUB_EVENT_NAME"] = "workflow_run"
        proc = run_action(env, default_branch)
        assert "Traceback" not in proc.stderr, proc.stderr
        assert any(("GET", path) for _, path in fake.requests if re.search(r"/pulls/\d+$", path)), fake.requests
        return _outcome(proc, fake, fake.comments[0]["body"] if fake.comments else "")
    finally:
        fake.stop()


@pytest.fixture(scope="module")
def matrix(base_repo: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """One clone for every row (a branch each), and the cache its runs share."""
    root = tmp_path_factory.mktemp("verdict")
    return clone_of(base_repo, root / "repo"), root / "cache"


@pytest.mark.parametrize("name", list(ROWS))
def test_every_mode_reaches_the_same_verdict(name: str, matrix: tuple[Path, Path], tmp_path: Path) -> None:
    row = ROWS[name]
    repo, cache = matrix
    git(repo, "checkout", "-q", "-B", f"row-{list(ROWS).index(name)}", "main")
    row.base_policy(repo)
    base_sha = commit_all(repo, "the base branch's policy")
    default_branch = tmp_path / "default-branch"  # what the workflow_run job checks out: the base
    git(repo, "worktree", "add", "-q", "--detach", str(default_branch), base_sha)
    row.change(repo)
    head_sha = commit_all(repo, "the PR")
    event = opened_event(base_sha, head_sha)

    same_repo, _ = _analyze(tmp_path / "same-repo", repo, event, row.body, read_only=False, cache=cache)
    fork, artifact = _analyze(tmp_path / "fork", repo, event, row.body, read_only=True, cache=cache)
    posted = _post(tmp_path / "post", default_branch, artifact, head_sha, event["number"], row.body, cache)

    expected_code = 0 if row.passes else None
    for mode, outcome in (("analyze, same repo", same_repo), ("analyze, fork", fork), ("post", posted)):
        assert (outcome.exit_code == 0) == row.passes, (mode, outcome)
        if expected_code is None:
            assert any(row.failure in line for line in outcome.errors), (mode, outcome.errors)
        if row.warning:
            assert [line for line in outcome.warnings if row.warning in line], (mode, outcome.warnings)
    conclusion = "failure" if not row.passes else "neutral" if row.neutral else "success"
    assert same_repo.conclusion == posted.conclusion == conclusion
    assert same_repo.annotations == posted.annotations  # the same annotations, judged the same way
    assert fork.conclusion is None  # a read-only token posts nothing
    assert same_repo.exit_code == fork.exit_code == posted.exit_code
    if name == "PR raises its own budget":
        # The report's newest field (policy_changes) reaches the comment through the artifact and post mode.
        sentence = f"this PR raises seq's x86\\-64 budget from {BUDGET_OVER:,} to {BUDGET_RAISED:,} bytes"
        assert sentence in (tmp_path / "same-repo" / "report.md").read_text()
        assert sentence in posted.comment and "1 policy change (applies once merged)" in posted.comment
    if name == "over the warn level":
        assert same_repo.annotations == ("warning",)  # a warn level: a warning annotation, nothing fails
        assert "- ⚠️ **warn**: seq on x86\\-64 is " in posted.comment and posted.comment.split("\n")[4].startswith("⚠️")
    assert git(repo, "rev-parse", "HEAD").strip() == head_sha
