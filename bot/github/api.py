"""Posting the report to GitHub with PyGithub: one sticky PR comment, a check
run with annotations (or a commit status when checks are not writable).

Writes are idempotent: a failed or retried write re-reads what is there
before writing again, so a 5xx after GitHub already stored a comment never
leads to a second comment. A read-only token (a fork's) or a deleted PR
degrades to the job summary; the report is never lost.

The sticky comment is one the bot's own identity wrote and that carries the
marker: anyone can paste the marker into a comment, and that comment must
never be edited by the bot. Every body sent is redacted once more here.
"""

from __future__ import annotations

import base64
import binascii
import logging
import time
import urllib.parse
import urllib.request
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any, TypeVar

from github import Auth, Github, GithubException
from github.GithubRetry import GithubRetry

from bot.report.comment import COMMENT_LIMIT, MARKER
from bot.safety.redact import Redactor

HEAD_MARKER_PREFIX = "<!-- selective-build-head: "
CHECK_NAME = "selective-build"
# Who the Actions GITHUB_TOKEN writes as; GET /user answers 403 to that token.
ACTIONS_BOT_LOGIN = "github-actions[bot]"
DEFAULT_API_URL = "https://api.github.com"
MAX_ATTEMPTS = 4
MAX_ANNOTATIONS = 50  # per request, GitHub's limit
CHECK_SUMMARY_LIMIT = 65_000  # characters of a check run's summary (GitHub allows 65,535)
CONCLUSIONS = ("success", "neutral", "failure")  # the ones the bot posts (bot/report/verdict.py decides)
PAGE = 100
# PyGithub logs its retries to stderr itself (URLs, reasons), outside the workflow log's escaping and
# redaction; what failed is reported by the caller, in one line.
logging.getLogger("github").handlers = [logging.NullHandler()]
logging.getLogger("github").propagate = False
REPLIES_MARKER = "<!-- selective-build-replies -->"  # the sticky comment's answers to commands follow it
DOWNLOAD_SECONDS = 120
T = TypeVar("T")


class Outcome(Enum):
    CREATED = "created"
    UPDATED = "updated"
    SKIPPED_OUTDATED = "skipped: a newer commit is the PR head"
    DEGRADED = "degraded: no write access (report kept in the job summary)"


@dataclass(frozen=True)
class Annotation:
    path: str
    message: str
    title: str
    level: str = "warning"  # notice | warning | failure


@dataclass(frozen=True)
class PostResult:
    comment: Outcome
    check: Outcome
    detail: str = ""


def _transient(exc: GithubException) -> bool:
    """5xx, and the rate limits GitHub answers with 403/429."""
    if exc.status >= 500 or exc.status == 429:
        return True
    message = str(exc.data).lower() if exc.data else ""
    return exc.status == 403 and "rate limit" in message


def _no_access(exc: GithubException) -> bool:
    return exc.status in (401, 403, 404) and not _transient(exc)


