"""BENCHMARKS.md's delegated-programs section (issue 21): the XNNPACK-delegated zoo (models/delegated) run by
our XnnpackBackend and by ExecuTorch with XNNPACK on the same `.pte`, on SB_BENCH_THREADS each, medians over
interleaved processes; and the selective runtimes of apps whose models are all delegated, delegate
included, against `libexecutorch_backend_xnnpack.so`.

The rendering (`latency_lines`, `size_lines`) is pure: figures in, markdown out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from benchmarks import etcpp, latency
from bot.build import bundle, cmake
from bot.selection import oplist, pte, xnnpack
from bot.selection.kernel_library import load_libraries

DELEGATED_DIR = cmake.REPO_ROOT / "models" / "delegated"
APP_YAML = cmake.REPO_ROOT / "apps" / "delegated" / "selected_operators.yaml"
OPLIST_DIR = cmake.REPO_ROOT / "models" / "oplist"
GATE = 1.5  # this speed gate: ours within 1.5x of ExecuTorch+XNNPACK on the same program, per CNN
SIZE_FRACTION = 20  # an all-delegated app's selective runtime under 1/20 of libexecutorch_backend_xnnpack.so
CNNS = ("cnn_dynamic_batch", "mobilenet_v2", "resnet", "squeezenet", "tv_mobilenet_v3")


def numbered(name: str, kind: str) -> list[Path]:
    return sorted(DELEGATED_DIR.glob(f"{name}.{kind}*.npy"), key=lambda p: int(p.stem.rsplit(kind, 1)[1]))


def programs() -> list[str]:
    return sorted(p.stem for p in DELEGATED_DIR.glob("*.pte"))


def is_cnn(name: str) -> bool:
    return name.split("_xnn_")[0] in CNNS


# ---------------------------------------------------------------- latency


def measure_latency(names: Sequence[str], cpu: str | None) -> list[etcpp.Figures]:
    binaries = etcpp.Binaries(cpu)
    return [
        etcpp.compare_program(
            name, DELEGATED_DIR / f"{name}.pte", numbered(name, "input"), numbered(name, "expected"), binaries
        )
        for name in names
    ]


def latency_lines(figures: Sequence[etcpp.Figures]) -> list[str]:
    lines = [
        "| program | ours: XnnpackBackend on our optimized kernels (µs) | ExecuTorch + XNNPACK (µs) | ratio |"
        " ours max error | ExecuTorch max error |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    over: list[str] = []
    missing: list[str] = []
    for f in figures:
        ours, theirs = f.us.get("optimized"), f.us.get("et-xnnpack")
        ratio = ours / theirs if ours is not None and theirs else None
        cells = [
            f"{ours:.1f}" if ours is not None else f"n/a: {f.notes.get('optimized', '')}",
            f"{theirs:.1f}" if theirs is not None else f"n/a: {f.notes.get('et-xnnpack', '')}",
            f"{ratio:.2f}" if ratio is not None else "n/a",
            f"{f.errors['optimized']:.2g}" if "optimized" in f.errors else "n/a",
            f"{f.errors['et-xnnpack']:.2g}" if "et-xnnpack" in f.errors else "n/a",
        ]
        lines.append(f"| {f.name} | {' | '.join(cells)} |")
        if is_cnn(f.name):
            if ratio is None:
                missing.append(f.name)
            elif ratio > GATE:
                over.append(f"{f.name} ({ratio:.2f})")
    lines.append("")
    slower = [f"{f.name} ({f.us['optimized'] / f.us['et-xnnpack']:.2f})" for f in figures if _slower(f)]
    lines.append(
        f"- **Each program at or under ExecuTorch + XNNPACK: {'not met' if slower else 'met'}**"
        + (f"; slower: {', '.join(slower)}." if slower else f" by all {len(figures)}.")
    )
    cnns = [f.name for f in figures if is_cnn(f.name)]
    if missing:
        lines.append(f"- **Gate (each delegated CNN within {GATE}x): not determined** for {', '.join(missing)}.")
    elif over:
        lines.append(
            f"- **Gate (each delegated CNN within {GATE}x): not met** by {len(over)} of {len(cnns)}: {', '.join(over)}."
        )
    else:
        lines.append(f"- **Gate (each delegated CNN within {GATE}x): met** by all {len(cnns)}.")
    lines.append("")
    return lines


def _slower(f: etcpp.Figures) -> bool:
    ours, theirs = f.us.get("optimized"), f.us.get("et-xnnpack")
    return ours is not None and theirs is not None and ours > theirs


# ---------------------------------------------------------------- size


@dataclass(frozen=True)
class AppSize:
    name: str
    models: int
    ops: int  # node kinds and ops selected
    portable: int | None
    optimized: int | None
    note: str = ""


def fully_delegated(name: str) -> bool:
    """Whether the program runs everything inside its delegates (its plan calls no operator)."""
    return not pte.load(DELEGATED_DIR / f"{name}.pte").plan().operators


def delegated_only_yaml(work: Path) -> tuple[Path, list[str]]:
    """The selection of an app whose models are all delegated (every program of the delegated zoo that
    calls no operator outside its delegates), merged from their per-model yamls; and those programs."""
    chosen = [name for name in programs() if fully_delegated(name) and (OPLIST_DIR / f"{name}.yaml").is_file()]
    path = work / "fully_delegated.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    oplist.dump(oplist.merge(oplist.load(OPLIST_DIR / f"{name}.yaml") for name in chosen), path)
    return path, chosen


def measure_sizes(cpu: str | None, work: Path) -> list[AppSize]:
    rows = []
    only, chosen = delegated_only_yaml(work)
    apps = ((f"all delegated: {', '.join(chosen)}", only), ("delegated-app (this repo's config)", APP_YAML))
    for index, (name, path) in enumerate(apps):
        selection = oplist.load(path)
        models = len({m for op in selection.operators.values() for m in op.models()})
        measured, note = latency.selective_sizes(path, cpu, work / f"app{index}")
        rows.append(AppSize(name, models, len(selection.operators), measured["portable"], measured["optimized"], note))
    return rows


def size_lines(rows: Sequence[AppSize], xnnpack_lib: latency.LibSize | None) -> list[str]:
    limit = xnnpack_lib.vm_size / SIZE_FRACTION if xnnpack_lib else None
    lines = [
        f"| app | models | ops and node kinds | ours portable selective | ours optimized selective |"
        f" portable / `{latency.XNNPACK_LIB}` | under 1/{SIZE_FRACTION} |",
        "|---|---:|---:|---:|---:|---:|:-:|",
    ]
    for r in rows:
        port = f"{r.portable:,}" if r.portable is not None else f"n/a ({r.note})"
        opt = f"{r.optimized:,}" if r.optimized is not None else f"n/a ({r.note})"
        frac = f"{r.portable / xnnpack_lib.vm_size:.3f}" if xnnpack_lib and r.portable is not None else "n/a"
        under = "n/a" if limit is None or r.portable is None else ("yes" if r.portable < limit else "**no**")
        lines.append(f"| {r.name} | {r.models} | {r.ops} | {port} | {opt} | {frac} | {under} |")
    lines.append("")
    if xnnpack_lib is not None:
        lines.append(
            f"`{latency.XNNPACK_LIB}` alone is {xnnpack_lib.vm_size:,} VM bytes (stripped), before the runtime and "
            "kernels it needs. Ours are whole runtimes: core, the backend (payload reader and planner), the node "
            "kinds the apps' delegates hold and the kernels they call, and the ops outside the delegates."
        )
        lines.append("")
    return lines


def section(work: Path, names: Sequence[str] | None = None, thread_counts: Sequence[int] | None = None) -> list[str]:
    """The section at each of `thread_counts` (default: SB_BENCH_THREADS alone), with the scaling between them."""
    cpu = etcpp.host_cpu()
    names = list(names) if names is not None else programs()
    wheel = {lib.name: lib for lib in latency.wheel_sizes(work)}
    runnable = [n for n in names if not _unsupported(n)]
    at = etcpp.at_each_count(thread_counts, lambda: measure_latency(runnable, cpu))
    lines = [
        "## Delegated programs: XnnpackBackend against ExecuTorch with XNNPACK",
        "",
        "The XNNPACK-delegated zoo (`models/delegated`, ExecuTorch's partitioner and quantizer) on the same `.pte`:",
        "ours runs its delegates on `XnnpackBackend` (the all-ops runtime, optimized kernels), ExecuTorch on its",
        "XNNPACK backend (`et_bench`), on the same number of threads (ours `--threads N`, ExecuTorch's pool reset",
        f"to N and checked). {etcpp.processes()} processes each, pinned to N cores, interleaved,",
        f"{etcpp.repeat()} timed runs per process; the median. Errors are the largest absolute difference from",
        "ExecuTorch's reference outputs.",
        "",
    ]
    for count, figures in at.items():
        lines += [latency.thread_heading(count), "", *latency_lines(figures)]
    lines += latency.scaling_lines(at)
    skipped = [n for n in names if n not in runnable]
    if skipped:
        lines += [f"Not run (node kinds without a kernel yet): {', '.join(skipped)}.", ""]
    lines += [
        "### Selective runtimes of delegated apps",
        "",
        *size_lines(measure_sizes(cpu, work), wheel.get(latency.XNNPACK_LIB)),
    ]
    return lines


def _unsupported(name: str) -> bool:
    """A program whose node kinds include one no kernel implements yet (dynamic quantization today)."""
    kinds = xnnpack.program_node_kinds(DELEGATED_DIR / f"{name}.pte")
    implemented = set(load_libraries([cmake.REPO_ROOT / bundle.NODE_KIND_LIBRARY]))
    return any(kind not in implemented for kind in kinds)
