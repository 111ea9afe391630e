"""The one holder of the GitHub token: a process forked at start-up, before any PR code runs.

The Action's process builds and runs PR code (bot/pipeline.py). However well that
code is confined (bot/safety/sandbox.py), the process that runs it never holds the token:
`start` forks the poster first, which keeps the token, imports everything that talks
to GitHub, then refuses every further import. The Action's process drops the token
and, once the report is written, hands the poster plain data (the comment's
text, the check run's title and annotations) through a pipe.

So a module changed on disk while PR code ran (a kernel's start-up constructor
rewriting the installed tool, where the sandbox could not stop it) is never
executed where the token is in reach: the pipeline process has no token, and the
poster imports nothing after the fork.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.abc
import json
import os
import signal
import sys
from collections.abc import Sequence
from dataclasses import asdict, dataclass

from bot.safety.redact import Redactor

PR_SET_PDEATHSIG = 1
# What posting may import lazily (codecs looked up by name, PyGithub's classes): all loaded before the seal.
_PRELOAD = (
    "encodings.idna",
    "encodings.ascii",
    "encodings.latin_1",
    "encodings.utf_8",
    "github",
    "github.GithubException",
    "github.GithubRetry",
    "github.Auth",
    "github.Requester",
    "urllib3",
    "requests",
    "bot.github.api",
)


@dataclass(frozen=True)
class Request:
    """A post, as plain data: everything in it was redacted and escaped by the Action's process."""

    number: int
    head_sha: str
    body: str
    conclusion: str  # the check run's: success, neutral or failure (the verdict's)
    title: str
    summary: str
    annotations: tuple[tuple[str, str, str, str], ...]  # (path, message, title, level)


class _ImportSeal(importlib.abc.MetaPathFinder):
    """Once installed, no module is loaded from disk any more."""

    def find_spec(self, fullname: str, path: Sequence[str] | None, target: object = None) -> None:
        raise ImportError(f"{fullname} was not loaded before PR code ran; the token holder loads nothing now")


def seal_imports() -> None:
    sys.meta_path.insert(0, _ImportSeal())


class Poster:
    """The forked token holder. `post` sends it a Request and returns its one-line outcome."""

    def __init__(self, pid: int, to_child: int, from_child: int) -> None:
        self._pid, self._to_child, self._from_child = pid, to_child, from_child

    def _ask(self, message: dict[str, object]) -> object:
        """One message to the poster and its JSON reply (None: the poster failed or ended)."""
        try:
            with os.fdopen(os.dup(self._to_child), "wb") as out:
                out.write(json.dumps(message).encode() + b"\n")
            with os.fdopen(os.dup(self._from_child), "rb") as reply:
                line = reply.readline()
            return json.loads(line) if line.strip() else None
        except (OSError, ValueError):
            return None

    def post(self, request: Request) -> str:
        outcome = self._ask({"kind": "post", **asdict(request)})
        return outcome if isinstance(outcome, str) else "not posted: the poster process failed"

    def pull_body(self, number: int) -> str | None:
        """The PR's body from the API (None: it could not be read)."""
        body = self._ask({"kind": "body", "number": number})
        return body if isinstance(body, str) else None

    def close(self) -> None:
        for fd in (self._to_child, self._from_child):
            with contextlib.suppress(OSError):
                os.close(fd)
        with contextlib.suppress(ChildProcessError, OSError):
            os.waitpid(self._pid, 0)


def start(token: str, repository: str, api_url: str, author: str, redactor: Redactor) -> Poster:
    """Forks the token holder. The caller forgets `token` after this returns."""
    for name in _PRELOAD:
        importlib.import_module(name)
    requests_r, requests_w = os.pipe()
    replies_r, replies_w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the poster
        status = 1
        try:
            os.close(requests_w)
            os.close(replies_r)
            import ctypes

            ctypes.CDLL(None).prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
            signal.signal(signal.SIGINT, signal.SIG_IGN)
            _serve(token, repository, api_url, author, redactor, requests_r, replies_w)
            status = 0
        finally:
            os._exit(status)
    os.close(requests_r)
    os.close(replies_w)
    return Poster(pid, requests_w, replies_r)


def _serve(token: str, repository: str, api_url: str, author: str, redactor: Redactor, inbox: int, outbox: int) -> None:
    from github import GithubException

    from bot.github import api

    client = api.GitHubClient(token, repository, api_url, author=author, redactor=redactor)
    seal_imports()
    with os.fdopen(inbox, "rb") as requests, os.fdopen(outbox, "wb", buffering=0) as replies:
        for line in requests:
            message = json.loads(line)
            if message.pop("kind", None) == "body":
                try:
                    body: str | None = client.pull_body(int(message["number"]))
                except Exception:  # GitHub's answer or a broken message: the caller says it could not read it
                    body = None
                replies.write(json.dumps(None if body is None else redactor.text(body)).encode() + b"\n")
                continue
            try:
                request = Request(**message)
                annotations = [api.Annotation(*a) for a in request.annotations]
                result = api.post(
                    client,
                    request.number,
                    request.head_sha,
                    request.body,
                    request.conclusion,
                    request.title,
                    annotations,
                    summary=request.summary,
                )
                outcome = f"comment {result.comment.value}; check {result.check.value}"
            except GithubException as exc:
                # The report is already in the job summary and the artifact.
                outcome = f"not posted: GitHub answered {exc.status}"
            except Exception as exc:  # one line back to the Action, never a traceback beside the token
                outcome = f"not posted: {exc.__class__.__name__}"
            replies.write(json.dumps(redactor.text(outcome).replace("\n", " ")).encode() + b"\n")
