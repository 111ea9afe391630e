"""`/selective-build apply` and `/selective-build help` (bot/github/commands.py), run as the runner runs the
action's command mode: a real issue_comment payload from @octokit/webhooks-examples, this repository's
own config as the default branch's, and GitHub played by the in-process fake, which keeps what the git
data API made. The patch is a real one: a root-only yaml of a zoo model regenerated into its traced one."""

from __future__ import annotations

import copy
import html
import io
import re
import subprocess
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.errors import ExitCode
from bot.github import commands
from bot.report import comment, patch
from bot.report.comment import MARKER
from bot.selection import oplist, pte
from tests.conftest import REPO_ROOT, ZOO_DIR
from tests.github_fake import FakeGitHub
from tests.test_action_contract import TOKEN, run_action, runner_env, webhook_examples

HEAD, OLDER = "c" * 40, "d" * 40
RUN_ID, ARTIFACT_ID = 30433642, 11
TARGET_YAML = "apps/vision/selected_operators.yaml"  # a target of this repo's .selective-build.yml
MODEL_YAML = "models/oplist/mobilenet_v2.yaml"  # in its oplist_dir
MAINTAINER, READER = "Codertocat", "a-reader"


def root_only() -> str:
    """mobilenet_v2's yaml as its program alone lists it: stale against its trace."""
    selection = oplist.from_program(pte.load(ZOO_DIR / "mobilenet_v2.pte"), "models/zoo/mobilenet_v2.pte")
    return oplist.dumps(selection)


TRACED = (REPO_ROOT / MODEL_YAML).read_text()


def made_patch(files: dict[str, tuple[str | None, str]], head: str = HEAD) -> str:
    return patch.join([patch.file_diff(p, before, after) for p, (before, after) in files.items()], "b" * 40, head)


def archive(members: dict[str, bytes]) -> bytes:
    data = io.BytesIO()
    with zipfile.ZipFile(data, "w", zipfile.ZIP_DEFLATED) as z:
        for name, content in members.items():
            z.writestr(name, content)
    return data.getvalue()


def serve(
    fake: FakeGitHub,
    text: str,
    head: str = HEAD,
    run_head: str = HEAD,
    files: dict[str, str] | None = None,
) -> None:
    """The PR at `head` holding `files` (path: text; by default the vision target's stale root-only yaml),
    with the analyze run for `run_head` whose artifact holds the patch `text`."""
    fake.head_sha = head
    fake.permissions = {MAINTAINER: "maintain", READER: "read"}
    for path, content in (files if files is not None else {TARGET_YAML: root_only()}).items():
        fake.files[(head, path)] = content
    fake.refs[f"{fake.owner}/{fake.repo}:{fake.head_ref}"] = head
    fake.runs = [{"id": RUN_ID, "name": "selective-build", "head_sha": run_head, "conclusion": "failure"}]
    fake.artifacts = {RUN_ID: [{"id": ARTIFACT_ID, "name": "selective-build-report", "expired": False}]}
    members = {"selective-build-report.json": b"{}", "selective-build-report.patch": text.encode()}
    fake.archives = {ARTIFACT_ID: archive(members)}


def started(fake: FakeGitHub) -> FakeGitHub:
    """The fake, answering for the repository and PR of the webhook example."""
    event = comment_event("")
    fake.owner, fake.repo = event["repository"]["full_name"].split("/")
    fake.pr_number = event["issue"]["number"]
    return fake.start()


def comment_event(body: str, login: str = MAINTAINER, on_pr: bool = True) -> dict:
    event = copy.deepcopy(webhook_examples("issue_comment", "created")[0])
    event["comment"]["body"], event["comment"]["user"]["login"] = body, login
    if on_pr:
        event["issue"]["pull_request"] = {"url": f"https://api.github.com/repos/x/y/pulls/{event['issue']['number']}"}
    return event


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    server = started(FakeGitHub())
    yield server
    server.stop()


def command(
    tmp_path: Path,
    fake: FakeGitHub,
    body: str,
    login: str = MAINTAINER,
    on_pr: bool = True,
    workspace: Path = REPO_ROOT,
) -> subprocess.CompletedProcess[str]:
    """The action in command mode for a comment `body`; `workspace` is the default branch's checkout."""
    env = runner_env(tmp_path, workspace, comment_event(body, login, on_pr), fake, {"mode": "command"})
    env["GITHUB_EVENT_NAME"] = "issue_comment"
    return run_action(env, tmp_path)


