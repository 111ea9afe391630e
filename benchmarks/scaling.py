"""Scaling of ours optimized from 1 to 2 threads on the zoo: `python -m benchmarks.scaling [model ...]`.

Each model's optimized all-ops runtime (etcpp's `optimized` variant) runs `executor_runner --repeat N`
at `--threads 1` and `--threads 2`, both pinned to the same two cores (`taskset -c 0,1`), one process of
each in turn (the order rotating round by round), SB_BENCH_PROCESSES rounds; each figure is the median
over the processes of each process's median iteration, and the ratio is 2 threads over 1 (< 1: faster).
Prints a markdown table, and the machine's load average before and after (threads only help when the
second core is free). Default models: the zoo's CNNs (latency.is_cnn).
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
from pathlib import Path

from benchmarks import etcpp, latency

COUNTS = (1, 2)
CORES = ("taskset", "-c", "0,1")


def one_process(cmd: list[str]) -> float:
    """µs: the process's median iteration."""
    done = subprocess.run([*CORES, *cmd], capture_output=True, text=True, check=True)
    line = next(ln for ln in done.stdout.splitlines() if ln.startswith("latency_ms_median"))
    return float(line.split()[1]) * 1000.0


def scaling(runner: Path, name: str, processes: int, iterations: int) -> dict[int, float]:
    """Median µs per thread count, interleaved process by process."""
    base = [str(runner), "--model", str(etcpp.ZOO_DIR / f"{name}.pte"), "--repeat", str(iterations)]
    for path in etcpp.zoo_inputs(name):
        base += ["--input", str(path)]
    samples: dict[int, list[float]] = {n: [] for n in COUNTS}
    for round_ in range(processes):
        order = COUNTS if round_ % 2 == 0 else COUNTS[::-1]
        for n in order:
            samples[n].append(one_process([*base, "--threads", str(n)]))
    return {n: statistics.median(v) for n, v in samples.items()}


def main(names: list[str]) -> int:
    runner = etcpp.Binaries(etcpp.host_cpu()).get("optimized")
    if not names:
        names = [n for n in latency.zoo_models() if latency.is_cnn(etcpp.ZOO_DIR / f"{n}.pte")]
    processes, iterations = etcpp.processes(), etcpp.repeat()
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"{processes} processes per count, {iterations} iterations each, pinned `{' '.join(CORES)}`")
    print("| model | 1 thread (µs) | 2 threads (µs) | 2 / 1 |")
    print("|---|---:|---:|---:|")
    for name in names:
        us = scaling(runner, name, processes, iterations)
        print(f"| {name} | {us[1]:.1f} | {us[2]:.1f} | {us[2] / us[1]:.2f} |", flush=True)
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
