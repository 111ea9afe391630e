"""Every GitHub call the bot makes is accepted by Prism serving GitHub's own
OpenAPI description (@octokit/openapi), on loopback.

GitHub marks some path parameters `x-multi-segment` (a file's path, a ref such as
heads/feature-a): they span several segments, which Prism does not implement. A
loopback forwarder in front of Prism sends such a parameter as one percent-encoded
segment, so Prism validates the call the bot really makes against its route."""

from __future__ import annotations

import json
import re
import socket
import subprocess
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from github import GithubException

from bot.github import api
from tests.conftest import REPO_ROOT

NODE = REPO_ROOT / "tests" / "node" / "node_modules"
SPEC = NODE / "@octokit" / "openapi" / "generated" / "api.github.com.json"
PRISM = NODE / "@stoplight" / "prism-cli" / "dist" / "index.js"
REPO = "octocat/Hello-World"
STARTUP_SECONDS = 240


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def prism(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    assert SPEC.is_file() and PRISM.is_file(), "run scripts/setup.sh (npm tools)"
    port = free_port()
    log = tmp_path_factory.mktemp("prism") / "prism.log"
    with log.open("w") as out:
        proc = subprocess.Popen(
            ["node", str(PRISM), "mock", "-h", "127.0.0.1", "-p", str(port), str(SPEC)], stdout=out, stderr=out
        )
    try:
        deadline = time.monotonic() + STARTUP_SECONDS
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                pytest.fail(f"prism exited: {log.read_text()[-2000:]}")
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(1)
        else:
            pytest.fail("prism did not start in time")
        forwarder = _forwarder(f"http://127.0.0.1:{port}")
        yield f"http://127.0.0.1:{forwarder.server_address[1]}"
        forwarder.shutdown()
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def multi_segment_routes() -> list[re.Pattern[str]]:
    """A pattern per route with an `x-multi-segment` parameter; its group is that parameter's text."""
    spec = json.loads(SPEC.read_text())
    shared = spec["components"]["parameters"]
    routes = []
    for template, operations in spec["paths"].items():
        names = {
            p["name"]
            for op in operations.values()
            if isinstance(op, dict)
            for ref in op.get("parameters", [])
            if (p := shared[ref["$ref"].rsplit("/", 1)[-1]] if "$ref" in ref else ref).get("x-multi-segment")
        }
        if names:
            parts = re.split(r"\{(\w+)\}", template)  # text, name, text, name, ..., text
            pattern = "".join(
                re.escape(part) if i % 2 == 0 else "(.+)" if part in names else "[^/]+" for i, part in enumerate(parts)
            )
            routes.append(re.compile(pattern))
    return routes


def _forwarder(prism: str) -> ThreadingHTTPServer:
    routes = multi_segment_routes()

    class Forward(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def _forward(self) -> None:
            url = urllib.parse.urlsplit(self.path)
            path = url.path
            for route in routes:
                match = route.fullmatch(path)
                if match:
                    value = urllib.parse.quote(urllib.parse.unquote(match.group(1)), safe="")
                    path = path[: match.start(1)] + value + path[match.end(1) :]
                    break
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0)) or None
            headers = {k: v for k, v in self.headers.items() if k.lower() not in ("host", "content-length")}
            request = urllib.request.Request(
                prism + path + (f"?{url.query}" if url.query else ""), body, headers, method=self.command
            )
            opener = urllib.request.build_opener(_NoRedirect)
            try:
                response = opener.open(request)
            except urllib.error.HTTPError as answered:
                response = answered
            data = response.read()
            self.send_response(response.status)
            for key, value in response.headers.items():
                if key.lower() not in ("transfer-encoding", "content-length", "connection"):
                    self.send_header(key, value)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_POST = do_PATCH = do_PUT = do_DELETE = _forward

    server = ThreadingHTTPServer(("127.0.0.1", 0), Forward)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: object, **kwargs: object) -> None:
        return None


def client(base: str) -> api.GitHubClient:
    return api.GitHubClient("ghs_contract", REPO, base, sleep=lambda _: None, throttle=False, backoff=0)


def example_head_sha(base: str) -> str:
    request = urllib.request.Request(f"{base}/repos/{REPO}/pulls/1347", headers={"Authorization": "token x"})
    with urllib.request.urlopen(request) as response:
        return json.load(response)["head"]["sha"]


def test_prism_rejects_a_request_the_spec_forbids(prism: str) -> None:
    """The guard for the tests below: Prism really validates what we send."""
    with pytest.raises(GithubException) as rejected:
        client(prism)._request("POST", "/issues/1347/comments", body={"text": "no body field"})
    assert rejected.value.status in (400, 422)


def test_sticky_comment_calls(prism: str) -> None:
    c = client(prism)
    head = example_head_sha(prism)
    assert c.upsert_comment(1347, "<!-- selective-build-report -->\nreport", head) == api.Outcome.CREATED
    assert c.upsert_comment(1347, "report", "0" * 40) == api.Outcome.SKIPPED_OUTDATED
    c._request("PATCH", "/issues/comments/1", body={"body": "<!-- selective-build-report -->\nedited"})


def test_check_run_and_status_calls(prism: str) -> None:
    c = client(prism)
    notes = [api.Annotation("apps/vision/selected_operators.yaml", "missing aten::mul.Scalar_out", "stale yaml")]
    assert c.report_check("a" * 40, "failure", "stale yaml", "summary", notes) in (
        api.Outcome.CREATED,
        api.Outcome.UPDATED,
    )
    fields = {"status": "completed", "conclusion": "success", "output": {"title": "t", "summary": "s"}}
    c._request("PATCH", "/check-runs/4", body=fields)
    c._request("POST", "/check-runs", body={"name": api.CHECK_NAME, "head_sha": "a" * 40, **fields})
    c._request("POST", f"/statuses/{'a' * 40}", body={"state": "failure", "description": "d", "context": "c"})


def test_comment_command_calls(prism: str) -> None:
    """Every call `/selective-build apply` and `help` make (bot/github/commands.py), as Prism accepts them."""
    c = client(prism)
    head = example_head_sha(prism)
    assert c.permission("octocat") in ("admin", "maintain", "write", "triage", "read", "none")
    assert isinstance(c.pull(1347).get("head"), dict)
    runs = c.workflow_runs(head)
    assert runs and isinstance(runs[0].get("id"), int)
    c.run_artifact(runs[0]["id"], "selective-build-report")
    assert c.artifact_location(11).startswith("https://")
    with pytest.raises(ValueError, match="not base64"):  # Prism answers with the spec's example: not real base64
        c.file_at("apps/vision/selected_operators.yaml", head)
    made = c.commit_files(REPO, "new-topic", head, {"apps/vision/selected_operators.yaml": "operators: {}\n"}, "m")
    assert made
    c.react(1, "rocket")
    c.reply(1347, "`/selective-build help` (@octocat): the commands")
