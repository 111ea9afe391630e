"""Runtime figures: the core's exact size per architecture, and latency per zoo
model against ExecuTorch's Python runtime on the same .pte (ratios from one run)."""

from __future__ import annotations

import shutil
import statistics
import subprocess
import time
from pathlib import Path

import numpy as np

from bot import arch as arches
from bot import build, size
from bot.errors import BotError

ZOO_DIR = build.REPO_ROOT / "models" / "zoo"
CORE_FLAVOUR = build.Flavour("core-size", build_type="MinSizeRel")
CORE_ARCHES = ("x86-64", "aarch64")  # the hosted probes (cortex-m builds the firmware size probe only)
REPEAT = 30
CORE_GOAL = 25600


def _core_row(arch: arches.Arch, work: Path) -> str:
    missing = arches.missing_tools(arch, run=False)
    if missing is not None:
        return f"| {arch.name} | not measured: {missing} | | | |"
    try:
        build_dir = build.build(CORE_FLAVOUR.for_arch(arch), targets=("core_size_probe", "baseline_probe"))
        probe = size.analyse(build_dir / "core_size_probe", None, {}, work, arch=arch)
        baseline = size.analyse(build_dir / "baseline_probe", None, {}, work, arch=arch)
    except BotError as exc:
        return f"| {arch.name} | not measured: {str(exc).splitlines()[0][:200]} | | | |"
    own = probe.vm_size - baseline.vm_size
    return (
        f"| {arch.name} | {probe.vm_size:,} | {baseline.vm_size:,} | **{own:,}** ({own / 1024:.1f} KiB, "
        f"{'within' if own <= CORE_GOAL else 'over'} the goal) | {probe.file_size:,} |"
    )


def core_size(work: Path) -> list[str]:
    rows = [_core_row(arches.get(name), work) for name in CORE_ARCHES]
    return [
        "## Core runtime size",
        "",
        "`-Os`, `-ffunction-sections -fdata-sections -Wl,--gc-sections`. The probe loads and executes a program",
        "with an empty op registry; the baseline is the same `main` without the runtime. Sizes are exact VM",
        "bytes: the loadable sections of the stripped binary summed without page padding (bot/size.py);",
        "the stripped file, page padded, is in the last column for reference.",
        "",
        "| arch | core_size_probe (core, no kernels) | baseline_probe (no runtime) | core's own bytes (difference) |"
        " probe's stripped file |",
        "|---|---:|---:|---:|---:|",
        *rows,
        "",
        f"Goal: core's own bytes under 25 KB ({CORE_GOAL} bytes). ExecuTorch states under 50 KB for its core.",
        "",
    ]


def _ours_ms(runner: Path, model: Path, inputs: list[Path]) -> float:
    cmd = [str(runner), "--model", str(model), "--repeat", str(REPEAT)]
    for path in inputs:
        cmd += ["--input", str(path)]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    line = next(ln for ln in out.splitlines() if ln.startswith("latency_ms_median"))
    return float(line.split()[1])


def _executorch_ms(model: Path, inputs: list[Path]) -> float:
    import torch
    from executorch.runtime import Runtime

    method = Runtime.get().load_program(model).load_method("forward")
    tensors = [torch.from_numpy(np.load(p)) for p in inputs]
    method.execute(tensors)
    samples = []
    for _ in range(REPEAT):
        start = time.perf_counter()
        method.execute(tensors)
        samples.append((time.perf_counter() - start) * 1000)
    return statistics.median(samples)


def latency() -> list[str]:
    runner = build.runner_path(build.build(build.ALL_OPS))
    rows = []
    for model in sorted(ZOO_DIR.glob("*.pte")):
        inputs = sorted(ZOO_DIR.glob(f"{model.stem}.input*.npy"))
        ours = _ours_ms(runner, model, inputs)
        theirs = _executorch_ms(model, inputs)
        rows.append(f"| {model.stem} | {ours:.3f} | {theirs:.3f} | {ours / theirs:.2f} |")
    return [
        "## Latency per zoo model",
        "",
        f"Median of {REPEAT} `execute` calls after one warm-up, same `.pte`, same inputs, same run. Ours: the",
        "all-ops runtime (`-O2`) via `executor_runner --repeat`. ExecuTorch: `executorch.runtime` 1.5.1",
        "`Method.execute` from Python (includes its binding overhead). Ratio < 1 means ours is faster.",
        "",
        "| model | ours (ms) | ExecuTorch (ms) | ratio ours/ET |",
        "|---|---:|---:|---:|",
        *rows,
        "",
    ]


def section(work: Path) -> list[str]:
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    return core_size(work) + latency()
