"""Latency against ExecuTorch's own C++ runtime (issue 13, honest benchmarks; not yet in BENCHMARKS.md).

Three ways to run one zoo model, all one thread, pinned to one core (`taskset -c 0`), each figure the
median over several processes of each process's median iteration:

- ``ours``: our all-ops runtime (bot/build.py ALL_OPS: Release, ``-O3 -DNDEBUG`` plus native/CMakeLists.txt's
  flags), ``executor_runner --repeat N``; single-threaded by construction.
- ``et-optimized``: native/et_bench's ``et_bench_optimized``, the executorch wheel's ``libexecutorch.so`` with
  ``libexecutorch_kernels_optimized.so``, on the same ``.pte``. The thread pool those kernels share is reset
  to one thread; the runner reports the pool's and the process's thread count, checked here.
- ``et-xnnpack``: ``et_bench_xnnpack`` (adds ``libexecutorch_backend_xnnpack.so``) on the same torch model
  exported with the XNNPACK partitioner (models/export.py ``to_delegated_pte``), cached per versions.

Both runners time the same thing: one warm-up execute, then N iterations of (set every input, execute).
The wheel's libraries are prebuilt (their flags are the wheel's); only the small et_bench driver is
compiled here (Release, ``-O3 -DNDEBUG``).

``python -m benchmarks.etcpp resnet gru`` prints a table (interleaved: one process of each variant in turn).
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
from pathlib import Path

from bot import build
from bot.errors import BotError, ExitCode

SOURCE = build.REPO_ROOT / "native" / "et_bench"
ZOO_DIR = build.REPO_ROOT / "models" / "zoo"
VARIANTS = ("ours", "et-optimized", "et-xnnpack")
PROCESSES = 5
REPEAT = 50
PIN = ("taskset", "-c", "0")


def _versions() -> str:
    import executorch.version
    import torch

    return f"et{executorch.version.__version__}-torch{torch.__version__}".replace("+", "_")


def _executorch_cmake_dir() -> Path:
    import executorch

    return Path(next(iter(executorch.__path__))) / "lib" / "cmake"


def build_runner() -> Path:
    """Configure (once) and build native/et_bench in the bot's cache; the build directory."""
    out = build.cache_dir() / "et_bench" / _versions()
    out.mkdir(parents=True, exist_ok=True)
    steps = []
    if not (out / "build.ninja").is_file():
        steps.append(
            [
                build._tool("cmake"),
                "-S",
                str(SOURCE),
                "-B",
                str(out),
                "-G",
                "Ninja",
                f"-DCMAKE_MAKE_PROGRAM={build._tool('ninja')}",
                "-DCMAKE_BUILD_TYPE=Release",
                f"-DCMAKE_PREFIX_PATH={_executorch_cmake_dir()}",
            ]
        )
    steps.append([build._tool("ninja"), "-C", str(out)])
    for cmd in steps:
        done = subprocess.run(cmd, capture_output=True, text=True)
        if done.returncode != 0:
            tail = "\n".join((done.stdout + done.stderr).splitlines()[-30:])
            raise BotError(f"building native/et_bench failed:\n{tail}", ExitCode.BUILD)
    return out


def zoo_inputs(name: str) -> list[Path]:
    return sorted(ZOO_DIR.glob(f"{name}.input*.npy"))


def delegated_pte(name: str) -> Path:
    """The zoo model `name` exported with the XNNPACK partitioner (cached by executorch/torch version)."""
    out = build.cache_dir() / "et_bench" / "xnnpack-pte" / _versions() / f"{name}.pte"
    if not out.is_file():
        from models import export

        model, inputs = export.build(name)
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp = out.with_suffix(".tmp")
        tmp.write_bytes(export.to_delegated_pte(model, inputs))
        tmp.replace(out)
    return out


def _one_process(cmd: list[str], variant: str) -> float:
    done = subprocess.run([*PIN, *cmd], capture_output=True, text=True)
    if done.returncode != 0:
        raise BotError(f"{variant}: {' '.join(cmd)} failed: {done.stderr.strip()[-500:]}", ExitCode.BUILD)
    if variant == "ours":
        line = next(ln for ln in done.stdout.splitlines() if ln.startswith("latency_ms_median"))
        return float(line.split()[1]) * 1000.0
    result = json.loads(done.stdout.strip().splitlines()[-1])
    if result["pool_threads"] != 1 or result["process_threads"] != 1:
        raise BotError(
            f"{variant}: ExecuTorch ran with {result['pool_threads']} pool threads, "
            f"{result['process_threads']} process threads (expected 1)",
            ExitCode.BUILD,
        )
    return float(result["median_us"])


def command(model_path: Path, variant: str, inputs: list[Path], repeat: int = REPEAT) -> list[str]:
    if variant == "ours":
        binary = build.runner_path(build.build(build.ALL_OPS))
    elif variant in ("et-optimized", "et-xnnpack"):
        binary = build_runner() / f"et_bench_{variant.removeprefix('et-')}"
    else:
        raise ValueError(f"unknown variant {variant!r}; one of {VARIANTS}")
    cmd = [str(binary), "--model", str(model_path), "--repeat", str(repeat)]
    for path in inputs:
        cmd += ["--input", str(path)]
    if variant != "ours":
        cmd += ["--threads", "1"]
    return cmd


def measure(model_path: Path, variant: str, inputs: list[Path] | None = None, processes: int = PROCESSES) -> float:
    """Median µs per iteration of `model_path` under `variant`: the median of `processes` runs' medians.

    Inputs default to the zoo's saved inputs for a model of the same name. For ``et-xnnpack`` pass a
    delegated program (``delegated_pte``); the plain program runs there on the optimized kernels.
    """
    inputs = zoo_inputs(model_path.stem) if inputs is None else inputs
    cmd = command(model_path, variant, inputs)
    return statistics.median(_one_process(cmd, variant) for _ in range(processes))


def compare(name: str, processes: int = PROCESSES) -> dict[str, float]:
    """All three variants on zoo model `name`, interleaved process by process; median µs per variant."""
    inputs = zoo_inputs(name)
    plain = ZOO_DIR / f"{name}.pte"
    cmds = {
        "ours": command(plain, "ours", inputs),
        "et-optimized": command(plain, "et-optimized", inputs),
        "et-xnnpack": command(delegated_pte(name), "et-xnnpack", inputs),
    }
    samples: dict[str, list[float]] = {variant: [] for variant in cmds}
    for _ in range(processes):
        for variant, cmd in cmds.items():
            samples[variant].append(_one_process(cmd, variant))
    return {variant: statistics.median(values) for variant, values in samples.items()}


def main(names: list[str]) -> None:
    print("| model | ours portable (µs) | ET optimized kernels (µs) | ET XNNPACK (µs) | ours/ET-opt | ours/XNNPACK |")
    print("|---|---:|---:|---:|---:|---:|")
    for name in names:
        r = compare(name)
        ours, opt, xnn = r["ours"], r["et-optimized"], r["et-xnnpack"]
        print(f"| {name} | {ours:.1f} | {opt:.1f} | {xnn:.1f} | {ours / opt:.2f} | {ours / xnn:.2f} |", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:] or ["resnet", "mobilenet_v2", "squeezenet", "gru", "lstm_tagger"])
