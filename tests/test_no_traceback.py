"""Every code path ends in the one-line error handler: no traceback anywhere, and PR-controlled text
reaches the job log only through workflow-command escaping.

The attack: a model entry of `.selective-build.yml` that is not a program, named with a newline and a
workflow command. It used to crash the op-graph step (`_with_graph_findings` -> `pte.load`) with a
traceback that printed the name raw, so `::warning file=x::pwned` became a line of its own in the
job log."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot import cli
from bot.commands import oplist as oplist_command
from bot.errors import ExitCode
from bot.github import action
from bot.report import artifact
from tests.github_fake import FakeGitHub
from tests.scenario_repo import clone_of, commit_all, git
from tests.test_action_contract import opened_event, run_action, runner_env

EVIL_NAME = "evil\n::warning file=x::pwned"
EVIL = f"models/zoo/{EVIL_NAME}"


def assert_no_command_from_pr(*outputs: str) -> None:
    """No traceback, and every line that the runner would read as a command is one of the bot's own (its
    warnings, a warn-level size finding, carry no properties: never `::warning file=…`)."""
    for output in outputs:
        assert "Traceback" not in output, output
        for line in output.splitlines():
            stripped = line.lstrip()
            if stripped.startswith("::"):
                assert stripped.startswith(("::error::", "::warning::", "::add-mask::")), line


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    server = FakeGitHub().start()
    yield server
    server.stop()


@pytest.fixture
def evil_repo(base_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A PR that adds a model entry which is not a .pte, its file name carrying a workflow command."""
    monkeypatch.setenv("SB_CACHE_DIR", str(tmp_path / "cache"))
    repo = clone_of(base_repo, tmp_path / "workspace")
    (repo / EVIL).write_bytes(b"not an ExecuTorch program, only text\n" * 4)
    config = repo / ".selective-build.yml"
    shown = json.dumps(EVIL)  # a YAML double-quoted string: the newline as \n
    config.write_text(
        config.read_text().replace("models: [models/zoo/gru.pte]", f"models: [models/zoo/gru.pte, {shown}]")
    )
    commit_all(repo, "a model that is not a program")
    return repo


def test_a_model_that_is_not_a_program_is_a_finding_not_a_traceback(evil_repo: Path, tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "bot", "pr", "--base", "main~1", "--output", str(tmp_path / "report.md")],
        cwd=evil_repo,
        capture_output=True,
        text=True,
    )

    assert_no_command_from_pr(proc.stdout, proc.stderr)
    assert proc.returncode == ExitCode.FINDINGS, proc.stderr
    assert [line for line in proc.stderr.splitlines() if "error:" in line] == []
    rep = artifact.load(tmp_path / "report.json")[0]
    assert [f.model for f in rep.model_failures] == [EVIL]
    assert "not an ExecuTorch program" in rep.model_failures[0].message
    seq = next(t for t in rep.targets if t.name == "seq")
    assert seq.sizes[0].head is not None  # gru was still traced, built and measured


def test_the_action_logs_the_model_escaped(evil_repo: Path, tmp_path: Path, fake: FakeGitHub) -> None:
    base_sha = git(evil_repo, "rev-parse", "main~1").strip()
    head_sha = git(evil_repo, "rev-parse", "HEAD").strip()
    event = opened_event(base_sha, head_sha)
    env = runner_env(tmp_path / "runner", evil_repo, event, fake, {"post": "false", "report": str(tmp_path / "r")})

    proc = run_action(env, evil_repo)

    assert_no_command_from_pr(proc.stdout, proc.stderr)
    assert proc.returncode == ExitCode.FINDINGS, proc.stdout + proc.stderr
    errors = [line for line in proc.stdout.splitlines() if line.startswith("::error::")]
    assert any("could not be traced, first models/zoo/evil" in line and "pwned" in line for line in errors), errors


# --- the last resort: an exception nobody expected ------------------------------------------------------


def _boom(*_: object) -> int:
    raise RuntimeError(f"unexpected\n::warning file=x::pwned {EVIL_NAME}")


def test_the_cli_turns_any_exception_into_one_line(monkeypatch: pytest.MonkeyPatch, capfd) -> None:
    monkeypatch.setattr(oplist_command, "run", _boom)

    code = cli.main(["oplist", "whatever.pte"])

    out, err = capfd.readouterr()
    assert code == ExitCode.INTERNAL
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("error: internal error (RuntimeError): unexpected "), err
    assert_no_command_from_pr(out, err)


