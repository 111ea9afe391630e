"""Static graph timing and a long fuzz session."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from bot.build import cmake
from bot.selection import depgraph, trace
from bot.selection.kernel_library import load_libraries

ROOT = cmake.REPO_ROOT
FUZZ = cmake.Flavour("fuzz", {"SB_FUZZ": "ON", "SELECT_ALL_OPS": "ON", "CMAKE_CXX_COMPILER": "clang++"})
FUZZ_SECONDS = int(os.environ.get("SB_BENCH_FUZZ_SECONDS", "600"))
LOAD_FUZZ_SECONDS = int(os.environ.get("SB_BENCH_LOAD_FUZZ_SECONDS", "300"))


def graph_section(work: Path) -> list[str]:
    library = load_libraries([ROOT / "kernels" / "portable" / "functions.yaml"])
    # Cold: the whole kernel library compiled from nothing, ccache off, then read.
    cold_dir = work / "cold-build"
    env_before = os.environ.get("CCACHE_DISABLE")
    os.environ["CCACHE_DISABLE"] = "1"
    try:
        start = time.perf_counter()
        cmake.build(trace.TRACER, targets=("sb_selected_kernels",), build_dir=cold_dir)
        compile_s = time.perf_counter() - start
    finally:
        if env_before is None:
            os.environ.pop("CCACHE_DISABLE")
        else:
            os.environ["CCACHE_DISABLE"] = env_before
    start = time.perf_counter()
    graph = depgraph.from_build(cold_dir, library)
    read_s = time.perf_counter() - start
    objects = len(depgraph.object_files(cold_dir))
    # In the PR pipeline the tracer build already compiled the kernels: the
    # graph costs a no-op build check plus the read, once for head, once for base.
    samples = []
    for _ in range(3):
        start = time.perf_counter()
        depgraph.graph_for_checkout(ROOT / "native", library)
        samples.append(time.perf_counter() - start)
    incremental = sorted(samples)[1]
    return [
        "## Static op graph",
        "",
        f"The kernel library ({len(library)} kernels, {objects} objects) compiled from nothing with ccache off,",
        f"then read with pyelftools: {len(graph.edges)} edges.",
        "",
        "| step | seconds |",
        "|---|---:|",
        f"| compile the library (`-O2`, 2 cores, no ccache) | {compile_s:.1f} |",
        f"| read the objects and build the graph | {read_s:.2f} |",
        f"| per checkout in the PR pipeline: up-to-date build check + read (median of 3) | {incremental:.2f} |",
        "",
        "The pipeline reads it twice (base and head), and the kernels are compiled anyway for the tracer.",
        "",
    ]


@dataclass(frozen=True)
class FuzzRun:
    seconds: int
    runs: int
    cov: str
    ft: str
    corpus_units: int
    crashes: list[str]

    @property
    def exec_per_s(self) -> float:
        return self.runs / max(self.seconds, 1)


def fuzz_run(fuzzer: Path, seconds: int, work: Path, artifacts: Path) -> FuzzRun:
    """One libFuzzer session of `fuzzer` seeded with the zoo."""
    corpus = work / "corpus"
    corpus.mkdir(parents=True)
    for model in (ROOT / "models" / "zoo").glob("*.pte"):
        shutil.copy2(model, corpus)
    started = time.time()
    proc = subprocess.run(
        [str(fuzzer), f"-max_total_time={seconds}", "-rss_limit_mb=2048", "-print_final_stats=1",
         f"-artifact_prefix={artifacts}/{fuzzer.name}-", str(corpus)],
        capture_output=True,
        text=True,
    )  # fmt: skip
    stats = dict(re.findall(r"^stat::(\w+):\s+(\d+)", proc.stderr, re.MULTILINE))
    last = [ln for ln in proc.stderr.splitlines() if re.match(r"#\d+", ln)]
    cov = re.search(r"cov: (\d+) ft: (\d+)", last[-1]) if last else None
    return FuzzRun(
        seconds=int(stats.get("total_time", seconds)),
        runs=int(stats.get("number_of_executed_units", 0)),
        cov=cov.group(1) if cov else "n/a",
        ft=cov.group(2) if cov else "n/a",
        corpus_units=len(list(corpus.iterdir())),
        crashes=sorted(p.name for p in artifacts.glob(f"{fuzzer.name}-crash-*") if p.stat().st_mtime >= started),
    )


def fuzz_section(work: Path) -> list[str]:
    artifacts = ROOT / cmake.BUILD_DIR_NAME / "fuzz-artifacts"  # kept: a crash must be reproducible
    artifacts.mkdir(parents=True, exist_ok=True)
    if shutil.which("clang++") is None:
        return ["## Fuzzing", "", "clang++ not installed: run scripts/setup.sh.", ""]
    build_dir = cmake.build(FUZZ, targets=("pte_fuzzer", "pte_load_fuzzer"))
    full = fuzz_run(build_dir / "pte_fuzzer", FUZZ_SECONDS, work / "full", artifacts)
    load = fuzz_run(build_dir / "pte_load_fuzzer", LOAD_FUZZ_SECONDS, work / "load", artifacts)

    def row(measure: str, a: object, b: object) -> str:
        return f"| {measure} | {a} | {b} |"

    return [
        "## Fuzzing",
        "",
        "Two libFuzzer targets (ASan + UBSan, clang), each seeded with the zoo: `pte_fuzzer` loads each input",
        "and, when the program loads, executes it on zero-filled inputs; `pte_load_fuzzer` only loads it",
        "(`Program::load` + `Method::load`), so it explores the parser at many more inputs per second.",
        "Both run under small budgets (64 MiB of memory, 256 MiB of work per input).",
        "",
        "| measure | `pte_fuzzer` (load + execute) | `pte_load_fuzzer` (load only) |",
        "|---|---:|---:|",
        row("seconds", full.seconds, load.seconds),
        row("executions", full.runs, load.runs),
        row("exec/s", f"{full.exec_per_s:.0f}", f"{load.exec_per_s:.0f}"),
        row("coverage (edges, `cov`)", full.cov, load.cov),
        row("features (`ft`)", full.ft, load.ft),
        row("corpus units at the end", full.corpus_units, load.corpus_units),
        row(
            f"crashes (kept in `{cmake.BUILD_DIR_NAME}/fuzz-artifacts/`)",
            f"{len(full.crashes)} {' '.join(full.crashes)}",
            f"{len(load.crashes)} {' '.join(load.crashes)}",
        ),
        "",
        "Crashes found while building this (one so far: misaligned constant data) are fixed and replayed",
        "by `tests/test_runtime_sanitized.py` from `tests/fuzz/crashes/`.",
        "",
    ]


def section(work: Path) -> list[str]:
    work.mkdir(parents=True, exist_ok=True)
    return graph_section(work / "graph") + fuzz_section(work / "fuzz")
