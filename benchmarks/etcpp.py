"""Latency of one zoo model four ways, against ExecuTorch's own C++ runtime (issue 13, honest benchmarks).

Every variant runs the model's saved inputs (models/zoo/<name>.input*.npy), on one thread pinned to
one core (`taskset -c 0`), or with SB_BENCH_THREADS=2 on two pinned to two cores; each figure is the
median over several processes of each process's median iteration. Both runners time the same thing:
one warm-up execute, then N iterations of (set every input, execute).

- ``portable``: our all-ops runtime, portable kernels only (bot/build/cmake.py ``ALL_OPS``, the compiler's
  default cpu), ``executor_runner --repeat N``; single-threaded by construction.
- ``optimized``: our all-ops runtime with the optimized library preferred wherever it has a kernel
  (``cmake.optimized_all_ops(cpu)``, ``-march=<cpu>``; ``host_cpu()`` picks the cpu).
- ``et-optimized``: native/et_bench's ``et_bench_optimized``, the executorch wheel's ``libexecutorch.so``
  with ``libexecutorch_kernels_optimized.so``, on the same ``.pte``. The thread pool those kernels share
  is reset to one thread; the runner reports the pool's and the process's thread count, checked here.
- ``et-xnnpack``: ``et_bench_xnnpack`` (adds ``libexecutorch_backend_xnnpack.so``) on the same torch model
  exported with the XNNPACK partitioner (``delegated_pte``; dynamic models keep their dynamic dims, so
  the saved inputs fit), cached per versions.

The wheel's libraries are prebuilt (their flags are the wheel's); only the small et_bench driver is
compiled here.

``python -m benchmarks.etcpp resnet gru`` prints the raw medians (interleaved: one process of each
variant in turn, the order rotating round by round).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from bot.build import cmake
from bot.errors import BotError, ExitCode

SOURCE = cmake.REPO_ROOT / "native" / "et_bench"
ZOO_DIR = cmake.REPO_ROOT / "models" / "zoo"
VARIANTS = ("portable", "optimized", "et-optimized", "et-xnnpack")
OURS = frozenset({"portable", "optimized"})
PROCESSES = 5
REPEAT = 30
MAX_THREADS = 2  # the counts measured: 1 and 2 (issue 24)
T = TypeVar("T")
THREAD_COUNTS = tuple(range(1, MAX_THREADS + 1))  # what the full `python -m benchmarks` measures
# x86-64-v4's -march requires these (AVX-512 F/BW/CD/DQ/VL); v3 these (AVX2, FMA, BMI1/2, MOVBE, ...).
V4_FLAGS = frozenset({"avx512f", "avx512bw", "avx512cd", "avx512dq", "avx512vl"})
V3_FLAGS = frozenset({"avx", "avx2", "bmi1", "bmi2", "f16c", "fma", "movbe", "xsave"})


def processes() -> int:
    """Processes per variant (env SB_BENCH_PROCESSES, default 5)."""
    return max(1, int(os.environ.get("SB_BENCH_PROCESSES", PROCESSES)))


def threads() -> int:
    """Threads every variant runs on (env SB_BENCH_THREADS, 1 or 2; default 1): ours through
    executor_runner --threads, ExecuTorch's pool reset to the same count and checked."""
    value = os.environ.get("SB_BENCH_THREADS", "1").strip()
    if value not in {str(n) for n in range(1, MAX_THREADS + 1)}:
        raise BotError(f"SB_BENCH_THREADS {value!r}: give 1 to {MAX_THREADS}", ExitCode.USAGE)
    return int(value)


@contextlib.contextmanager
def on_threads(count: int) -> Iterator[None]:
    """Every measurement made inside runs on `count` threads (what threads() reads, restored after)."""
    saved = os.environ.get("SB_BENCH_THREADS")
    os.environ["SB_BENCH_THREADS"] = str(count)
    try:
        yield
    finally:
        if saved is None:
            os.environ.pop("SB_BENCH_THREADS", None)
        else:
            os.environ["SB_BENCH_THREADS"] = saved


