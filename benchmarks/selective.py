"""Selective-build figures: exact runtime sizes per architecture (all ops, and per
model with and without dtype selection) and op-extraction time against
ExecuTorch's gen_oplist."""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from collections.abc import Iterable
from pathlib import Path

from bot import config
from bot.build import arch as arches
from bot.build import cmake, size
from bot.errors import BotError
from bot.report.model import SizeReport
from bot.selection import oplist, pte, trace
from bot.selection.kernel_library import load_libraries, op_sources

ZOO_DIR = cmake.REPO_ROOT / "models" / "zoo"
SIZE_BUILD = "MinSizeRel"
ARCHES = ("x86-64", "aarch64", "cortex-m")
MODEL_ARCH = "x86-64"  # per-model tables on one architecture; apps on all of them
BUCKETS = frozenset({size.CORE, size.HELPERS, size.LIBC, size.LINKER, size.UNATTRIBUTED})
EXTRACTION_REPEAT = 5


def ops_by_source() -> dict[str, list[str]]:
    """Kernel source file name -> the ops it defines (for the linker-map attribution)."""
    kernels = cmake.REPO_ROOT / "kernels"
    library = load_libraries([kernels / "portable" / "functions.yaml"])
    by_source: dict[str, list[str]] = {}
    for op, path in op_sources(library, sorted(kernels.rglob("*.cpp")), cmake.REPO_ROOT).items():
        by_source.setdefault(path.name, []).append(op)
    return by_source


def kernel_bytes(report: SizeReport) -> int:
    """Loadable bytes of the kernels: every op's own objects plus the shared kernel helpers and registration."""
    return sum(v for k, v in report.per_op.items() if k not in BUCKETS) + report.per_op.get(size.HELPERS, 0)


def measure(flavour: cmake.Flavour, arch: arches.Arch, work: Path, by_source: dict[str, list[str]]) -> SizeReport:
    """Builds `flavour` for `arch` (`SIZE_BUILD`) and measures its size probe."""
    flavour = cmake.Flavour(flavour.name, flavour.options, build_type=SIZE_BUILD, arch=arch.name)
    build_dir = cmake.build(flavour, targets=cmake.size_targets(arch))
    probe = build_dir / cmake.SIZE_PROBE
    return size.analyse(probe, build_dir / f"{cmake.SIZE_PROBE}.map", by_source, work, arch=arch)


def traced_yamls(work: Path, models: Iterable[str] | None = None) -> dict[str, Path]:
    """Each zoo model's traced selection (on the host tracer), written under `work`."""
    tracer = trace.tracer_runner()
    wanted = set(models) if models is not None else None
    out = {}
    for model in sorted(ZOO_DIR.glob("*.pte")):
        if wanted is not None and model.stem not in wanted:
            continue
        inputs = sorted(ZOO_DIR.glob(f"{model.stem}.input*.npy"))
        out[model.stem] = work / f"{model.stem}.yaml"
        oplist.dump(trace.trace_model(tracer, model, inputs, model.stem), out[model.stem])
    return out


def _pct(part: int, whole: int) -> str:
    return f"{part / whole:.1%}" if whole else "n/a"


def _row(
    name: str,
    n_ops: int,
    yaml_path: Path,
    arch: arches.Arch,
    all_ops: SizeReport,
    work: Path,
    by_source: dict[str, list[str]],
) -> str:
    """One selective runtime against all-ops: with and without dtype selection, and what dtype selection saves."""
    measured = {
        dtype_selective: measure(cmake.selective_flavour(yaml_path, dtype_selective), arch, work, by_source)
        for dtype_selective in (False, True)
    }
    plain, narrow = measured[False].vm_size, measured[True].vm_size
    saved = plain - narrow
    return (
        f"| {name} | {n_ops} | {plain:,} | {_pct(plain, all_ops.vm_size)} | {narrow:,} | "
        f"{_pct(narrow, all_ops.vm_size)} | {saved:,} ({_pct(saved, plain)}) | "
        f"{_pct(kernel_bytes(measured[True]), kernel_bytes(all_ops))} |"
    )


TABLE_HEAD = [
    "| runtime | ops | selective | % of all-ops | + dtype selection | % of all-ops | dtype selection saves |"
    " kernel bytes, % of all-ops kernels |",
    "|---|---:|---:|---:|---:|---:|---:|---:|",
]