class GitHubClient:
    def __init__(
        self,
        token: str,
        repository: str,
        api_url: str = DEFAULT_API_URL,
        sleep: Callable[[float], None] = time.sleep,
        throttle: bool = True,
        backoff: float = 1.0,
        author: str = "",
        redactor: Redactor | None = None,
    ) -> None:
        """`author` is the login the bot's comments are written by (learned from the API when empty).
        `sleep`, `throttle` and `backoff` exist so tests need not wait; keep the defaults otherwise."""
        # urllib3 retries only idempotent methods; POSTs are retried by
        # `_with_retries`, which re-reads state first.
        retry = GithubRetry(
            total=MAX_ATTEMPTS,
            allowed_methods={"GET", "PATCH", "PUT", "DELETE"},
            backoff_factor=backoff,
            secondary_rate_wait=60 * backoff,
        )
        kwargs: dict[str, object] = {}
        if not throttle:
            kwargs = {"seconds_between_requests": None, "seconds_between_writes": None}
        self._gh = Github(auth=Auth.Token(token), base_url=api_url.rstrip("/"), retry=retry, **kwargs)
        self._repo_name = repository
        self._sleep = sleep
        self._backoff = backoff
        self._author = author.strip()
        self._redactor = Redactor.of([token, *(redactor.secrets if redactor else ())])

    def _with_retries(self, action: Callable[[], T]) -> T:
        delay = self._backoff
        for attempt in range(MAX_ATTEMPTS):
            try:
                return action()
            except GithubException as exc:
                if not _transient(exc) or attempt == MAX_ATTEMPTS - 1:
                    raise
                self._sleep(delay)
                delay *= 2
        raise AssertionError("unreachable")

    def _request(
        self, verb: str, path: str, params: dict | None = None, body: dict | None = None, accept: str = ""
    ) -> Any:
        """One REST call by repository path. Paths (not URLs from earlier responses) keep every
        request on the configured API host, GitHub Enterprise included."""
        return self._call(verb, f"/repos/{self._repo_name}{path}", params, body, accept)

    def _call(
        self, verb: str, path: str, params: dict | None = None, body: dict | None = None, accept: str = ""
    ) -> Any:
        sent = self._redactor.data(body) if body is not None else None
        headers = {"Accept": accept} if accept else None
        _, data = self._gh.requester.requestJsonAndCheck(verb, path, params, headers, sent)
        return data

    def pull_body(self, number: int) -> str:
        """The PR's description as GitHub holds it now (its `Binary-Size:` line is part of the policy)."""
        data = self._with_retries(lambda: self._request("GET", f"/pulls/{number}"))
        body = data.get("body") if isinstance(data, dict) else None
        return body if isinstance(body, str) else ""

    def identity(self) -> str:
        """The login this token writes comments as: the configured author, else GET /user
        (personal tokens), else the Actions bot (GITHUB_TOKEN, which may not read /user)."""
        if not self._author:

            def ask() -> str:
                try:
                    login = (self._call("GET", "/user") or {}).get("login")
                except GithubException as exc:
                    if not _no_access(exc):
                        raise
                    login = None
                return login if isinstance(login, str) and login else ACTIONS_BOT_LOGIN

            self._author = self._with_retries(ask)
        return self._author

    def _find_sticky(self, pr_number: int) -> dict | None:
        """The bot's own marked comment; a marked comment by anyone else is not ours to edit."""
        author = self.identity()
        page = 1
        while True:
            comments = self._request("GET", f"/issues/{pr_number}/comments", {"per_page": PAGE, "page": page})
            for comment in comments:
                login = (comment.get("user") or {}).get("login")
                if login == author and MARKER in (comment.get("body") or ""):
                    return comment
            if len(comments) < PAGE:
                return None
            page += 1

    def upsert_comment(self, pr_number: int, body: str, head_sha: str) -> Outcome:
        """Creates or edits the one comment carrying MARKER, unless this run is for an older head."""

        def attempt() -> Outcome:
            pull = self._request("GET", f"/pulls/{pr_number}")
            if pull["head"]["sha"] != head_sha:
                return Outcome.SKIPPED_OUTDATED
            existing = self._find_sticky(pr_number)
            if existing is not None:
                self._request("PATCH", f"/issues/comments/{int(existing['id'])}", body={"body": body})
                return Outcome.UPDATED
            self._request("POST", f"/issues/{pr_number}/comments", body={"body": body})
            return Outcome.CREATED

        return self._with_retries(attempt)

    def report_check(
        self, head_sha: str, conclusion: str, title: str, summary: str, annotations: list[Annotation]
    ) -> Outcome:
        """A completed check run with annotations; a commit status if checks are not writable.
        `conclusion`: success, neutral (passes with warnings) or failure."""
        if conclusion not in CONCLUSIONS:
            raise ValueError(f"not a check-run conclusion: {conclusion!r}")
        output: dict[str, object] = {
            "title": title[:255],
            "summary": summary[:CHECK_SUMMARY_LIMIT],  # callers render to fit; this only guards
            "annotations": [
                {
                    "path": a.path,
                    "start_line": 1,
                    "end_line": 1,
                    "annotation_level": a.level,
                    "message": a.message[:64_000],
                    "title": a.title[:255],
                }
                for a in annotations[:MAX_ANNOTATIONS]
            ],
        }

        def check_run() -> Outcome:
            found = self._request("GET", f"/commits/{head_sha}/check-runs", {"check_name": CHECK_NAME})
            fields = {"status": "completed", "conclusion": conclusion, "output": output}
            for run in found.get("check_runs", []):
                self._request("PATCH", f"/check-runs/{run['id']}", body=fields)
                return Outcome.UPDATED
            self._request("POST", "/check-runs", body={"name": CHECK_NAME, "head_sha": head_sha, **fields})
            return Outcome.CREATED

        def commit_status() -> Outcome:
            # Statuses are keyed by context: posting again replaces, never duplicates.
            # A status has no neutral state: a PR that passes with warnings passes.
            state = "failure" if conclusion == "failure" else "success"
            status = {"state": state, "description": title[:140], "context": CHECK_NAME}
            self._request("POST", f"/statuses/{head_sha}", body=status)
            return Outcome.CREATED

        try:
            return self._with_retries(check_run)
        except GithubException as exc:
            if not _no_access(exc):
                raise
        return self._with_retries(commit_status)

    # --- what comment commands (bot/github/commands.py) read and write ---------------------------------

    def permission(self, login: str) -> str:
        """The user's permission on this repository (admin, maintain, write, triage, read or none), as the API
        states it: a comment's own text or association is not asked."""
        try:
            data = self._with_retries(lambda: self._request("GET", f"/collaborators/{_segment(login)}/permission"))
        except GithubException as exc:
            if exc.status == 404:  # not a collaborator
                return "none"
            raise
        role = data.get("role_name") if isinstance(data, dict) else None
        if role in ("admin", "maintain", "write", "triage", "read"):
            return role
        permission = data.get("permission") if isinstance(data, dict) else None
        return permission if isinstance(permission, str) else "none"

    def pull(self, number: int) -> dict:
        data = self._with_retries(lambda: self._request("GET", f"/pulls/{number}"))
        return data if isinstance(data, dict) else {}

    def workflow_runs(self, head_sha: str, event: str = "pull_request") -> list[dict]:
        """The completed workflow runs of this repository for the commit `head_sha`, newest first."""
        params = {"head_sha": head_sha, "event": event, "status": "completed", "per_page": PAGE}
        data = self._with_retries(lambda: self._request("GET", "/actions/runs", params))
        runs = data.get("workflow_runs") if isinstance(data, dict) else None
        return [r for r in runs or [] if isinstance(r, dict)]

    def run_artifact(self, run_id: int, name: str) -> dict | None:
        """The run's unexpired artifact called `name`."""
        data = self._with_retries(lambda: self._request("GET", f"/actions/runs/{run_id}/artifacts", {"name": name}))
        found = data.get("artifacts") if isinstance(data, dict) else None
        return next(
            (a for a in found or [] if isinstance(a, dict) and a.get("name") == name and not a.get("expired")), None
        )

    def artifact_location(self, artifact_id: int) -> str:
        """Where the artifact's zip can be fetched: GitHub answers with a redirect to short-lived storage."""
        path = f"/repos/{self._repo_name}/actions/artifacts/{artifact_id}/zip"
        headers, _ = self._with_retries(lambda: self._gh.requester.requestJsonAndCheck("GET", path))
        location = {k.lower(): v for k, v in (headers or {}).items()}.get("location", "")
        if not isinstance(location, str) or not location.startswith(("https://", "http://")):
            raise ValueError("GitHub gave no download address for the artifact")
        return location

    def download_artifact(self, artifact_id: int, limit: int) -> bytes:
        """The artifact's zip, at most `limit` bytes (a larger one is a ValueError), fetched from its storage
        without the token."""
        with urllib.request.urlopen(self.artifact_location(artifact_id), timeout=DOWNLOAD_SECONDS) as response:
            data = response.read(limit + 1)
        if len(data) > limit:
            raise ValueError(f"the artifact is larger than {limit:,} bytes")
        return data

    def file_at(self, path: str, ref: str) -> str | None:
        """The file at `path` in commit `ref` as text (None: no such file). A pull request's head commit is
        readable here whether it came from a fork or not."""

        def read() -> str | None:
            try:
                # The JSON form (a file's metadata and base64 content), not the raw file.
                contents = f"/contents/{_segment(path, keep='/')}"
                data = self._request("GET", contents, {"ref": ref}, accept="application/json")
            except GithubException as exc:
                if exc.status == 404:
                    return None
                raise
            if not isinstance(data, dict) or data.get("type") != "file":
                raise ValueError(f"{path} is not a file in {ref[:12]}")
            if data.get("encoding") != "base64":
                raise ValueError(f"{path} in {ref[:12]} is too large to read through the API")
            try:
                raw = base64.b64decode(data.get("content") or "")
            except binascii.Error:
                raise ValueError(f"{path} in {ref[:12]}: the API's content is not base64") from None
            return raw.decode("utf-8", "surrogateescape")

        return self._with_retries(read)

    def commit_files(self, repository: str, branch: str, parent: str, files: Mapping[str, str], message: str) -> str:
        """One commit on `repository`'s `branch` over `parent` (the branch's head) that sets `files` (path:
        text) and nothing else; returns its sha. The branch moves only if it still points at `parent`: a
        push in between is a 422, and nothing is overwritten."""
        repo = f"/repos/{repository}"
        commit = self._with_retries(lambda: self._call("GET", f"{repo}/git/commits/{parent}"))
        entries = [{"path": p, "mode": "100644", "type": "blob", "content": text} for p, text in files.items()]
        tree = self._call("POST", f"{repo}/git/trees", body={"base_tree": commit["tree"]["sha"], "tree": entries})
        made = self._call(
            "POST", f"{repo}/git/commits", body={"message": message, "tree": tree["sha"], "parents": [parent]}
        )
        ref = f"{repo}/git/refs/heads/{_segment(branch, keep='/')}"
        self._call("PATCH", ref, body={"sha": made["sha"], "force": False})
        return str(made["sha"])

    def react(self, comment_id: int, content: str) -> None:
        """A reaction (+1, confused, eyes, ...) on an issue or PR comment; the same one twice is one."""
        self._with_retries(
            lambda: self._request("POST", f"/issues/comments/{comment_id}/reactions", body={"content": content})
        )

    def reply(self, pr_number: int, text: str) -> Outcome:
        """`text` as the sticky comment's answer to a command, after REPLIES_MARKER in place of the answer
        before it; the sticky comment is made when the PR has none yet."""

        def attempt() -> Outcome:
            answer = f"{REPLIES_MARKER}\n\n---\n{text}"
            existing = self._find_sticky(pr_number)
            if existing is None:
                self._request("POST", f"/issues/{pr_number}/comments", body={"body": f"{MARKER}\n{answer}"})
                return Outcome.CREATED
            kept = (existing.get("body") or "").split(REPLIES_MARKER, 1)[0].rstrip("\n")
            if len(kept) + 2 + len(answer) > COMMENT_LIMIT:  # a report rendered without room for answers
                kept = f"{MARKER}\n_The report is in the check run: this comment's room went to the answer._"
            self._request("PATCH", f"/issues/comments/{int(existing['id'])}", body={"body": f"{kept}\n\n{answer}"})
            return Outcome.UPDATED

        return self._with_retries(attempt)


def _segment(value: str, keep: str = "") -> str:
    """`value` as a URL path segment (or path, keeping `keep`): a name from an event cannot change the route."""
    return urllib.parse.quote(value, safe=keep)


def post(
    client: GitHubClient,
    pr_number: int,
    head_sha: str,
    body: str,
    conclusion: str,
    title: str,
    annotations: list[Annotation],
    summary: str | None = None,
) -> PostResult:
    """Comment and check (its summary: `summary`, else the comment's body); access
    errors degrade instead of failing the job."""
    try:
        comment = client.upsert_comment(pr_number, body, head_sha)
    except GithubException as exc:
        if not _no_access(exc):
            raise
        return PostResult(Outcome.DEGRADED, Outcome.DEGRADED, f"GitHub answered {exc.status} to the comment")
    try:
        check = client.report_check(head_sha, conclusion, title, body if summary is None else summary, annotations)
    except GithubException as exc:
        if not _no_access(exc):
            raise
        check = Outcome.DEGRADED
    return PostResult(comment, check)
