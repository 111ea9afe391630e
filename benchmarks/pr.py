"""Wall time of `python -m bot pr` on this repo for a one-kernel change."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from bot.build import cmake

RUNS = 2


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)


def section(work: Path) -> list[str]:
    work.mkdir(parents=True, exist_ok=True)
    repo = work / "clone"
    subprocess.run(["git", "clone", "-q", str(cmake.REPO_ROOT), str(repo)], check=True)
    _git(repo, "config", "user.email", "bench@example.com")
    _git(repo, "config", "user.name", "bench")
    kernel = repo / "kernels" / "portable" / "op_relu.cpp"
    body = "return x < T(0) ? T(0) : x;"
    if body not in kernel.read_text():
        raise SystemExit(f"benchmarks/pr.py: {kernel.name} no longer holds the line the benchmark edits: {body}")
    kernel.write_text(kernel.read_text().replace(body, "return (x < T(0) || x != x) ? T(0) : x;"))
    _git(repo, "commit", "-qam", "relu maps NaN to 0")
    env = {**os.environ, "SB_CACHE_DIR": str(work / "cache")}
    times = []
    for _ in range(RUNS):
        start = time.perf_counter()
        proc = subprocess.run(
            [sys.executable, "-m", "bot", "pr", "--base", "HEAD~1", "--output", str(work / "report.md")],
            cwd=repo,
            env=env,
            capture_output=True,
            text=True,
        )
        times.append(time.perf_counter() - start)
        if proc.returncode not in (0, 1):
            raise RuntimeError(f"pr failed: {proc.stderr[-2000:]}")
    targets = (repo / ".selective-build.yml").read_text().count("yaml: apps/")
    return [
        "## PR pipeline wall time",
        "",
        f"`python -m bot pr --base HEAD~1` on a fresh clone of this repo ({targets} targets, the bundled models)",
        "whose last commit changes one kernel (`op_relu.cpp`). The first run starts with no build",
        "directories in the clone but a warm ccache; the second reuses the build directories and the base",
        f"worktree (the warm case). {os.cpu_count()} cores.",
        "",
        "| run | wall time (s) |",
        "|---|---:|",
        *(f"| {'first (fresh clone, warm ccache)' if i == 0 else 'warm'} | {t:.1f} |" for i, t in enumerate(times)),
        "",
        "Goal: under 60 s on 2 cores with a warm cache.",
        "",
    ]
