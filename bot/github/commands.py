"""Comment commands on a pull request: `/selective-build apply` commits the patch of the stale yamls that
the analyze run of the PR's head made; `/selective-build help` lists the commands.

Only the trusted side handles them: an `issue_comment` workflow (the action's `command` mode), which runs
the default branch's code and config with a write token and never checks out or runs the PR's code. What
it takes from the PR's side is data, checked before use:

- who: the commenter's permission on the repository as the API states it (write or above), never the
  comment's text or its author association;
- which patch: the artifact of the newest completed analyze run for the PR's current head sha, read with
  bounds; a patch whose preamble names another commit is refused;
- what: only yamls the default branch's config names (each target's yaml, and per-model yamls in its
  oplist folder). Each file, after the patch, must parse with the bounded YAML loader and pass the
  selected-operators schema, within a size cap;
- where: one commit over the PR's head on the PR's branch, through the git data API. The branch moves
  only if nobody pushed meanwhile. A fork that does not allow edits from maintainers is told so, and
  nothing is written.

Each answer is a reaction on the command's comment plus a short reply in the sticky comment, never a
new comment per command.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Protocol

from github import GithubException

from bot.config import Config
from bot.report import patch
from bot.report.escape import code, count, plain, text
from bot.safety.limits import DEFAULT_LIMITS, MIB
from bot.safety.safe_files import UnsafeFileError, zip_member
from bot.selection import oplist

PREFIX = "/selective-build"
COMMANDS = {
    "apply": "commits the patch of the stale yamls, made by the analysis of this PR's head, to its branch "
    "(collaborators with write access)",
    "help": "lists these commands",
}
# The roles (GET .../collaborators/{login}/permission) that may apply a patch: write access or above.
MAY_APPLY = ("admin", "maintain", "write")
ARTIFACT_BYTES = 64 * MIB  # the zipped report and patch; a real one is a few KiB
COMMAND_LINE = re.compile(rf"{re.escape(PREFIX)}(?:[ \t]+(\S{{1,40}}))?[ \t]*")


class Client(Protocol):
    """What the commands ask GitHub (bot/github/api.py's GitHubClient)."""

    def permission(self, login: str) -> str: ...
    def pull(self, number: int) -> dict: ...
    def workflow_runs(self, head_sha: str, event: str = ...) -> list[dict]: ...
    def run_artifact(self, run_id: int, name: str) -> dict | None: ...
    def download_artifact(self, artifact_id: int, limit: int) -> bytes: ...
    def file_at(self, path: str, ref: str) -> str | None: ...
    def commit_files(
        self, repository: str, branch: str, parent: str, files: Mapping[str, str], message: str
    ) -> str: ...


@dataclass(frozen=True)
class Request:
    """A command as the event states it."""

    number: int  # the pull request
    comment_id: int
    login: str  # who commented
    command: str  # the word after the prefix ("" when none)


@dataclass(frozen=True)
class Settings:
    """Where the analysis keeps its patch: the workflow's name, its artifact, the patch's name in it."""

    workflow: str = "selective-build"
    artifact: str = "selective-build-report"
    patch_file: str = "selective-build-report.patch"


@dataclass(frozen=True)
class Answer:
    request: Request
    reaction: str  # on the command's comment: "rocket" (applied), "+1" (answered), "confused" (refused)
    line: str  # what happened, plain text, one line (PR-side values shown with `plain`)
    done: bool  # the command did what it was asked
    more: str = ""  # trusted markdown after it (the command list)

    @property
    def reply(self) -> str:
        """The sticky comment's answer: the command, who asked, what happened; every PR-side value escaped."""
        asked = code(f"{PREFIX} {self.request.command}".rstrip(), 60)
        who = text(f"@{self.request.login}") if self.request.login else "someone"
        # Within the room the report leaves for it (comment.REPLY_ROOM), whatever the line holds.
        return f"{asked} ({who}): {text(self.line, 600)}" + (f"\n\n{self.more}" if self.more else "")


@dataclass(frozen=True)
class Writable:
    """The yaml paths a patch may write: the default branch config's targets' yamls and its oplist folder."""

    paths: frozenset[str]
    folder: str

    @classmethod
    def of(cls, config: Config) -> Writable:
        return cls(frozenset(t.yaml.as_posix() for t in config.targets), config.oplist_dir.as_posix())

    def allows(self, path: str) -> bool:
        if not patch.is_yaml_path(path):
            return False
        where = PurePosixPath(path)
        return path in self.paths or (where.parent.as_posix() == self.folder and where.suffix == ".yaml")


class Refused(Exception):
    """Why a command did nothing: one line of plain text."""


def read_request(event: Mapping[str, object]) -> Request | None:
    """The command of a new comment on a pull request (None: not one: another event, an issue, an edit, a
    comment that does not start with the prefix)."""
    issue, comment = event.get("issue"), event.get("comment")
    if event.get("action") != "created" or not isinstance(issue, dict) or not isinstance(comment, dict):
        return None
    if not issue.get("pull_request"):
        return None
    body = comment.get("body")
    first = body.strip().split("\n", 1)[0].strip() if isinstance(body, str) else ""
    match = COMMAND_LINE.fullmatch(first)
    number, comment_id, login = issue.get("number"), comment.get("id"), (comment.get("user") or {}).get("login")
    if match is None or not all(isinstance(v, int) and not isinstance(v, bool) for v in (number, comment_id)):
        return None
    return Request(int(number), int(comment_id), login if isinstance(login, str) else "", match.group(1) or "")


def help_text() -> str:
    return "\n".join(f"- `{PREFIX} {name}`: {what}" for name, what in COMMANDS.items())


def handle(request: Request, client: Client, writable: Writable, settings: Settings) -> Answer:
    try:
        if request.command == "help":
            return Answer(request, "+1", "the commands, as a comment on this pull request:", True, help_text())
        if request.command != "apply":
            raise Refused(f"{plain(request.command, 40)} is not a command")
        return Answer(request, "rocket", _apply(request, client, writable, settings), True)
    except Refused as refused:
        more = help_text() if request.command not in COMMANDS else ""
        return Answer(request, "confused", f"nothing was written: {refused}", False, more)


def _apply(request: Request, client: Client, writable: Writable, settings: Settings) -> str:
    level = client.permission(request.login) if request.login else "none"
    if level not in MAY_APPLY:
        raise Refused(f"only a collaborator with write access may apply the patch; {plain(request.login)} has {level}")
    pull = client.pull(request.number)
    head, base = pull.get("head") or {}, pull.get("base") or {}
    sha, branch = head.get("sha"), head.get("ref")
    repository = (head.get("repo") or {}).get("full_name")
    if pull.get("state") != "open":
        raise Refused("the pull request is not open")
    if not isinstance(sha, str) or not isinstance(branch, str) or not isinstance(repository, str):
        raise Refused("the pull request's branch is gone (its fork was deleted?)")
    if repository != (base.get("repo") or {}).get("full_name") and not pull.get("maintainer_can_modify"):
        raise Refused(
            "this PR comes from a fork that does not allow edits from maintainers; its author can apply the "
            "patch with the command in the report, or allow edits by maintainers and ask again"
        )
    run = next((r for r in client.workflow_runs(sha) if r.get("name") == settings.workflow), None)
    if run is None or run.get("head_sha") != sha:
        raise Refused(
            f"no finished {plain(settings.workflow)} run for the PR's head {plain(sha[:12])} yet: "
            "ask again once it has reported"
        )
    found = _patch(client, run, settings, sha)
    files = {}
    for change in found.files:
        if not writable.allows(change.path):
            raise Refused(
                f"the patch touches {plain(change.path)}, which is not a yaml the default branch's config names"
            )
    for change in found.files:
        files[change.path] = _patched(client, change, sha)
    message = (
        f"Regenerate {count(len(files), 'selected-operators yaml')}\n\n"
        f"The patch of the stale yamls from {settings.workflow} run {run.get('id')}, for {sha}, applied on "
        f"`{PREFIX} apply` by {request.login}.\n"
    )
    try:
        made = client.commit_files(repository, branch, sha, files, message)
    except GithubException as exc:  # 422: the branch moved; 403/404: the token may not push there
        raise Refused(
            f"GitHub refused the commit ({exc.status}): the branch may have moved, or this token may not push to it"
        ) from None
    shown = ", ".join(plain(path) for path in files)
    return f"committed {plain(made[:12])}, the patch of run {plain(run.get('id'))}: {shown}"


def _patch(client: Client, run: Mapping[str, object], settings: Settings, sha: str) -> patch.Patch:
    run_id = run.get("id")
    if not isinstance(run_id, int):
        raise Refused("the analysis run has no id")
    artifact = client.run_artifact(run_id, settings.artifact)
    if artifact is None or not isinstance(artifact.get("id"), int):
        raise Refused(f"run {plain(run_id)} has no {plain(settings.artifact)} artifact (expired?)")
    try:
        data = client.download_artifact(int(artifact["id"]), ARTIFACT_BYTES)
        raw = zip_member(data, settings.patch_file, patch.PATCH_BYTES)
    except (ValueError, UnsafeFileError) as exc:
        raise Refused(f"the artifact cannot be read: {plain(exc, 200)}") from None
    if raw is None:
        raise Refused(f"run {plain(run_id)} made no patch: no yaml was stale at {plain(sha[:12])}")
    try:
        found = patch.parse(raw.decode("utf-8", "surrogateescape"), "the patch")
    except patch.PatchError as exc:
        raise Refused(plain(exc, 300)) from None
    if found.head != sha:
        raise Refused(
            f"the patch was made for {plain(found.head[:12] or 'no commit')}, not the PR's head {plain(sha[:12])}"
        )
    return found


def _patched(client: Client, change: patch.FilePatch, sha: str) -> str:
    """The file's content after the patch, checked as a selected-operators yaml."""
    limit = DEFAULT_LIMITS.yaml_bytes
    try:
        after = patch.apply(change, client.file_at(change.path, sha))
        data = after.encode("utf-8")
    except patch.PatchError as exc:
        # The analysis ran on the PR merged into its base: a yaml the base changed since differs at the head.
        raise Refused(f"{plain(exc, 300)} (if the base branch changed it, merge the base in and ask again)") from None
    except (UnicodeEncodeError, ValueError) as exc:
        raise Refused(f"{plain(change.path)}: {plain(exc, 200)}") from None
    if len(data) > limit:
        raise Refused(f"{plain(change.path)} would be larger than {limit:,} bytes")
    try:
        oplist.loads(data, change.path, limit)
    except oplist.OplistError as exc:
        raise Refused(f"{plain(change.path)} would not be a valid selected-operators yaml: {plain(exc, 300)}") from None
    return after
