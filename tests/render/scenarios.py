"""The comments the render test looks at, from real pipeline runs on a small
scenario repo (one target, one model, x86-64): one branch per PR, all against
`main`, sharing one cache so the base build and the worktrees are reused."""

from __future__ import annotations

import shutil
from pathlib import Path

from bot import pipeline, publish
from bot.progress import Progress
from bot.redact import NOTHING
from tests.conftest import ZOO_DIR
from tests.scenario_repo import commit_all, git, make_base

CONFIG = """\
version: 1
kernel_libraries: [kernels/functions.yaml]
oplist_dir: models/oplist
targets:
  vision:
    yaml: apps/vision/selected_operators.yaml
    models: [models/zoo/squeezenet.pte]
"""

SCENARIOS = ("no_change", "size_only", "stale_yaml")


def _no_change(repo: Path) -> None:
    (repo / "NOTES.md").write_text("docs only\n")


def _size_only(repo: Path) -> None:
    """A kernel grows: relu also maps NaN to 0 (same ops, same dtypes, more code)."""
    kernel = repo / "kernels" / "portable" / "op_relu.cpp"
    body = "return x < T(0) ? T(0) : x;"
    assert body in kernel.read_text(), "the relu line this scenario edits is gone"
    kernel.write_text(kernel.read_text().replace(body, "return (x < T(0) || x != x) ? T(0) : x;"))


def _stale_yaml(repo: Path) -> None:
    """The model is re-exported (now a MobileNetV3) and its yaml is not regenerated."""
    for suffix in (".pte", ".input0.npy"):
        shutil.copy2(ZOO_DIR / f"mobilenet_v3{suffix}", repo / "models" / "zoo" / f"squeezenet{suffix}")


EDITS = {"no_change": _no_change, "size_only": _size_only, "stale_yaml": _stale_yaml}


def make_repo(path: Path) -> Path:
    """The base repo with one branch per scenario."""
    repo = make_base(path, CONFIG, ("squeezenet",))
    for name in SCENARIOS:
        git(repo, "checkout", "-q", "-b", name, "main")
        EDITS[name](repo)
        commit_all(repo, name.replace("_", " "))
    git(repo, "checkout", "-q", "main")
    return repo


def comment(repo: Path, scenario: str) -> tuple[pipeline.PrReport, str]:
    """The report of the scenario's PR and its comment as the bot would post it."""
    report = pipeline.run_pr(repo, "main", scenario, Progress())
    return report, publish.markdown(report, NOTHING)