def arch_sizes(
    arch: arches.Arch, apps: dict[str, Path], models: dict[str, Path], work: Path, by_source: dict[str, list[str]]
) -> list[str]:
    """One architecture: the all-ops runtime, each app's selective runtime (its checked-in yaml), and,
    when `models` is not empty, each model's own selective runtime."""
    heading = [f"### {arch.name} ({arch.description})", ""]
    missing = arches.missing_tools(arch, run=False)
    if missing is not None:
        return [*heading, f"Not measured: {missing}.", ""]
    try:
        all_ops = measure(cmake.Flavour("all-ops-size"), arch, work, by_source)
        app_rows = [
            _row(name, len(oplist.load(path).operators), path, arch, all_ops, work, by_source)
            for name, path in apps.items()
        ]
        model_rows = [
            _row(name, len(oplist.load(path).operators), path, arch, all_ops, work, by_source)
            for name, path in models.items()
        ]
    except BotError as exc:
        return [*heading, f"Not measured: {str(exc).splitlines()[0][:300]}", ""]
    fixed = all_ops.vm_size - kernel_bytes(all_ops)
    lines = [
        *heading,
        "| all-ops runtime | bytes |",
        "|---|---:|",
        f"| VM size (loadable sections) | {all_ops.vm_size:,} |",
        f"| of which kernels (ops, helpers, registration) | {kernel_bytes(all_ops):,} |",
        f"| of which fixed part (core, libc, linker) | {fixed:,} |",
        f"| .bss (apart) | {all_ops.bss:,} |",
        f"| stripped file (page padded) | {all_ops.file_size:,} |",
        "",
        "Apps (the targets of `.selective-build.yml`, built from their checked-in yaml):",
        "",
        *TABLE_HEAD,
        *app_rows,
        "",
    ]
    if model_rows:
        lines += ["Each zoo model alone (its traced yaml):", "", *TABLE_HEAD, *model_rows, ""]
    return lines


def app_yamls() -> dict[str, Path]:
    """Each target of this repo's config and its checked-in selected_operators.yaml."""
    cfg = config.load(cmake.REPO_ROOT)
    return {target.name: cmake.REPO_ROOT / target.yaml for target in cfg.targets}


def sizes(work: Path, models: Iterable[str] | None = None, arch_names: Iterable[str] = ARCHES) -> list[str]:
    work.mkdir(parents=True, exist_ok=True)
    yamls = traced_yamls(work, models)
    apps = app_yamls()
    by_source = ops_by_source()
    n_library = len(trace.declared_calls(trace.tracer_runner()))
    lines = [
        "## Selective runtime sizes",
        "",
        f"`runtime_size_probe` (loader + executor + registered kernels; `{SIZE_BUILD}`, gc-sections) per",
        "architecture: each app of `.selective-build.yml` on every architecture, and each zoo model alone",
        f"(its traced yaml, `python -m bot oplist --trace`) on {MODEL_ARCH}; with and without dtype selection.",
        "Sizes are exact VM bytes: the loadable sections of the stripped binary (code, read-only data, data,",
        "relocations, dynamic and unwind tables), summed without page padding, as the PR comment reports",
        "them; `.bss` is apart. Kernel bytes come from the linker map (bot/build/size.py): each op's objects plus",
        "the shared kernel helpers and the registration table; the fixed part (core, libc and C++ runtime,",
        "linker-generated tables and padding) is the rest.",
        "",
        f"The all-ops library holds {n_library} ops in every dtype ExecuTorch's portable kernels take. Goal: a",
        "selective runtime at most 5% of the all-ops runtime; the kernel bytes a runtime keeps (last column)",
        "are measured against it, while the fixed part every runtime carries keeps whole selective runtimes",
        "above it.",
        "",
    ]
    for name in arch_names:
        lines += arch_sizes(arches.get(name), apps, yamls if name == MODEL_ARCH else {}, work, by_source)
    return lines


def _time_ours(model: Path) -> float:
    start = time.perf_counter()
    oplist.from_program(pte.load(model), str(model))
    return time.perf_counter() - start


def _time_cli(cmd: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, check=True, capture_output=True)
    return time.perf_counter() - start


def extraction(work: Path) -> list[str]:
    rows = []
    for model in sorted(ZOO_DIR.glob("*.pte")):
        ours_cli = statistics.median(
            _time_cli([sys.executable, "-m", "bot", "oplist", str(model), "-o", str(work / "ours.yaml")])
            for _ in range(EXTRACTION_REPEAT)
        )
        theirs_cli = statistics.median(
            _time_cli(
                [
                    sys.executable,
                    "-m",
                    "executorch.codegen.tools.gen_oplist",
                    f"--model_file_path={model}",
                    f"--output_path={work / 'theirs.yaml'}",
                ]
            )
            for _ in range(EXTRACTION_REPEAT)
        )
        ours_fn = statistics.median(_time_ours(model) for _ in range(EXTRACTION_REPEAT))
        rows.append(
            f"| {model.stem} | {ours_cli * 1000:.0f} | {theirs_cli * 1000:.0f} | {theirs_cli / ours_cli:.1f}x | "
            f"{ours_fn * 1000:.1f} |"
        )
    return [
        "## Op extraction time",
        "",
        f"Median of {EXTRACTION_REPEAT} runs per model, as whole commands (process start included): ours is",
        "`python -m bot oplist M.pte -o out.yaml` (pure Python, no torch); theirs is",
        "`python -m executorch.codegen.tools.gen_oplist --model_file_path=M.pte`. The last column is our",
        "extraction alone, in process (parse + yaml model, no interpreter start).",
        "",
        "| model | ours (ms) | gen_oplist (ms) | speed-up | ours in-process (ms) |",
        "|---|---:|---:|---:|---:|",
        *rows,
        "",
    ]


def section(work: Path) -> list[str]:
    work.mkdir(parents=True, exist_ok=True)
    return sizes(work) + extraction(work)