def test_the_action_turns_any_exception_into_one_escaped_line(monkeypatch: pytest.MonkeyPatch, capfd) -> None:
    monkeypatch.setattr(action, "run", _boom)

    code = action.main()

    out, err = capfd.readouterr()
    assert code == ExitCode.INTERNAL
    assert err == ""
    assert out.count("\n") == 1 and out.startswith("::error::internal error (RuntimeError): unexpected "), out
    assert_no_command_from_pr(out, err)


# --- what a runtime built from PR code writes is hostile too ------------------------------------------------

FAKE_RUNTIME = """#!/bin/sh
# A runtime that "succeeds" and leaves hostile outputs behind.
while [ $# -gt 0 ]; do
  case "$1" in --output-dir) out="$2"; shift ;; esac
  shift
done
{write}
echo "ok"
"""

HOSTILE_OUTPUTS = {
    "garbage": ("printf 'not a npy file' > \"$out/output0.npy\"", "output0.npy is not a usable .npy (ValueError)"),
    "pickle": ('cp "{pickle}" "$out/output0.npy"', "output0.npy is not a usable .npy (ValueError)"),
    "fifo": ('mkfifo "$out/output0.npy"', "output0.npy: not a regular file (a FIFO)"),
    "directory": ('mkdir "$out/output0.npy"', "output0.npy: not a regular file (a directory)"),
}


@pytest.mark.parametrize("kind", sorted(HOSTILE_OUTPUTS))
def test_hostile_runtime_outputs_end_in_one_error(kind: str, tmp_path: Path) -> None:
    """Never unpickled, never waited on (a FIFO), never a traceback: the model's one-line failure."""
    import numpy as np

    from bot.build import runner
    from bot.errors import BotError
    from tests.conftest import ZOO_DIR

    out = tmp_path / "out"  # the run's only writable (and, with its inputs, visible) folder: bot/safety/sandbox.py
    out.mkdir()
    pickled = out / "pickled.npy"
    np.save(pickled, np.array([{"a": 1}], dtype=object), allow_pickle=True)
    write, expected = HOSTILE_OUTPUTS[kind]
    fake_runtime = tmp_path / "executor_runner"
    fake_runtime.write_text(FAKE_RUNTIME.format(write=write.format(pickle=pickled)))
    fake_runtime.chmod(0o755)

    with pytest.raises(BotError) as caught:
        runner.run_model(fake_runtime, ZOO_DIR / "gru.pte", [], out)

    assert caught.value.exit_code == ExitCode.RUNTIME
    assert caught.value.message == f"gru.pte: {expected}"


def test_stray_runtime_files_are_not_outputs(tmp_path: Path) -> None:
    """Only output<N>.npy are outputs, in numeric order; outputX.npy is no reason to crash."""
    import numpy as np

    from bot.build import runner
    from tests.conftest import ZOO_DIR

    out = tmp_path / "out"  # the run's only writable (and, with its inputs, visible) folder: bot/safety/sandbox.py
    out.mkdir()
    for index in (0, 1, 10):
        np.save(out / f"v{index}.npy", np.full(2, index, dtype=np.float32))
    write = "\n".join(f'cp "{out}/v{i}.npy" "$out/output{i}.npy"' for i in (0, 1, 10))
    fake_runtime = tmp_path / "executor_runner"
    fake_runtime.write_text(FAKE_RUNTIME.format(write=write + '\ntouch "$out/outputX.npy"'))
    fake_runtime.chmod(0o755)

    result = runner.run_model(fake_runtime, ZOO_DIR / "gru.pte", [], out)

    assert [int(out[0]) for out in result.outputs] == [0, 1, 10]


def test_a_broken_install_still_ends_in_one_line(tmp_path: Path) -> None:
    """A module missing from the bot's own package breaks the command and the error handler's own
    imports (escaping lives beside the report code): the last resort still prints one inert line."""
    from tests.conftest import REPO_ROOT

    shutil.copytree(REPO_ROOT / "bot", tmp_path / "bot", ignore=shutil.ignore_patterns("__pycache__"))
    # Broken, not deleted: an editable install's finder would serve a deleted module from the source tree.
    (tmp_path / "bot" / "safety" / "bounded_walk.py").write_text(
        "raise ImportError('this install of bounded_walk is broken')\n"
    )

    proc = subprocess.run(
        [sys.executable, "-m", "bot", "regenerate", "--check"], cwd=tmp_path, capture_output=True, text=True
    )

    assert proc.returncode == ExitCode.INTERNAL, proc.stderr
    assert proc.stdout == ""
    assert proc.stderr.count("\n") == 1, proc.stderr
    assert proc.stderr.startswith("error: internal error (ImportError): this install of bounded_walk is broken")
