"""`python -m bot regenerate` when a model cannot be traced: every other model is traced and every yaml
that can be written is, each untraceable model is named with the runtime's error line and whether
regenerating can fix it, and the command exits 1.

The models are real: zoo programs, and a program exported by executorch's own exporter for its demo
backend (tests/delegated_programs.py), which no runtime of ours has: the tracer refuses it at load.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from bot.errors import ExitCode
from bot.selection import oplist
from tests.conftest import REPO_ROOT, ZOO_DIR

BACKEND_FIX = (
    "regenerating cannot fix this: the runtime has no backend BackendWithCompilerDemo "
    "(build a runtime with the backend, or export the model without delegating to it)"
)


def regenerate(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bot", "regenerate", "--root", str(repo), *args],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
    )


def app_repo(path: Path, delegated: Path, config: str) -> Path:
    """An app repo (no runtime of its own: the bundled one is built): gru from the zoo, a delegated program."""
    (path / "models").mkdir(parents=True)
    for name in ("gru.pte", "gru.input0.npy"):
        shutil.copy2(ZOO_DIR / name, path / "models" / name)
    shutil.copy2(delegated, path / "models" / delegated.name)
    (path / ".selective-build.yml").write_text(config)
    return path


TWO_TARGETS = """\
version: 1
targets:
  seq:
    yaml: apps/seq/selected_operators.yaml
    models: [models/gru.pte]
  xnn:
    yaml: apps/xnn/selected_operators.yaml
    models: [models/gru.pte, models/{delegated}.pte]
