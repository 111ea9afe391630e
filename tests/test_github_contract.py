"""Every GitHub call the bot makes is accepted by Prism serving GitHub's own
OpenAPI description (@octokit/openapi), on loopback."""

from __future__ import annotations

import json
import socket
import subprocess
import time
import urllib.request
from collections.abc import Iterator

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
        yield f"http://127.0.0.1:{port}"
    finally:
        proc.terminate()
        proc.wait(timeout=30)


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
