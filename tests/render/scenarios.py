"""The comments the render test looks at, from real pipeline runs on small
scenario repos (one target, one model): one on x86-64 only, one measured for
x86-64 and aarch64 (the per-architecture table and chart, and a warn level its
growth goes over), one whose target switches to optimized kernels (the cost
line); one branch per PR, all against `main`, sharing one cache so base builds
and worktrees are reused. Each is judged by its base branch's policy, as the
bot judges a PR."""

from __future__ import annotations

import shutil
from pathlib import Path

from bot import config, pipeline
from bot.progress import Progress
from bot.report import model, patch, publish, verdict
from bot.safety.redact import NOTHING
from tests.conftest import ZOO_DIR
from tests.scenario_repo import commit_all, git, grow_relu, make_base

CONFIG = """\
version: 1
kernel_libraries: [kernels/portable/functions.yaml]
oplist_dir: models/oplist
targets:
  vision:
    yaml: apps/vision/selected_operators.yaml
    models: [models/zoo/squeezenet.pte]
"""

# The multi-architecture repo's vision target warns when its runtime grows by more than this percent.
WARN_PERCENT = 0.1
MULTI_ARCH_CONFIG = CONFIG.replace("targets:\n", "architectures: [x86-64, aarch64]\ntargets:\n") + (
    f"    size_limits: {{warn: {{growth_percent: {WARN_PERCENT}}}}}\n"
)

SCENARIOS = ("no_change", "size_only", "stale_yaml", "multi_arch", "kernel_choice")
MULTI_ARCH = ("multi_arch",)  # scenarios on the repo measured for x86-64 and aarch64


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


def _kernel_choice(repo: Path) -> None:
    """The target chooses speed: optimized kernels (x86-64-v3), a size change the comment names and prices."""
    config = repo / ".selective-build.yml"
    line = "    yaml: apps/vision/selected_operators.yaml\n"
    assert line in config.read_text()
    config.write_text(config.read_text().replace(line, line + "    kernels: optimized\n"))


EDITS = {
    "no_change": _no_change,
    "size_only": _size_only,
    "stale_yaml": _stale_yaml,
    "multi_arch": grow_relu,
    "kernel_choice": _kernel_choice,
}


def _make_repo(path: Path, config: str, names: tuple[str, ...]) -> Path:
    repo = make_base(path, config, ("squeezenet",))
    for name in names:
        git(repo, "checkout", "-q", "-b", name, "main")
        EDITS[name](repo)
        commit_all(repo, name.replace("_", " "))
    git(repo, "checkout", "-q", "main")
    return repo


def make_repos(path: Path) -> dict[str, Path]:
    """The base repos with one branch per scenario: the repo each scenario's PR is in."""
    single = tuple(name for name in SCENARIOS if name not in MULTI_ARCH)
    x86 = _make_repo(path / "x86-64", CONFIG, single)
    multi = _make_repo(path / "multi-arch", MULTI_ARCH_CONFIG, MULTI_ARCH)
    return {name: multi if name in MULTI_ARCH else x86 for name in SCENARIOS}


# Where the comment says the patch of the stale yamls is, as the workflow_run poster says it: the event's
# run id, the repository, the artifact the workflow uploads (the report's name), the patch in it.
PATCH_SOURCE = patch.fetch(1589141559, "octo-org/app", "selective-build-report", "selective-build-report.patch")


def comment(repo: Path, scenario: str) -> tuple[model.PrReport, verdict.Verdict, str]:
    """The report of the scenario's PR, its verdict by the base branch's policy, and its comment as the bot
    would post it (offering the patch)."""
    report = pipeline.run_pr(repo, "main", scenario, Progress())
    judged = verdict.judge(report, config.policy_at(repo, report.base_sha))
    return report, judged, publish.markdown(report, judged, NOTHING, source=PATCH_SOURCE)
