"""Bad input: one clear line, a distinct non-zero exit, no traceback, nothing half-written.
README's "Bad input" table lists these cases; each row is a test here."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from bot import cli, oplist
from bot.errors import ExitCode
from tests.conftest import REPO_ROOT, ZOO_DIR
from tests.scenario_repo import clone_of, commit_all


def bot(*args: str, cwd: Path = REPO_ROOT) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT), "COLUMNS": "60"}  # narrow: wrapping must not split the line
    return subprocess.run([sys.executable, "-m", "bot", *args], cwd=cwd, env=env, capture_output=True, text=True)


def assert_one_line(proc: subprocess.CompletedProcess[str], code: ExitCode, message: str) -> None:
    assert proc.returncode == code, (proc.returncode, proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), proc.stderr
    assert message in lines[0], lines[0]


def config_dir(tmp_path: Path, text: str | None) -> Path:
    if text is not None:
        (tmp_path / ".selective-build.yml").write_text(text)
    return tmp_path


@pytest.mark.parametrize(
    ("config", "message"),
    [
        (None, ".selective-build.yml: no config file"),
        ("targets: {app: {yaml: y.yaml, models: [\n", "not valid YAML at line"),
        ("targets: {app: {yaml: y.yaml, models: [3]}}", "targets.app.models[0]: 3 is not valid"),
        ("targets: {app: {models: [m.pte]}}", "targets.app: 'yaml' is a required property"),
        ("targets: {app: {yaml: y.yaml, models: [missing.pte]}}", "targets.app: missing.pte does not exist"),
    ],
)
def test_missing_or_malformed_config(config: str | None, message: str, tmp_path: Path) -> None:
    assert_one_line(bot("regenerate", "--root", str(config_dir(tmp_path, config))), ExitCode.CONFIG, message)


def test_yaml_naming_unknown_ops(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    oplist.dump(oplist.from_root_ops(["aten::relu.out", "aten::frobnicate.out"], "test"), bad)
    assert_one_line(
        bot("build", "--ops-yaml", str(bad)), ExitCode.BAD_INPUT, "no kernel library implements aten::frobnicate.out"
    )


def test_malformed_yaml(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("operators: {aten::relu.out: [\n")
    assert_one_line(bot("aggregate", str(bad)), ExitCode.BAD_INPUT, "not valid YAML at line")


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (("oplist", "models/zoo/absent.pte"), ExitCode.BAD_INPUT, "absent.pte: no such file"),
        (("oplist", "README.md"), ExitCode.BAD_INPUT, "not an ExecuTorch program"),
        (("run", "models/zoo/absent.pte"), ExitCode.BAD_INPUT, "model file not found"),
        (("run", "README.md"), ExitCode.RUNTIME, "not an ExecuTorch program"),
        (("oplist", "--trace", "models/zoo/gru.pte", "--input", "README.md"), ExitCode.RUNTIME, "not a usable .npy"),
    ],
)
def test_missing_or_invalid_model(args: tuple[str, ...], code: ExitCode, message: str) -> None:
    assert_one_line(bot(*args), code, message)


def test_git_base_that_cannot_be_found() -> None:
    assert_one_line(bot("pr", "--base", "no-such-branch"), ExitCode.GIT, "git base 'no-such-branch' cannot be found")


def test_compiler_failure_shows_the_log_tail_in_the_report(base_repo: Path, tmp_path: Path) -> None:
    repo = clone_of(base_repo, tmp_path / "repo")
    kernel = repo / "kernels" / "portable" / "op_relu.cpp"
    kernel.write_text(
        kernel.read_text().replace("return x > T(0) ? x : T(0);", "return x > T(0) ? x : undeclared_thing;")
    )
    commit_all(repo, "break relu")
    report = tmp_path / "report.md"
    env_cache = {"SB_CACHE_DIR": str(tmp_path / "cache")}
    os.environ.update(env_cache)
    try:
        proc = bot("pr", "--base", "main~1", "--output", str(report), cwd=repo)
    finally:
        for key in env_cache:
            os.environ.pop(key)
    assert_one_line(proc, ExitCode.BUILD, "failed:")
    assert "undeclared_thing" in proc.stderr
    text = report.read_text()
    assert "Build failures" in text and "build log (tail)" in text and "undeclared_thing" in text


def test_disk_full_while_writing_yaml_leaves_the_old_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "merged.yaml"
    target.write_text("previous content\n")
    # Every temporary file the atomic writer opens is /dev/full: writes fail with ENOSPC.
    import tempfile

    def full_device(dir: str, prefix: str, suffix: str) -> tuple[int, str]:
        return os.open("/dev/full", os.O_WRONLY), os.path.join(dir, f"{prefix}x{suffix}")

    monkeypatch.setattr(tempfile, "mkstemp", full_device)
    source = REPO_ROOT / "models" / "oplist" / "gru.yaml"
    assert cli.main(["aggregate", str(source), "-o", str(target)]) == ExitCode.IO
    assert capsys.readouterr().err.strip() == f"error: {target}: No space left on device"
    assert target.read_text() == "previous content\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["merged.yaml"]
    assert (ZOO_DIR / "gru.pte").is_file()
