"""The image as users get it, without a container engine: this machine is the image's base
(the Dockerfile's pinned apt packages are checked here), the Dockerfile's own install runs
into a fresh venv (tests/installed_tool.py), and the consumer fixture goes through the
image's entrypoint as the runner starts it: INPUT_* variables, a real webhook payload from
@octokit/webhooks-examples, and Prism serving GitHub's OpenAPI description on loopback."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from types import SimpleNamespace

import pytest

from bot.report.comment import MARKER
from tests.installed_tool import (
    Installed,
    app_repo,
    apt_packages,
    copy_from_the_zoo,
    dockerfile_instructions,
    install_commands,
    installed_tool,
    list_after,
)
from tests.scenario_repo import commit_all, git
from tests.test_action_contract import TOKEN, opened_event, outputs, runner_env
from tests.test_github_contract import example_head_sha, prism

__all__ = ["prism"]  # the module-scoped Prism fixture, shared with the GitHub contract tests


def test_this_machine_has_the_dockerfiles_pinned_packages() -> None:
    pinned = apt_packages()
    assert {"g++", "binutils", "git", "g++-aarch64-linux-gnu", "qemu-user", "gcc-arm-none-eabi"} <= set(pinned)
    for package, version in pinned.items():
        assert version, f"{package} is not pinned"
        found = subprocess.run(["dpkg-query", "-W", "-f", "${Version}", package], capture_output=True, text=True)
        assert found.stdout == version, f"{package}: the Dockerfile pins {version}, this machine has {found.stdout!r}"


def test_the_image_installs_the_package_and_runs_its_console_script() -> None:
    assert install_commands() == [["pip", "install", "--no-cache-dir", "."]]
    entry = dict(dockerfile_instructions())
    assert json.loads(entry["ENTRYPOINT"]) == ["selective-build"] and json.loads(entry["CMD"]) == ["action"]


def entrypoint() -> list[str]:
    entry = dict(dockerfile_instructions())
    return [*json.loads(entry["ENTRYPOINT"]), *json.loads(entry["CMD"])]


def test_the_consumer_fixture_through_the_images_entrypoint(
    prism: str, tmp_path_factory: pytest.TempPathFactory, tmp_path: Path
) -> None:
    tool: Installed = installed_tool(tmp_path_factory)
    workspace = app_repo(tmp_path / "workspace")
    base_sha = git(workspace, "rev-parse", "HEAD").strip()
    # the PR: camera-app ships a new model, and nobody ran regenerate
    copy_from_the_zoo(workspace, "zoo/mha_block")
    list_after(workspace, "models/squeezenet.pte", "models/mha_block.pte")
    commit_all(workspace, "camera-app ships mha_block")

    # Prism answers GET /pulls/N with its example; a run for that head posts, any other is outdated
    head_sha = example_head_sha(prism)
    event = opened_event(base_sha, head_sha)
    api = SimpleNamespace(owner="octocat", repo="Hello-World", base_url=prism)
    env = runner_env(tmp_path / "runner", workspace, event, api, {"post": "true", "report": str(tmp_path / "report")})
    env = {**env, **tool.env, "HOME": env["HOME"], "SB_CACHE_DIR": str(tool.cache)}
    env.pop("PYTHONPATH", None)  # the image has no checkout of the tool: only the installed package

    proc = subprocess.run(entrypoint(), cwd=workspace, env=env, capture_output=True, text=True)
    log = proc.stdout + proc.stderr
    (tmp_path / "action.log").write_text(log)  # kept with the test's temporary files
    assert proc.returncode == 1, log  # a stale yaml fails the job (fail_on.stale)
    assert "::error::the selected-operators yaml is stale" in proc.stdout, log
    assert re.search(r"comment (created|updated); check (created|updated)", proc.stdout), log
    assert log.count(TOKEN) == 1  # only in the ::add-mask:: line

    out = outputs(tmp_path / "runner" / "github_output")
    assert out["stale"] == "true"
    report = Path(out["report"]).read_text()
    assert report.startswith(MARKER) and "apps/camera/selected_operators.yaml" in report
    artifact = json.loads((tmp_path / "report.json").read_text())
    assert artifact["pr"] == {"number": event["number"], "head_sha": head_sha}
    assert artifact["report"]["runtime"].startswith("bundled runtime of selective-build ")
    summary = (tmp_path / "runner" / "step_summary").read_text()
    assert "apps/camera/selected_operators.yaml" in summary
