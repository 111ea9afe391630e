"""Posting against an in-process fake of GitHub: what the PR ends up holding."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.errors import ExitCode
from bot.github import action, api
from bot.report import artifact, comment
from bot.report.model import PrReport, TargetReport
from bot.selection import oplist, pte, stale
from tests.conftest import ZOO_DIR
from tests.github_fake import FakeGitHub, Fault
from tests.judging import judged

HEAD = "a" * 40
TOKEN = "ghs_fake_token_for_tests_0123456789"


def real_report(head_sha: str = HEAD) -> PrReport:
    """A report over real data: mobilenet_v2's root-only yaml against its traced one."""
    root_only = oplist.from_program(pte.load(ZOO_DIR / "mobilenet_v2.pte"), "models/zoo/mobilenet_v2.pte")
    traced = oplist.load(ZOO_DIR.parent / "oplist" / "mobilenet_v2.yaml")
    diff = stale.diff(root_only, traced)
    target = TargetReport("vision-app", "apps/vision/selected_operators.yaml", True, diff, (), ())
    return PrReport("main", "b" * 40, head_sha, (target,), ("apps/vision/selected_operators.yaml",))


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    server = FakeGitHub(head_sha=HEAD).start()
    yield server
    server.stop()


def client(fake: FakeGitHub) -> api.GitHubClient:
    return api.GitHubClient(
        TOKEN, f"{fake.owner}/{fake.repo}", fake.base_url, sleep=lambda _: None, throttle=False, backoff=0
    )


def post(fake: FakeGitHub, body: str, head: str = HEAD) -> api.PostResult:
    return api.post(client(fake), fake.pr_number, head, body, "failure", "title", [])


def test_sticky_comment_is_updated_not_duplicated(fake: FakeGitHub) -> None:
    first = comment.render(real_report(), judged(real_report()))
    assert post(fake, first).comment == api.Outcome.CREATED
    second = first.replace("Selective build report", "Selective build report (2)")
    assert post(fake, second).comment == api.Outcome.UPDATED
    assert len(fake.comments) == 1
    assert fake.comments[0]["body"] == second


def test_an_older_run_does_not_overwrite_a_newer_one(fake: FakeGitHub) -> None:
    post(fake, comment.render(real_report(), judged(real_report())))
    fake.head_sha = "c" * 40  # the PR moved on; this run is for the old head
    result = post(fake, "stale text")
    assert result.comment == api.Outcome.SKIPPED_OUTDATED
    assert "stale text" not in fake.comments[0]["body"]


@pytest.mark.parametrize(
    "fault",
    [
        Fault("POST", r".*/issues/7/comments", 502, apply_first=True),  # stored, then the response was lost
        Fault("POST", r".*/issues/7/comments", 503),
        Fault("POST", r".*/issues/7/comments", 403, "You have exceeded a secondary rate limit"),
        Fault("GET", r".*/pulls/7", 500, times=2),
    ],
)
def test_transient_failures_are_retried_without_duplicate_writes(fake: FakeGitHub, fault: Fault) -> None:
    fake.faults.append(fault)
    body = comment.render(real_report(), judged(real_report()))
    result = post(fake, body)
    assert result.comment in (api.Outcome.CREATED, api.Outcome.UPDATED)
    assert len(fake.comments) == 1 and fake.comments[0]["body"] == body
    assert fault.times == 0
    assert len(fake.check_runs) == 1


def test_github_enterprise_base_url_with_a_path_prefix() -> None:
    ghe = FakeGitHub(head_sha=HEAD, prefix="/api/v3").start()
    try:
        client = api.GitHubClient(TOKEN, f"{ghe.owner}/{ghe.repo}", ghe.base_url + "/api/v3", throttle=False, backoff=0)
        result = api.post(
            client, ghe.pr_number, HEAD, comment.render(real_report(), judged(real_report())), "success", "ok", []
        )
        assert result.comment == api.Outcome.CREATED and len(ghe.comments) == 1
        assert all(path.startswith("/api/v3/") for _, path in ghe.requests)
        assert ("GET", "/api/v3/user") in ghe.requests  # who the bot is, to find its own comment
    finally:
        ghe.stop()


def test_check_run_carries_annotations_and_falls_back_to_a_status(fake: FakeGitHub) -> None:
    rep = real_report()
    notes = action.annotations(rep, judged(rep))
    api.post(client(fake), fake.pr_number, HEAD, comment.render(rep, judged(rep)), "failure", "stale yaml", notes)
    run = fake.check_runs[0]
    assert run["conclusion"] == "failure"
    assert run["output"]["annotations"][0]["path"] == "apps/vision/selected_operators.yaml"
    assert "python -m bot regenerate" in run["output"]["annotations"][0]["message"]

    fake.checks_writable = False
    result = api.post(client(fake), fake.pr_number, HEAD, comment.render(rep, judged(rep)), "neutral", "ok", notes)
    assert result.check == api.Outcome.CREATED
    assert fake.statuses[-1]["state"] == "success" and fake.statuses[-1]["context"] == api.CHECK_NAME


def action_env(fake: FakeGitHub, tmp_path: Path, event: dict) -> dict[str, str]:
    event_path = tmp_path / "event.json"
    event_path.write_text(json.dumps(event))
    for name in ("output", "summary"):
        (tmp_path / name).write_text("")
    return {
        "INPUT_GITHUB-TOKEN": TOKEN,
        "INPUT_MODE": "post",
        "INPUT_REPORT": str(tmp_path / "selective-build-report"),
        "GITHUB_EVENT_PATH": str(event_path),
        "GITHUB_REPOSITORY": f"{fake.owner}/{fake.repo}",
        "GITHUB_API_URL": fake.base_url,
        "GITHUB_OUTPUT": str(tmp_path / "output"),
        "GITHUB_STEP_SUMMARY": str(tmp_path / "summary"),
        "GITHUB_WORKSPACE": str(tmp_path),
    }


@pytest.mark.parametrize("failure", ["read_only", "deleted_pr"])
def test_fork_token_or_deleted_pr_degrades_to_the_job_summary(
    fake: FakeGitHub, tmp_path: Path, failure: str, capsys: pytest.CaptureFixture[str]
) -> None:
    setattr(fake, failure, True)
    rep = real_report()
    (tmp_path / "selective-build-report.json").write_text(artifact.dumps(rep, {"number": fake.pr_number}))
    event = {"workflow_run": {"head_sha": HEAD, "pull_requests": []}}
    # The report's stale yaml fails it, posted or not: the job says so; the summary holds the report.
    assert action.run(action_env(fake, tmp_path, event)) == ExitCode.FINDINGS
    summary = (tmp_path / "summary").read_text()
    assert "Selective build report" in summary and "degraded" in summary
    assert fake.comments == []
    out = capsys.readouterr().out
    assert f"::add-mask::{TOKEN}" in out
    assert out.count(TOKEN) == 1  # only the mask command itself
