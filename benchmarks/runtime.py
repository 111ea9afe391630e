"""Runtime figures: the core's exact size per architecture (latency against ExecuTorch's C++ runtime is
benchmarks/latency.py)."""

from __future__ import annotations

import shutil
from pathlib import Path

from bot.build import arch as arches
from bot.build import cmake, size
from bot.errors import BotError

ZOO_DIR = cmake.REPO_ROOT / "models" / "zoo"
# The bare core, every optional part off: no bundled backend (an all-ops selection would register
# XnnpackBackend and its machinery), and none of native/core/src/features.h (no .ptd reader, no dynamic
# lists, no non-contiguous dim orders, no control flow, no inline constants, no stored mutable data):
# what a selective runtime whose programs need none of them carries besides its kernels.
CORE_OPTIONAL_PARTS_OFF = {
    "SB_BUNDLED_BACKENDS": "OFF",
    "SB_EXTERNAL_DATA": "OFF",
    "SB_DYNAMIC_LISTS": "OFF",
    "SB_DIM_ORDERS": "OFF",
    "SB_CONTROL_FLOW": "OFF",
    "SB_INLINE_CONSTANTS": "OFF",
    "SB_MUTABLE_DATA": "OFF",
}
CORE_FLAVOUR = cmake.Flavour("core-size", CORE_OPTIONAL_PARTS_OFF, build_type="MinSizeRel")
CORE_ARCHES = ("x86-64", "aarch64")  # the hosted probes (cortex-m builds the firmware size probe only)
REPEAT = 30
CORE_GOAL = 25600


def _core_row(arch: arches.Arch, work: Path) -> str:
    missing = arches.missing_tools(arch, run=False)
    if missing is not None:
        return f"| {arch.name} | not measured: {missing} | | | |"
    try:
        build_dir = cmake.build(CORE_FLAVOUR.for_arch(arch), targets=("core_size_probe", "baseline_probe"))
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
        "with an empty op registry and every optional part of the core off ("
        + ", ".join(f"`{option}=OFF`" for option in CORE_OPTIONAL_PARTS_OFF)
        + "), as a selective",
        "runtime whose programs need none of them is built; the baseline is the same `main` without the runtime.",
        "Sizes are exact VM",
        "bytes: the loadable sections of the stripped binary summed without page padding (bot/build/size.py);",
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


def section(work: Path) -> list[str]:
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    return core_size(work)