def at_each_count(thread_counts: Sequence[int] | None, measure: Callable[[], T]) -> dict[int, T]:
    """`measure()` run on each of `thread_counts` (default: SB_BENCH_THREADS alone), by count, fewest first."""
    found: dict[int, T] = {}
    for count in sorted(set(thread_counts)) if thread_counts else [threads()]:
        with on_threads(count):
            found[count] = measure()
    return found


def pin() -> tuple[str, ...]:
    """The cores a measured process is pinned to: one per thread, from core 0."""
    return ("taskset", "-c", ",".join(str(core) for core in range(threads())))


def repeat() -> int:
    """Timed iterations per process (env SB_BENCH_REPEAT, default 30)."""
    return max(1, int(os.environ.get("SB_BENCH_REPEAT", REPEAT)))


def _cpu_flags() -> frozenset[str]:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("flags"):
                return frozenset(line.split(":", 1)[1].split())
    except OSError:
        pass
    return frozenset()


def host_cpu() -> str | None:
    """The -march of the optimized runtime: x86-64-v4 on a host with AVX-512, else x86-64-v3 with AVX2,
    else None (the compiler's default)."""
    flags = _cpu_flags()
    if flags >= V4_FLAGS:
        return "x86-64-v4"
    if flags >= V3_FLAGS:
        return "x86-64-v3"
    return None


def _versions() -> str:
    import executorch.version
    import torch

    return f"et{executorch.version.__version__}-torch{torch.__version__}".replace("+", "_")


def executorch_lib_dir() -> Path:
    import executorch

    return Path(next(iter(executorch.__path__))) / "lib"


def build_runner() -> Path:
    """Configure (once) and build native/et_bench in the bot's cache; the build directory.

    Keyed by the versions and by this checkout's source directory, so each checkout builds its own."""
    source_key = hashlib.sha256(str(SOURCE.resolve()).encode()).hexdigest()[:10]
    out = cmake.cache_dir() / "et_bench" / f"{_versions()}-{source_key}"
    out.mkdir(parents=True, exist_ok=True)
    steps = []
    if not (out / "build.ninja").is_file():
        steps.append(
            [
                cmake._tool("cmake"),
                "-S",
                str(SOURCE),
                "-B",
                str(out),
                "-G",
                "Ninja",
                f"-DCMAKE_MAKE_PROGRAM={cmake._tool('ninja')}",
                "-DCMAKE_BUILD_TYPE=Release",
                f"-DCMAKE_PREFIX_PATH={executorch_lib_dir() / 'cmake'}",
            ]
        )
    steps.append([cmake._tool("ninja"), "-C", str(out)])
    for cmd in steps:
        done = subprocess.run(cmd, capture_output=True, text=True)
        if done.returncode != 0:
            tail = "\n".join((done.stdout + done.stderr).splitlines()[-30:])
            raise BotError(f"building native/et_bench failed:\n{tail}", ExitCode.BUILD)
    return out


def ours_flavour(variant: str, cpu: str | None) -> cmake.Flavour:
    if variant == "portable":
        return cmake.ALL_OPS
    if variant == "optimized":
        return cmake.optimized_all_ops(cpu)
    raise ValueError(f"not one of our variants: {variant!r}")


def zoo_inputs(name: str) -> list[Path]:
    return sorted(ZOO_DIR.glob(f"{name}.input*.npy"), key=lambda p: int(p.stem.rsplit("input", 1)[1]))