"""


def files(repo: Path) -> dict[str, bytes]:
    """Every file the repo holds, but its models: what regenerate wrote (or left)."""
    return {
        p.relative_to(repo).as_posix(): p.read_bytes()
        for p in sorted(repo.rglob("*"))
        if p.is_file() and p.parent.name != "models"
    }


def no_traceback(proc: subprocess.CompletedProcess[str]) -> None:
    assert "Traceback" not in proc.stdout + proc.stderr, proc.stderr


@pytest.fixture
def xnn_app(tmp_path: Path, delegated_programs: dict[str, Path]) -> Path:
    return app_repo(tmp_path / "app", delegated_programs["demo_backend"], TWO_TARGETS.format(delegated="demo_backend"))


def test_a_delegated_model_is_named_and_every_other_yaml_is_written(xnn_app: Path) -> None:
    proc = regenerate(xnn_app)

    no_traceback(proc)
    assert proc.returncode == ExitCode.FINDINGS, proc.stderr
    lines = proc.stderr.splitlines()
    untraced = [line for line in lines if line.startswith("could not trace")]
    assert untraced == [
        "could not trace models/demo_backend.pte: demo_backend.pte: missing backend BackendWithCompilerDemo "
        "(needed by demo_backend); " + BACKEND_FIX
    ]
    assert (
        "not regenerated: apps/xnn/selected_operators.yaml (target xnn), left as checked in: models/demo_backend.pte "
        "could not be traced and has no checked-in per-model yaml"
    ) in lines
    assert "1 model could not be traced" in lines
    # The traced model and the target holding only traced models are written; nothing of the delegated one,
    # and no half-written file beside them.
    assert sorted(files(xnn_app)) == [".selective-build.yml", "apps/seq/selected_operators.yaml", "oplist/gru.yaml"]
    gru = oplist.load(xnn_app / "oplist" / "gru.yaml")
    seq = oplist.load(xnn_app / "apps" / "seq" / "selected_operators.yaml")
    assert seq.names() == gru.names() and "aten::sigmoid.out" in seq.names()
    assert any(op.traced for op in gru.operators.values())


def test_check_names_the_model_too_and_writes_nothing(xnn_app: Path) -> None:
    assert regenerate(xnn_app).returncode == ExitCode.FINDINGS
    before = files(xnn_app)

    check = regenerate(xnn_app, "--check")
    no_traceback(check)
    assert check.returncode == ExitCode.FINDINGS, check.stderr  # up to date, but a model could not be traced
    assert check.stdout == ""  # no diff: what could be regenerated is up to date
    lines = check.stderr.splitlines()
    assert "every yaml that could be regenerated is up to date" in lines
    assert [line for line in lines if line.startswith("could not trace models/demo_backend.pte:")] == [
        "could not trace models/demo_backend.pte: demo_backend.pte: missing backend BackendWithCompilerDemo "
        "(needed by demo_backend); " + BACKEND_FIX
    ]

    as_json = regenerate(xnn_app, "--check", "--json")
    assert as_json.returncode == ExitCode.FINDINGS
    assert json.loads(as_json.stdout) == {
        "stale": [],
        "untraced": [
            {
                "model": "models/demo_backend.pte",
                "message": "demo_backend.pte: missing backend BackendWithCompilerDemo (needed by demo_backend)",
                "cannot_fix": BACKEND_FIX,
            }
        ],
        "kept": [],
        "not_regenerated": ["apps/xnn/selected_operators.yaml"],
    }
    assert files(xnn_app) == before

    # A stale yaml beside the untraceable model: the diff is shown, and it still exits 1.
    (xnn_app / "apps" / "seq" / "selected_operators.yaml").write_text("{}\n")
    stale = regenerate(xnn_app, "--check")
    assert stale.returncode == ExitCode.FINDINGS
    assert "+++ b/apps/seq/selected_operators.yaml" in stale.stdout
    assert "1 yaml file(s) are stale" in stale.stderr and "could not trace models/demo_backend.pte" in stale.stderr


def test_a_checked_in_per_model_yaml_stands_in_for_the_model_it_belongs_to(
    tmp_path: Path, delegated_programs: dict[str, Path]
) -> None:
    """The delegated model's checked-in per-model yaml is kept as it is and its selection goes into the
    target's yaml, which is regenerated with the traced models' selections."""
    repo = app_repo(tmp_path / "app", delegated_programs["demo_backend"], TWO_TARGETS.format(delegated="demo_backend"))
    # Its root ops, as `oplist` reads them from the program (the ops outside its delegate).
    written = subprocess.run(
        [sys.executable, "-m", "bot", "oplist", str(repo / "models" / "demo_backend.pte"), "-o",
         str(repo / "oplist" / "demo_backend.yaml")],
        cwd=REPO_ROOT, capture_output=True, text=True,
    )  # fmt: skip
    assert written.returncode == 0, written.stderr
    kept = (repo / "oplist" / "demo_backend.yaml").read_bytes()
    (repo / "apps" / "xnn").mkdir(parents=True)
    (repo / "apps" / "xnn" / "selected_operators.yaml").write_text("{}\n")

    proc = regenerate(repo)

    no_traceback(proc)
    assert proc.returncode == ExitCode.FINDINGS, proc.stderr
    lines = proc.stderr.splitlines()
    assert [line for line in lines if line.startswith("could not trace")] == [
        "could not trace models/demo_backend.pte: demo_backend.pte: missing backend BackendWithCompilerDemo (needed by "
        "demo_backend); " + BACKEND_FIX
    ]
    assert "kept oplist/demo_backend.yaml as checked in, the selection of models/demo_backend.pte (not traced)" in lines
    assert not any(line.startswith("not regenerated") for line in lines)
    assert (repo / "oplist" / "demo_backend.yaml").read_bytes() == kept
    xnn = oplist.load(repo / "apps" / "xnn" / "selected_operators.yaml")
    gru = oplist.load(repo / "oplist" / "gru.yaml")
    assert xnn.names() == gru.names() | oplist.loads(kept, "kept").names()
    assert "aten::cumsum.out" in xnn.names()


def test_each_reason_regenerating_cannot_fix_is_named(tmp_path: Path, delegated_programs: dict[str, Path]) -> None:
    """A program that is not valid and a model given more inputs than it takes: each named with the
    reader's or the runtime's line and why regenerating cannot fix it; the traced target is written."""
    repo = app_repo(tmp_path / "app", delegated_programs["demo_backend"], "")
    data = (ZOO_DIR / "gru.pte").read_bytes()
    (repo / "models" / "broken.pte").write_bytes(data[: len(data) // 3])
    shutil.copy2(ZOO_DIR / "gru.pte", repo / "models" / "twice.pte")
    (repo / ".selective-build.yml").write_text(
        "version: 1\ntargets:\n"
        "  seq:\n    yaml: apps/seq/selected_operators.yaml\n    models: [models/gru.pte]\n"
        "  broken:\n    yaml: apps/broken/selected_operators.yaml\n    models: [models/broken.pte]\n"
        "  inputs:\n    yaml: apps/inputs/selected_operators.yaml\n"
        "    models: [{path: models/twice.pte, inputs: [models/gru.input0.npy, models/gru.input0.npy]}]\n"
    )
    proc = regenerate(repo)

    no_traceback(proc)
    assert proc.returncode == ExitCode.FINDINGS, proc.stderr
    broken, twice = [line for line in proc.stderr.splitlines() if line.startswith("could not trace")]
    assert broken.startswith("could not trace models/broken.pte: broken.pte: invalid program: ")
    assert broken.endswith("; regenerating cannot fix this: the program is not valid (export the model again)")
    assert twice == (
        "could not trace models/twice.pte: twice.pte: twice takes 1 inputs, 2 given; regenerating cannot fix "
        "this: the model is not given the inputs it takes (list its inputs in .selective-build.yml, or none for "
        "generated ones)"
    )
    assert "2 models could not be traced" in proc.stderr
    assert sorted(files(repo)) == [".selective-build.yml", "apps/seq/selected_operators.yaml", "oplist/gru.yaml"]