def answer(fake: FakeGitHub) -> str:
    """The sticky comment as text: its markdown escapes and entities read as what they render."""
    (sticky,) = [c for c in fake.comments if MARKER in c["body"]]
    return html.unescape(re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", sticky["body"]))


def nothing_written(fake: FakeGitHub) -> bool:
    return not fake.trees and not fake.commits and fake.refs == {f"{fake.owner}/{fake.repo}:{fake.head_ref}": HEAD}


def real_patch(head: str = HEAD) -> str:
    return made_patch({TARGET_YAML: (root_only(), TRACED), MODEL_YAML: (None, TRACED)}, head)


def test_a_maintainer_applies_the_patch_as_one_commit_touching_only_the_yamls(tmp_path: Path, fake: FakeGitHub) -> None:
    serve(fake, real_patch())
    proc = command(tmp_path, fake, "/selective-build apply")

    assert proc.returncode == ExitCode.OK, proc.stdout + proc.stderr
    (made,) = fake.commits.values()
    assert made["parents"] == [HEAD] and made["repo"] == f"{fake.owner}/{fake.repo}"
    assert fake.refs[f"{fake.owner}/{fake.repo}:{fake.head_ref}"] == made["sha"]
    assert fake.committed() == {TARGET_YAML: TRACED, MODEL_YAML: TRACED}
    assert fake.trees[made["tree"]["sha"]]["base_tree"] == f"tree-of-{HEAD}"  # every other file as it was
    assert f"run {RUN_ID}" in made["message"] and HEAD in made["message"]
    assert fake.reactions == [{"comment": comment_event("")["comment"]["id"], "content": "rocket"}]
    assert "committed" in answer(fake) and made["sha"][:12] in answer(fake)
    assert TOKEN not in proc.stdout.replace(f"::add-mask::{TOKEN}\n", "") + proc.stderr
    assert proc.stderr == ""


def test_a_read_only_commenter_is_refused_and_nothing_is_written(tmp_path: Path, fake: FakeGitHub) -> None:
    serve(fake, real_patch())
    for login in (READER, "not-a-collaborator"):
        proc = command(tmp_path, fake, "/selective-build apply", login)
        assert proc.returncode == ExitCode.FINDINGS
        assert "only a collaborator with write access" in answer(fake)
        assert nothing_written(fake)
        assert ("GET", f"/repos/{fake.owner}/{fake.repo}/actions/runs") not in fake.requests  # asked nothing more
    assert {r["content"] for r in fake.reactions} == {"confused"}


def test_a_patch_for_an_older_head_is_refused(tmp_path: Path, fake: FakeGitHub) -> None:
    # The newest analysis is still of the older head: there is no run for the PR's head yet.
    serve(fake, real_patch(OLDER), run_head=OLDER)
    assert command(tmp_path, fake, "/selective-build apply").returncode == ExitCode.FINDINGS
    assert "no finished" in answer(fake) and nothing_written(fake)
    # A run for the head whose patch says it was made for another commit.
    serve(fake, real_patch(OLDER))
    assert command(tmp_path, fake, "/selective-build apply").returncode == ExitCode.FINDINGS
    assert "the patch was made for" in answer(fake) and nothing_written(fake)


BOMB = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{c}: &{c} [*{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}]\n" for p, c in zip("abcdefgh", "bcdefghi", strict=True)
)


@pytest.mark.parametrize(
    ("files", "said"),
    [
        ({".github/workflows/x.yml": (None, "on: push\n")}, "not a yaml the default branch's config names"),
        ({"apps/vision/other.yaml": (None, TRACED)}, "not a yaml the default branch's config names"),
        ({"models/oplist/../../x.yaml": (None, TRACED)}, "not a yaml the default branch's config names"),
        ({TARGET_YAML: (None, BOMB)}, "would not be a valid selected-operators yaml"),
        ({TARGET_YAML: (None, "operators: [unclosed\n")}, "would not be a valid selected-operators yaml"),
        ({TARGET_YAML: (None, "operators: 5\n")}, "would not be a valid selected-operators yaml"),
        ({TARGET_YAML: ("somebody: else\n", TRACED)}, "does not apply"),
    ],
    ids=["workflow", "unconfigured", "dotdot", "yaml-bomb", "invalid-yaml", "not-the-schema", "stale-context"],
)
def test_a_hostile_patch_is_refused_in_one_line(
    tmp_path: Path, fake: FakeGitHub, files: dict[str, tuple[str | None, str]], said: str
) -> None:
    # Each file is "new" unless it says what it replaces; the fake holds the real root-only target yaml.
    files = {p: (root_only() if b is None and p == TARGET_YAML else b, a) for p, (b, a) in files.items()}
    serve(fake, made_patch(files))
    proc = command(tmp_path, fake, "/selective-build apply")
    assert proc.returncode == ExitCode.FINDINGS
    reply = answer(fake).split("---\n", 1)[1]
    assert said in reply and "\n" not in reply.strip() and "&a" not in reply
    assert nothing_written(fake)
    assert len([line for line in proc.stdout.splitlines() if line.startswith("::error")]) == 1