def delegated_pte(name: str) -> Path:
    """The zoo model `name` exported with the XNNPACK partitioner (cached by executorch/torch version).

    A dynamic model (models/export.py DYNAMIC) is exported with its dynamic dims, as the zoo's is, so
    the saved inputs (taken at another shape than the traced one) fit it."""
    out = cmake.cache_dir() / "et_bench" / "xnnpack-pte" / _versions() / f"{name}.pte"
    if not out.is_file():
        import torch
        from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
        from executorch.exir import to_edge_transform_and_lower

        from models import export

        model, inputs = export.build(name)
        dims = export.DYNAMIC[name][0]() if name in export.DYNAMIC else None
        with torch.no_grad():
            exported = torch.export.export(model, inputs, dynamic_shapes=dims)
        program = to_edge_transform_and_lower(exported, partitioner=[XnnpackPartitioner()]).to_executorch()
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp = out.with_suffix(".tmp")
        tmp.write_bytes(program.buffer)
        tmp.replace(out)
    return out


def one_line(exc: BaseException) -> str:
    """An exception as one short line (the table's reason for a missing figure)."""
    text = " ".join(str(exc).split()) or type(exc).__name__
    return f"{type(exc).__name__}: {text}"[:160]


def _one_process(cmd: list[str], variant: str) -> float:
    done = subprocess.run([*pin(), *cmd], capture_output=True, text=True)
    if done.returncode != 0:
        err = " ".join((done.stderr.strip() or done.stdout.strip()).splitlines()[-3:])
        raise BotError(f"{variant} exited {done.returncode}: {err[-300:]}", ExitCode.BUILD)
    if variant in OURS:
        line = next(ln for ln in done.stdout.splitlines() if ln.startswith("latency_ms_median"))
        return float(line.split()[1]) * 1000.0
    result = json.loads(done.stdout.strip().splitlines()[-1])
    want = threads()
    if result["pool_threads"] != want or result["process_threads"] != want:
        raise BotError(
            f"{variant}: ExecuTorch ran with {result['pool_threads']} pool threads, "
            f"{result['process_threads']} process threads (expected {want})",
            ExitCode.BUILD,
        )
    return float(result["median_us"])


def command(binary: Path, model_path: Path, variant: str, inputs: list[Path], iterations: int) -> list[str]:
    cmd = [str(binary), "--model", str(model_path), "--repeat", str(iterations)]
    for path in inputs:
        cmd += ["--input", str(path)]
    if variant not in OURS or threads() > 1:
        cmd += ["--threads", str(threads())]
    return cmd


@dataclass
class Figures:
    """One model's medians in µs per variant; a variant not measured has its one-line reason instead.
    `errors`: per variant, the largest error of its outputs against the zoo's expected outputs
    (ExecuTorch's reference, bot/build/compare.py's measure), from one untimed run."""

    name: str
    us: dict[str, float] = field(default_factory=dict)
    notes: dict[str, str] = field(default_factory=dict)
    samples: dict[str, list[float]] = field(default_factory=dict)
    errors: dict[str, float] = field(default_factory=dict)


def zoo_expected(name: str) -> list[Path]:
    return sorted(ZOO_DIR.glob(f"{name}.expected*.npy"), key=lambda p: int(p.stem.rsplit("expected", 1)[1]))


def output_error(cmd: list[str], variant: str, expected: list[Path]) -> float:
    """Runs `cmd` once more (one iteration) writing its outputs; their largest error against `expected`."""
    import numpy as np

    from bot.build.compare import max_error

    with tempfile.TemporaryDirectory() as tmp:
        at = cmd.index("--repeat")
        check = [*cmd[:at], "--repeat", "1", *cmd[at + 2 :], "--output-dir", tmp]
        _one_process(check, variant)
        worst = 0.0
        for i, path in enumerate(expected):
            got = Path(tmp) / f"output{i}.npy"
            if not got.is_file():
                return math.inf
            actual, reference = np.load(got), np.load(path)
            if actual.shape != reference.shape:
                return math.inf
            worst = max(worst, max_error(actual, reference))
        return worst


