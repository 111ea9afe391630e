"""An in-process fake of the slice of GitHub's REST API the bot uses, with
state (comments, check runs, statuses) and injectable faults, so tests can
assert what GitHub would hold after a run."""

from __future__ import annotations

import base64
import hashlib
import json
import re
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, unquote, urlparse


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
    # For comment commands (bot/github/commands.py): who may do what, the PR's branch, the analyze runs and
    # their artifacts, the files at each commit, and what the git data API made.
    permissions: dict[str, str] = field(default_factory=dict)  # login: role (absent: not a collaborator)
    pr_state: str = "open"
    head_ref: str = "feature/add-model"
    head_repo: str = ""  # "owner/name" of the PR's branch ("": this repository; None-like fork gone: "-")
    maintainer_can_modify: bool = False
    runs: list[dict] = field(default_factory=list)
    artifacts: dict[int, list[dict]] = field(default_factory=dict)  # run id: its artifacts
    archives: dict[int, bytes] = field(default_factory=dict)  # artifact id: its zip
    files: dict[tuple[str, str], str] = field(default_factory=dict)  # (commit, path): text
    trees: dict[str, dict] = field(default_factory=dict)
    commits: dict[str, dict] = field(default_factory=dict)  # made through the git data API
    refs: dict[str, str] = field(default_factory=dict)  # "owner/name:branch": sha
    reactions: list[dict] = field(default_factory=list)
    base_url: str = ""
    prefix: str = ""  # e.g. "/api/v3", as GitHub Enterprise serves the API

    def start(self) -> FakeGitHub:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def _send(self, status: int, body: object) -> None:
                data = body if isinstance(body, bytes) else json.dumps(body).encode()
                self.send_response(status)
                if status == 302 and isinstance(body, dict):
                    self.send_header("Location", str(body["location"]))
                self.send_header(
                    "Content-Type", "application/octet-stream" if isinstance(body, bytes) else "application/json"
                )
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
            own = f"{self.owner}/{self.repo}"
            head_repo = None if self.head_repo == "-" else {"full_name": self.head_repo or own}
            return 200, {
                "number": self.pr_number,
                "url": f"{self._repo_url()}/{kind}/{self.pr_number}",
                "state": self.pr_state,
                "head": {"sha": self.head_sha, "ref": self.head_ref, "repo": head_repo},
                "base": {"ref": "main", "repo": {"full_name": own}},
                "maintainer_can_modify": self.maintainer_can_modify,
                "body": self.pr_body or None,
            }
        commanded = self._command_route(method, path, payload, repo, raw)
        if commanded is not None:
            return commanded
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

    def _command_route(
        self, method: str, path: str, payload: dict | None, repo: str, raw: str
    ) -> tuple[int, object] | None:
        """What comment commands call: permissions, runs and artifacts, contents, the git data API, reactions."""
        match = re.fullmatch(rf"{repo}/collaborators/([^/]+)/permission", path)
        if match:
            role = self.permissions.get(match.group(1))
            if role is None:
                return 404, {"message": "Not Found"}
            permission = {"maintain": "write", "triage": "read"}.get(role, role)
            return 200, {"permission": permission, "role_name": role, "user": {"login": match.group(1)}}
        if path == f"{repo}/actions/runs":
            return 200, {"total_count": len(self.runs), "workflow_runs": self.runs}
        match = re.fullmatch(rf"{repo}/actions/runs/(\d+)/artifacts", path)
        if match:
            found = self.artifacts.get(int(match.group(1)), [])
            return 200, {"total_count": len(found), "artifacts": found}
        match = re.fullmatch(rf"{repo}/actions/artifacts/(\d+)/zip", path)
        if match:
            return 302, {"location": f"{self.base_url}/storage/{match.group(1)}"}
        match = re.fullmatch(r"/storage/(\d+)", path)
        if match:
            return 200, self.archives[int(match.group(1))]
        match = re.fullmatch(rf"{repo}/contents/(.+)", path)
        if match and method == "GET":
            ref = parse_qs(urlparse(raw).query).get("ref", [""])[0]
            text = self.files.get((ref, unquote(match.group(1))))
            if text is None:
                return 404, {"message": "Not Found"}
            content = base64.b64encode(text.encode("utf-8", "surrogateescape")).decode()
            return 200, {"type": "file", "encoding": "base64", "content": content, "path": unquote(match.group(1))}
        match = re.fullmatch(r"/repos/([^/]+/[^/]+)/git/(commits|trees|refs/heads)(?:/(.+))?", path)
        if match is None:
            match = re.fullmatch(rf"{repo}/issues/comments/(\d+)/reactions", path)
            if match and method == "POST":
                self.reactions.append({"comment": int(match.group(1)), **payload})
                return 201, {"id": len(self.reactions), "content": payload["content"]}
            return None
        full, kind, rest = match.groups()
        if kind == "commits" and method == "GET":
            made = self.commits.get(rest)
            return 200, made or {"sha": rest, "tree": {"sha": f"tree-of-{rest}"}, "parents": []}
        if kind == "trees" and method == "POST":
            sha = hashlib.sha1(json.dumps(payload, sort_keys=True).encode()).hexdigest()
            self.trees[sha] = {"repo": full, **payload}
            return 201, {"sha": sha, "tree": payload["tree"]}
        if kind == "commits" and method == "POST":
            sha = hashlib.sha1(json.dumps(payload, sort_keys=True).encode()).hexdigest()
            self.commits[sha] = {"repo": full, "sha": sha, **payload, "tree": {"sha": payload["tree"]}}
            return 201, self.commits[sha]
        if kind == "refs/heads" and method == "PATCH":
            key = f"{full}:{rest}"
            current = self.refs.get(key)
            parent = self.commits[payload["sha"]]["parents"][0]
            if current is None or (current != parent and not payload.get("force")):
                return 422, {"message": "Update is not a fast forward"}
            self.refs[key] = payload["sha"]
            return 200, {"ref": f"refs/heads/{rest}", "object": {"sha": payload["sha"]}}
        return None

    def committed(self) -> dict[str, str]:
        """The files the one commit made through the git data API sets (path: text)."""
        (made,) = self.commits.values()
        return {e["path"]: e["content"] for e in self.trees[made["tree"]["sha"]]["tree"]}
