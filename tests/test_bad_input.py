"""Bad input: one clear line, a distinct non-zero exit, no traceback, nothing half-written.
README's "Bad input" table lists these cases; each row is a test here."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from bot import cli
from bot.errors import ExitCode
from bot.safety.limits import MIB
from bot.selection import oplist
from tests.conftest import REPO_ROOT, ZOO_DIR
from tests.scenario_repo import clone_of, commit_all


def bot(*args: str, cwd: Path = REPO_ROOT, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, **(env or {}), "PYTHONPATH": str(REPO_ROOT), "COLUMNS": "60"}  # narrow: no wrapped line
    # A timeout, so a read that blocks (a FIFO) fails the test instead of hanging it.
    return subprocess.run(
        [sys.executable, "-m", "bot", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=600
    )


def assert_one_line(proc: subprocess.CompletedProcess[str], code: ExitCode, message: str) -> None:
    assert proc.returncode == code, (proc.returncode, proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    # Long commands log their steps and timings first (bot/progress.py); the error is the last line, and one line.
    errors = [line for line in lines if line.startswith("error: ")]
    assert len(errors) == 1 and lines[-1] == errors[0], proc.stderr
    assert message in lines[-1], lines[-1]


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


def test_compiler_failure_shows_its_error_line_in_the_report(base_repo: Path, tmp_path: Path) -> None:
    repo = clone_of(base_repo, tmp_path / "repo")
    kernel = repo / "kernels" / "portable" / "op_relu.cpp"
    kernel.write_text(kernel.read_text() + "\nint broken_on_purpose() { return undeclared_thing; }\n")
    commit_all(repo, "break relu")
    report = tmp_path / "report.md"
    env_cache = {"SB_CACHE_DIR": str(tmp_path / "cache")}
    os.environ.update(env_cache)
    try:
        proc = bot("pr", "--base", "main~1", "--output", str(report), cwd=repo)
    finally:
        for key in env_cache:
            os.environ.pop(key)
    assert_one_line(proc, ExitCode.BUILD, "build of tracer failed: kernels/portable/op_relu.cpp:")
    assert "undeclared_thing" in proc.stderr.splitlines()[-1]
    # The job log has the compiler's whole message (excerpt and caret); the report its error line, path repo-relative.
    assert "the output of the failed build of tracer:" in proc.stderr
    assert "| int broken_on_purpose() { return undeclared_thing; }" in proc.stderr
    text = report.read_text()
    assert "Build failures" in text and "<summary>error lines</summary>" in text
    block = text.split("<pre>", 1)[1].split("</pre>", 1)[0]
    expected = (
        r"kernels/portable/op_relu\.cpp:\d+:\d+: error: .{1,6}undeclared_thing.{1,6} was not declared in this scope"
    )
    assert re.fullmatch(expected, block), block


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


# Hostile repositories: everything a pull request controls (the config, symlinks, FIFOs,
# sizes) is refused with one line before anything is built, read or written.

SECRET = "SB-SECRET-2b8e41"  # in the environment and in a file outside the repo; never in any output
ENVIRON = "/proc/self/environ"


def hostile_repo(tmp_path: Path, config: str) -> tuple[Path, Path]:
    """A repo with one zoo model (and its input) and the given config; beside it, a
    directory outside the repo holding a secret."""
    root, outside = tmp_path / "repo", tmp_path / "outside"
    (root / "models").mkdir(parents=True)
    outside.mkdir()
    (outside / "shadow").write_text(f"root:{SECRET}:19000:0:99999:7:::\n")
    for name in ("gru.pte", "gru.input0.npy"):
        shutil.copy(ZOO_DIR / name, root / "models" / name)
    (root / ".selective-build.yml").write_text(config.replace("OUTSIDE", str(outside)))
    return root, outside


def app_config(**fields: str) -> str:
    """A valid config, with some of its path fields replaced."""
    model = fields.get("model", "models/gru.pte")
    models = f"[{{path: {model}, inputs: [{fields['input']}]}}]" if "input" in fields else f"[{model}]"
    return (
        f"runtime: {{source_dir: {fields.get('source_dir', 'native')}}}\n"
        f"kernel_libraries: [{fields.get('kernel_library', 'kernels/portable/functions.yaml')}]\n"
        f"oplist_dir: {fields.get('oplist_dir', 'oplist')}\n"
        f"targets:\n  app:\n    yaml: {fields.get('yaml', 'apps/app/selected_operators.yaml')}\n"
        f"    models: {models}\n"
    ) + fields.get("extra", "")


def refused_cleanly(proc: subprocess.CompletedProcess[str], code: ExitCode, message: str, outside: Path) -> None:
    assert_one_line(proc, code, message)
    assert SECRET not in proc.stdout + proc.stderr
    assert sorted(p.name for p in outside.rglob("*")) == ["shadow"]  # nothing written outside the repo


FIELDS = {
    "source_dir": "runtime.source_dir",
    "kernel_library": "kernel_libraries[0]",
    "oplist_dir": "oplist_dir",
    "yaml": "targets.app.yaml",
    "model": "targets.app.models[0]",
    "input": "targets.app.models[0].inputs[0]",
}


@pytest.mark.parametrize("field", FIELDS)
@pytest.mark.parametrize(
    ("value", "problem"),
    [("OUTSIDE/shadow", "must be relative to the repository root"), ("../outside/shadow", "is outside the repository")],
    ids=["absolute", "parent"],
)
def test_config_paths_leaving_the_repo(field: str, value: str, problem: str, tmp_path: Path) -> None:
    root, outside = hostile_repo(tmp_path, app_config(**{field: value}))
    shown = value.replace("OUTSIDE", str(outside))
    proc = bot("regenerate", "--root", str(root))
    refused_cleanly(proc, ExitCode.CONFIG, f".selective-build.yml: {FIELDS[field]}: {shown} {problem}", outside)


@pytest.mark.parametrize(
    ("link", "target", "message"),
    [
        ("apps", "OUTSIDE", "targets.app.yaml: apps/app/selected_operators.yaml leads outside the repository"),
        ("oplist", "OUTSIDE", "oplist_dir: oplist leads outside the repository through a symlink"),
        ("native", "OUTSIDE", "runtime.source_dir: native leads outside the repository through a symlink"),
        ("apps/app/selected_operators.yaml", "OUTSIDE/shadow", "targets.app.yaml: apps/app/selected_operators"),
        ("apps/app/selected_operators.yaml", ENVIRON, "targets.app.yaml: apps/app/selected_operators"),
        ("oplist/gru.yaml", ENVIRON, "targets.app.models[0] (its per-model yaml): oplist/gru.yaml leads outside"),
        ("kernels/portable/functions.yaml", ENVIRON, "kernel_libraries[0]: kernels/portable/functions.yaml leads"),
        ("models/gru.input0.npy", "/dev/zero", "targets.app.models[0].inputs[0]: models/gru.input0.npy leads"),
        (".selective-build.yml", ENVIRON, "config file: .selective-build.yml leads outside the repository"),
    ],
    ids=["dir-yaml", "dir-oplist", "dir-runtime", "secret", "environ", "per-model", "library", "dev-zero", "config"],
)
def test_symlinks_out_of_the_repo(link: str, target: str, message: str, tmp_path: Path) -> None:
    """`regenerate --check` prints diffs of the checked-in yamls: a yaml symlinked to
    the environment or a secret would print it. It must refuse before reading."""
    root, outside = hostile_repo(tmp_path, app_config())
    place = root / link
    place.parent.mkdir(parents=True, exist_ok=True)
    place.unlink(missing_ok=True)
    place.symlink_to(target.replace("OUTSIDE", str(outside)))
    proc = bot("regenerate", "--check", "--root", str(root), env={"SB_HOSTILE_MARKER": SECRET})
    refused_cleanly(proc, ExitCode.CONFIG, message, outside)


def _make_fifo(path: Path) -> None:
    path.unlink()
    os.mkfifo(path)


def _make_directory(path: Path) -> None:
    path.unlink()
    path.mkdir()


@pytest.mark.parametrize(
    ("file", "make", "message"),
    [
        ("models/gru.pte", _make_fifo, "targets.app.models[0]: models/gru.pte: not a regular file (a FIFO)"),
        ("models/gru.input0.npy", _make_fifo, "models/gru.input0.npy: not a regular file (a FIFO)"),
        ("models/gru.pte", _make_directory, "models/gru.pte: not a regular file (a directory)"),
    ],
)
def test_models_and_inputs_that_are_not_regular_files(
    file: str, make: Callable[[Path], None], message: str, tmp_path: Path
) -> None:
    root, outside = hostile_repo(tmp_path, app_config())
    make(root / file)
    refused_cleanly(bot("regenerate", "--root", str(root)), ExitCode.CONFIG, message, outside)


def test_limits_from_the_config_apply_to_its_models(tmp_path: Path) -> None:
    size = (ZOO_DIR / "gru.pte").stat().st_size
    limit_mb = (size - 1) / MIB
    root, outside = hostile_repo(tmp_path, app_config(extra=f"limits: {{model_mb: {limit_mb!r}}}\n"))
    message = f"models/gru.pte: {size:,} bytes, over the limit of {size - 1:,} bytes for a model"
    refused_cleanly(bot("regenerate", "--root", str(root)), ExitCode.CONFIG, message, outside)


def test_limits_cannot_be_raised_past_the_schema_ceiling(tmp_path: Path) -> None:
    root, outside = hostile_repo(tmp_path, app_config(extra="limits: {yaml_mb: 100000}\n"))
    proc = bot("regenerate", "--root", str(root))
    refused_cleanly(proc, ExitCode.CONFIG, "limits.yaml_mb: 100000 is greater than the maximum of", outside)


def _deep(levels: int) -> str:
    return "targets: " + "[" * levels + "]" * levels + "\n"


def _bomb(levels: int) -> str:
    lines = ['l0: &l0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    lines += [f"l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * 9)}]" for i in range(1, levels + 1)]
    return "\n".join(lines) + "\ntargets: *l" + str(levels) + "\n"


@pytest.mark.parametrize(
    ("config", "message"),
    [
        (_deep(5000), "nested deeper than 100 levels at line 1"),
        (_bomb(9), "aliases expand to more than"),
        (app_config() + "oplist_dir: elsewhere\n", "duplicate key 'oplist_dir' at line 8"),
        ("targets: &t {app: {yaml: y.yaml, models: *t}}\n", "contains itself through an alias"),
    ],
    ids=["deep", "alias-bomb", "duplicate-key", "recursive-alias"],
)
def test_hostile_yaml_in_the_config(config: str, message: str, tmp_path: Path) -> None:
    root, outside = hostile_repo(tmp_path, config)
    start = time.perf_counter()
    refused_cleanly(bot("regenerate", "--root", str(root)), ExitCode.CONFIG, message, outside)
    assert time.perf_counter() - start < 30  # an interpreter start; the bomb alone took a minute and 5 GB


def test_oversized_config_is_refused_unread(tmp_path: Path) -> None:
    root, outside = hostile_repo(tmp_path, app_config())
    with (root / ".selective-build.yml").open("r+b") as handle:
        handle.truncate(200 * MIB)  # sparse: a read of it would take seconds and 200 MB
    proc = bot("regenerate", "--root", str(root))
    refused_cleanly(proc, ExitCode.CONFIG, ".selective-build.yml: 200 MB, over the limit of 8 MB for yaml", outside)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("aggregate", "/dev/zero"), "/dev/zero: not a regular file (a character device)"),
        (("aggregate", "FIFO"), "fifo.yaml: not a regular file (a FIFO)"),
        (("aggregate", "DIR"), ": not a regular file (a directory)"),
        (("aggregate", "BIG"), "big.yaml: 200 MB, over the limit of 8 MB for yaml"),
        (("build", "--ops-yaml", "FIFO"), "fifo.yaml: not a regular file (a FIFO)"),
        (("oplist", "/dev/zero"), "/dev/zero: not a regular file (a character device)"),
        (("oplist", "FIFO"), "fifo.yaml: not a regular file (a FIFO)"),
        (("run", "FIFO"), "fifo.yaml: not a regular file (a FIFO)"),
        (("run", "models/zoo/gru.pte", "--input", "/dev/zero"), "/dev/zero: not a regular file (a character device)"),
        (("oplist", "--trace", "models/zoo/gru.pte", "--input", "FIFO"), "fifo.yaml: not a regular file (a FIFO)"),
    ],
)
def test_command_line_files_that_are_not_regular_or_too_big(
    args: tuple[str, ...], message: str, tmp_path: Path
) -> None:
    os.mkfifo(tmp_path / "fifo.yaml")
    with (tmp_path / "big.yaml").open("wb") as handle:
        handle.truncate(200 * MIB)
    places = {"FIFO": tmp_path / "fifo.yaml", "DIR": tmp_path, "BIG": tmp_path / "big.yaml"}
    proc = bot(*(str(places.get(arg, arg)) for arg in args))
    assert_one_line(proc, ExitCode.BAD_INPUT, message)
