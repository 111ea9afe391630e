"""An in-process fake of the slice of GitHub's REST API the bot uses, with
state (comments, check runs, statuses) and injectable faults, so tests can
assert what GitHub would hold after a run."""

from __future__ import annotations

import json
import re
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlparse


@dataclass
class Fault:
    method: str
    path: str  # regex matched against the request path
    status: int
    message: str = "fault"
    apply_first: bool = False  # perform the write, then fail (a 5xx after GitHub stored it)
    times: int = 1


@dataclass
class FakeGitHub:
    owner: str = "octo-org"
    repo: str = "app"
    pr_number: int = 7
    head_sha: str = "a" * 40
    pr_body: str = ""  # the PR's description as GitHub holds it (GET pulls/N)
    read_only: bool = False  # a fork's token: writes get 403
    deleted_pr: bool = False
    checks_writable: bool = True
    comments: list[dict] = field(default_factory=list)
    check_runs: list[dict] = field(default_factory=list)
    statuses: list[dict] = field(default_factory=list)
    faults: list[Fault] = field(default_factory=list)
    requests: list[tuple[str, str]] = field(default_factory=list)
    payloads: list[object] = field(default_factory=list)  # every request body, as sent
    viewer: str | None = None  # the token's user for GET /user; None: the Actions token, which gets 403
    base_url: str = ""
    prefix: str = ""  # e.g. "/api/v3", as GitHub Enterprise serves the API

    def start(self) -> FakeGitHub:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def _send(self, status: int, body: object) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _handle(self, method: str) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                payload = json.loads(self.rfile.read(length) or b"null") if length else None
                path = urlparse(self.path).path
                fake.requests.append((method, path))
                if payload is not None:
                    fake.payloads.append(payload)
                if not path.startswith(fake.prefix):
                    return self._send(404, {"message": f"outside {fake.prefix}"})
                path = path[len(fake.prefix) :]
                fault = next(
                    (f for f in fake.faults if f.times > 0 and f.method == method and re.fullmatch(f.path, path)), None
                )
                if fault is not None:
                    fault.times -= 1
                    if fault.apply_first:
                        fake.route(method, path, payload, self.path)
                    return self._send(fault.status, {"message": fault.message})
                status, body = fake.route(method, path, payload, self.path)
                self._send(status, body)

            def do_GET(self) -> None:
                self._handle("GET")

            def do_POST(self) -> None:
                self._handle("POST")

            def do_PATCH(self) -> None:
                self._handle("PATCH")

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base_url = f"http://127.0.0.1:{self._server.server_address[1]}"
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        self._server.shutdown()

    # --- routing -----------------------------------------------------------------------------

    def _repo_url(self) -> str:
        return f"{self.base_url}/repos/{self.owner}/{self.repo}"

    @property
    def author(self) -> str:
        """Who comments made with the token are written by."""
        return self.viewer or "github-actions[bot]"

    def add_comment(self, body: str, login: str) -> dict:
        """A comment someone else wrote."""
        comment = {"id": len(self.comments) + 1, "body": body, "user": {"login": login}}
        comment["url"] = f"{self._repo_url()}/issues/comments/{comment['id']}"
        self.comments.append(comment)
        return comment

    def route(self, method: str, path: str, payload: dict | None, raw: str) -> tuple[int, object]:
        repo = f"/repos/{self.owner}/{self.repo}"
        writes = method in ("POST", "PATCH")
        if path == "/user" and method == "GET":
            if self.viewer is None:
                return 403, {"message": "Resource not accessible by integration"}
            return 200, {"login": self.viewer, "id": 1, "type": "User"}
        if writes and self.read_only:
            return 403, {"message": "Resource not accessible by integration"}
        if path == repo:
            return 200, {"id": 1, "name": self.repo, "full_name": f"{self.owner}/{self.repo}", "url": self._repo_url()}
        if path in (f"{repo}/pulls/{self.pr_number}", f"{repo}/issues/{self.pr_number}"):
            if self.deleted_pr:
                return 404, {"message": "Not Found"}
            kind = "pulls" if "/pulls/" in path else "issues"
            return 200, {
                "number": self.pr_number,
                "url": f"{self._repo_url()}/{kind}/{self.pr_number}",
                "head": {"sha": self.head_sha},
                "body": self.pr_body or None,
            }
        if path == f"{repo}/issues/{self.pr_number}/comments":
            if method == "GET":
                return 200, self.comments
            return 201, self.add_comment(payload["body"], self.author)
        match = re.fullmatch(rf"{repo}/issues/comments/(\d+)", path)
        if match and method == "PATCH":
            comment = self.comments[int(match.group(1)) - 1]
            comment["body"] = payload["body"]
            return 200, comment
        match = re.fullmatch(rf"{repo}/commits/([0-9a-f]+)", path)
        if match:
            return 200, {"sha": match.group(1), "url": f"{self._repo_url()}/commits/{match.group(1)}"}
        match = re.fullmatch(rf"{repo}/commits/([0-9a-f]+)/check-runs", path)
        if match:
            if not self.checks_writable:
                return 403, {"message": "Resource not accessible by integration"}
            runs = [r for r in self.check_runs if r["head_sha"] == match.group(1)]
            return 200, {"total_count": len(runs), "check_runs": runs}
        if path == f"{repo}/check-runs" and method == "POST":
            if not self.checks_writable:
                return 403, {"message": "Resource not accessible by integration"}
            run = {**payload, "id": len(self.check_runs) + 1}
            run["url"] = f"{self._repo_url()}/check-runs/{run['id']}"
            self.check_runs.append(run)
            return 201, run
        match = re.fullmatch(rf"{repo}/check-runs/(\d+)", path)
        if match and method == "PATCH":
            run = self.check_runs[int(match.group(1)) - 1]
            run.update(payload)
            return 200, run
        match = re.fullmatch(rf"{repo}/statuses/([0-9a-f]+)", path)
        if match and method == "POST":
            self.statuses.append({**payload, "sha": match.group(1)})
            return 201, self.statuses[-1]
        return 404, {"message": f"fake has no route for {method} {raw}"}