def test_an_artifact_that_is_not_a_bounded_zip_is_refused(tmp_path: Path, fake: FakeGitHub) -> None:
    serve(fake, real_patch())
    fake.archives[ARTIFACT_ID] = b"PK\x03\x04 not really a zip"
    assert command(tmp_path, fake, "/selective-build apply").returncode == ExitCode.FINDINGS
    assert "the artifact cannot be read" in answer(fake) and nothing_written(fake)
    # A member far larger than a patch may be (it compresses to almost nothing).
    fake.archives[ARTIFACT_ID] = archive({"selective-build-report.patch": b"\n" * (patch.PATCH_BYTES + 1)})
    assert command(tmp_path, fake, "/selective-build apply").returncode == ExitCode.FINDINGS
    assert "over the limit" in answer(fake) and nothing_written(fake)


def test_a_fork_that_does_not_allow_maintainer_edits_is_explained(tmp_path: Path, fake: FakeGitHub) -> None:
    serve(fake, real_patch())
    fake.head_repo = "contributor/Hello-World"
    proc = command(tmp_path, fake, "/selective-build apply")
    assert proc.returncode == ExitCode.FINDINGS
    assert "does not allow edits from maintainers" in answer(fake) and nothing_written(fake)

    fake.maintainer_can_modify = True  # then the commit goes to the fork's branch
    fake.refs[f"contributor/Hello-World:{fake.head_ref}"] = HEAD
    assert command(tmp_path, fake, "/selective-build apply").returncode == ExitCode.OK
    (made,) = fake.commits.values()
    assert made["repo"] == "contributor/Hello-World"
    assert fake.refs[f"contributor/Hello-World:{fake.head_ref}"] == made["sha"]


def test_a_branch_that_moved_meanwhile_is_not_overwritten(tmp_path: Path, fake: FakeGitHub) -> None:
    serve(fake, real_patch())
    fake.refs[f"{fake.owner}/{fake.repo}:{fake.head_ref}"] = OLDER  # pushed after the PR was read
    assert command(tmp_path, fake, "/selective-build apply").returncode == ExitCode.FINDINGS
    assert "GitHub refused the commit (422)" in answer(fake)
    assert fake.refs[f"{fake.owner}/{fake.repo}:{fake.head_ref}"] == OLDER


def test_help_answers_in_the_sticky_comment_and_an_edit_keeps_the_report(tmp_path: Path, fake: FakeGitHub) -> None:
    fake.add_comment(f"{MARKER}\n## Selective build report\n", "github-actions[bot]")
    assert command(tmp_path, fake, "/selective-build help").returncode == ExitCode.OK
    assert command(tmp_path, fake, "/selective-build   help  ").returncode == ExitCode.OK
    assert len(fake.comments) == 1  # no comment per command
    body = fake.comments[0]["body"]
    assert body.startswith(f"{MARKER}\n## Selective build report") and body.count("/selective-build apply") == 1
    assert [r["content"] for r in fake.reactions] == ["+1", "+1"]
    assert command(tmp_path, fake, "/selective-build frobnicate").returncode == ExitCode.FINDINGS
    assert "is not a command" in fake.comments[0]["body"] and fake.reactions[-1]["content"] == "confused"


@pytest.mark.parametrize(
    ("body", "on_pr"),
    [("You are totally right!", True), ("/selective-build apply", False), ("please /selective-build apply", True)],
    ids=["a-remark", "on-an-issue", "not-at-the-start"],
)
def test_anything_else_is_left_alone(tmp_path: Path, fake: FakeGitHub, body: str, on_pr: bool) -> None:
    proc = command(tmp_path, fake, body, on_pr=on_pr)
    assert proc.returncode == ExitCode.OK, proc.stdout + proc.stderr
    assert fake.requests == []


def test_the_request_names_the_pull_request_from_the_event() -> None:
    event = comment_event("/selective-build apply\nthanks")
    request = commands.read_request(event)
    assert request == commands.Request(event["issue"]["number"], event["comment"]["id"], MAINTAINER, "apply")
    assert commands.read_request({**event, "action": "edited"}) is None


def test_the_answer_fits_beside_a_report_of_the_largest_size(tmp_path: Path, fake: FakeGitHub) -> None:
    """A report is rendered to leave room for an answer; the longest answer (an unknown command, whose
    line is capped, plus the command list) fits in it."""
    fake.add_comment(f"{MARKER}\n" + "r" * (comment.REPORT_LIMIT - len(MARKER) - 1), "github-actions[bot]")
    assert command(tmp_path, fake, "/selective-build " + "x" * 40).returncode == ExitCode.FINDINGS
    body = fake.comments[0]["body"]
    assert len(body) <= comment.COMMENT_LIMIT and body.count("r" * 1000) and "is not a command" in answer(fake)