class Binaries:
    """The four runners, built on first use (a variant whose build fails is reported, not raised)."""

    def __init__(self, cpu: str | None) -> None:
        self.cpu = cpu
        self._built: dict[str, Path | BaseException] = {}

    def get(self, variant: str) -> Path:
        if variant not in self._built:
            try:
                if variant in OURS:
                    self._built[variant] = cmake.runner_path(cmake.build(ours_flavour(variant, self.cpu)))
                else:
                    self._built[variant] = build_runner() / f"et_bench_{variant.removeprefix('et-')}"
            except BotError as exc:
                self._built[variant] = exc
        found = self._built[variant]
        if isinstance(found, BaseException):
            raise found
        return found


def compare(
    name: str,
    binaries: Binaries,
    variants: Sequence[str] = VARIANTS,
    n_processes: int | None = None,
    iterations: int | None = None,
) -> Figures:
    """The variants on zoo model `name` (ExecuTorch's XNNPACK on its delegated export), interleaved process
    by process (the order rotating each round); the median µs per variant. A variant that cannot run gets
    its reason in `notes`."""
    iterations = repeat() if iterations is None else iterations
    figures = Figures(name)
    inputs = zoo_inputs(name)
    plain = ZOO_DIR / f"{name}.pte"
    cmds: dict[str, list[str]] = {}
    for variant in variants:
        try:
            model = delegated_pte(name) if variant == "et-xnnpack" else plain
            cmds[variant] = command(binaries.get(variant), model, variant, inputs, iterations)
        except Exception as exc:  # an export or build failure is a row's note
            figures.notes[variant] = ("delegated export failed: " if variant == "et-xnnpack" else "") + one_line(exc)
    return measure(figures, cmds, zoo_expected(name), n_processes)


def compare_program(
    name: str,
    program: Path,
    inputs: list[Path],
    expected: list[Path],
    binaries: Binaries,
    variants: Sequence[str] = ("optimized", "et-xnnpack"),
    n_processes: int | None = None,
) -> Figures:
    """The variants on the same program (a delegated one: ours runs its delegates on XnnpackBackend,
    ExecuTorch on XNNPACK), measured as `compare` does."""
    figures = Figures(name)
    cmds: dict[str, list[str]] = {}
    for variant in variants:
        try:
            cmds[variant] = command(binaries.get(variant), program, variant, inputs, repeat())
        except Exception as exc:  # a build failure is a row's note
            figures.notes[variant] = one_line(exc)
    return measure(figures, cmds, expected, n_processes)


def measure(figures: Figures, cmds: dict[str, list[str]], expected: list[Path], n_processes: int | None) -> Figures:
    """Each command's output error against `expected` (one untimed run), then the commands interleaved
    process by process, the order rotating each round; the median µs per variant into `figures`."""
    n_processes = processes() if n_processes is None else n_processes
    for variant, cmd in cmds.items():
        try:
            figures.errors[variant] = output_error(cmd, variant, expected)
        except (BotError, StopIteration, ValueError, KeyError) as exc:
            figures.notes[variant] = one_line(exc)
    order = list(cmds)
    for round_ in range(n_processes):
        k = round_ % len(order) if order else 0
        for variant in order[k:] + order[:k]:
            if variant in figures.notes:
                continue
            try:
                figures.samples.setdefault(variant, []).append(_one_process(cmds[variant], variant))
            except (BotError, StopIteration, ValueError, KeyError) as exc:
                figures.notes[variant] = one_line(exc)
    for variant, values in figures.samples.items():
        if variant not in figures.notes and values:
            figures.us[variant] = statistics.median(values)
    return figures


def main(names: list[str]) -> None:
    binaries = Binaries(host_cpu())
    print(f"| model | {' | '.join(f'{v} (µs)' for v in VARIANTS)} |")
    print("|---|" + "---:|" * len(VARIANTS))
    for name in names:
        f = compare(name, binaries)
        cells = [f"{f.us[v]:.1f}" if v in f.us else f"n/a: {f.notes.get(v, '')}" for v in VARIANTS]
        print(f"| {name} | {' | '.join(cells)} |", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:] or ["resnet", "mobilenet_v2", "squeezenet", "gru", "lstm_tagger"])
