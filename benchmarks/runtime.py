"""Runtime figures: the core's stripped size, and latency per zoo model
against ExecuTorch's Python runtime on the same .pte (ratios from one run)."""

from __future__ import annotations

import shutil
import statistics
import subprocess
import time
from pathlib import Path

import numpy as np

from bot import build
from bot.size import stripped_size

ZOO_DIR = build.REPO_ROOT / "models" / "zoo"
CORE_FLAVOUR = build.Flavour("core-size", build_type="MinSizeRel")
REPEAT = 30


def core_size(work: Path) -> list[str]:
    build_dir = build.build(CORE_FLAVOUR, targets=("core_size_probe", "baseline_probe"))
    probe = stripped_size(build_dir / "core_size_probe", work)
    baseline = stripped_size(build_dir / "baseline_probe", work)
    return [
        "## Core runtime size",
        "",
        "x86-64, `-Os`, `-ffunction-sections -fdata-sections -Wl,--gc-sections`, stripped. The probe loads and",
        "executes a program with an empty op registry; the baseline is the same `main` without the runtime.",
        "",
        "| binary | stripped bytes |",
        "|---|---:|",
        f"| core_size_probe (core, no kernels) | {probe} |",
        f"| baseline_probe (no runtime) | {baseline} |",
        f"| **core runtime's own bytes (difference)** | **{probe - baseline}** |",
        "",
        f"Goal: under 25 KB (25600 bytes). ExecuTorch states under 50 KB for its core. "
        f"Measured: probe {probe / 1024:.1f} KiB, core's own {(probe - baseline) / 1024:.1f} KiB.",
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
