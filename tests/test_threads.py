"""The runtime's thread pool (sb/thread_pool.h): kernels split their loops over the caller's threads,
deterministically and without the heap.

Every zoo model and every XNNPACK-delegated program of models/delegated runs on the optimized all-ops
runtime at 1, 2 and 3 threads (executor_runner --threads): the outputs are the same bytes at every
count, and match ExecuTorch's references (1e-4; static int8 programs within one quantization step of
their output). execute() allocates nothing and starts no thread with a 2-thread pool; the zoo, the
delegated programs and the overridden ops' conformance fixtures run clean at 2 threads under
AddressSanitizer + UndefinedBehaviorSanitizer and under ThreadSanitizer. A runtime built without the
pool (SB_THREADS=OFF, as the Cortex-M toolchain builds) still runs, holds none of it, and refuses
--threads past 1 in one line; so are bad --threads values, in the runner and in `python -m bot run`.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pytest

from bot.build import arch as arches
from bot.build import cmake
from bot.build.compare import TOLERANCE, max_error
from bot.build.kernel_choice import KernelChoice
from bot.commands.inputs import MAX_THREADS
from tests.conformance import check
from tests.conftest import ZOO_DIR, ZOO_MODELS, zoo_expected, zoo_inputs
from tests.test_native_xnnpack import DELEGATED, PROGRAMS, STATIC_INT8, numbered, output_step
from tests.test_optimized import CPUS, OVERRIDDEN_FIXTURES, SANITIZER_REPORT, _require

THREAD_COUNTS = (1, 2, 3)
TSAN_REPORT = ("ThreadSanitizer", "data race")
# A few zoo models for the slow sanitizer builds: the CNNs whose kernels split most (GEMM, im2col and
# banded convolution, depthwise, pooling, element-wise), a transformer (softmax rows, bmm, reductions).
SANITIZED_ZOO = ("resnet", "mobilenet_v2", "squeezenet", "tv_efficientnet", "hf_vit")
SANITIZED_DELEGATED = ("mobilenet_v2_xnn_f32", "resnet_xnn_qs8", "transformer_xnn_qd8")


# The parallel thresholds lowered (sb/thread_pool.h), so that every parallel path runs on the zoo's small
# models: the default ones keep most of their ops on one thread.
EAGER = {"CMAKE_CXX_FLAGS": "-DSB_PARALLEL_MIN_FMAS=4096 -DSB_PARALLEL_MIN_ELEMENTS=1024"}


@pytest.fixture(scope="session")
def threaded_build() -> Path:
    """The optimized all-ops runtime (the benchmarks' cpu), with the pool (SB_THREADS defaults on), eager."""
    flavour = cmake.with_options(cmake.optimized_all_ops(CPUS[0]), EAGER)
    return cmake.build(flavour, targets=("executor_runner", "execute_alloc_test"))


def run(runner: Path, model: Path, inputs: list[Path], out: Path, threads: int) -> list[np.ndarray]:
    out.mkdir(parents=True, exist_ok=True)
    args = [str(runner), "--model", str(model), "--output-dir", str(out), "--threads", str(threads)]
    for path in inputs:
        args += ["--input", str(path)]
    proc = subprocess.run(args, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert not any(marker in proc.stderr for marker in (*SANITIZER_REPORT, *TSAN_REPORT)), proc.stderr[-5000:]
    return [np.load(p) for p in sorted(out.glob("output*.npy"), key=lambda p: int(p.stem[len("output") :]))]


def same_at_every_count(runner: Path, model: Path, inputs: list[Path], tmp_path: Path) -> list[np.ndarray]:
    """The outputs at each of THREAD_COUNTS, asserted byte-identical; those of 1 thread."""
    runs = {t: run(runner, model, inputs, tmp_path / f"threads{t}", t) for t in THREAD_COUNTS}
    first = runs[THREAD_COUNTS[0]]
    assert first
    for t, outputs in runs.items():
        assert [o.dtype for o in outputs] == [o.dtype for o in first], t
        assert [o.tobytes() for o in outputs] == [o.tobytes() for o in first], f"{model.name}: {t} threads differ"
    return first


@pytest.mark.parametrize("name", ZOO_MODELS)
def test_zoo_outputs_are_identical_at_every_thread_count(name: str, threaded_build: Path, tmp_path: Path) -> None:
    outputs = same_at_every_count(
        cmake.runner_path(threaded_build), ZOO_DIR / f"{name}.pte", zoo_inputs(name), tmp_path
    )
    expected = [np.load(p) for p in zoo_expected(name)]
    assert len(outputs) == len(expected)
    for got, want in zip(outputs, expected, strict=True):
        assert got.shape == want.shape and max_error(got, want) <= TOLERANCE, name


@pytest.mark.parametrize("name", PROGRAMS)
def test_delegated_outputs_are_identical_at_every_thread_count(name: str, threaded_build: Path, tmp_path: Path) -> None:
    pte = DELEGATED / f"{name}.pte"
    outputs = same_at_every_count(cmake.runner_path(threaded_build), pte, numbered(name, "input"), tmp_path)
    expected = [np.load(p) for p in numbered(name, "expected")]
    assert len(outputs) == len(expected)
    bound = output_step(pte) * 1.001 if name in STATIC_INT8 else TOLERANCE
    for got, want in zip(outputs, expected, strict=True):
        assert got.shape == want.shape
        assert np.abs(got.astype(np.float64) - want).max() <= bound, name


def test_execute_does_not_allocate_or_start_threads_with_two_threads(threaded_build: Path) -> None:
    models = [str(ZOO_DIR / f"{name}.pte") for name in ZOO_MODELS]
    # Dynamic models at their inputs' shapes too, so kernels resize (and re-split) on the way.
    with_inputs = [f"{ZOO_DIR / name}.pte=" + ",".join(map(str, zoo_inputs(name))) for name in ZOO_MODELS]
    delegated = [f"{DELEGATED / name}.pte=" + ",".join(map(str, numbered(name, "input"))) for name in PROGRAMS]
    proc = subprocess.run(
        [str(threaded_build / "execute_alloc_test"), "--threads", "2", *models, *with_inputs, *delegated],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = [line.rsplit(" allocations_during_execute=", 1) for line in proc.stdout.splitlines()]
    assert len(lines) == len(models) + len(with_inputs) + len(delegated)
    assert {count for _, count in lines} == {"0"}, lines


# ---- sanitizers at 2 threads


def wrapped_runner(runner: Path, threads: int, where: Path) -> Path:
    """A runner that passes --threads to `runner` (the conformance harness runs a runner as it is)."""
    script = where / f"runner_threads{threads}"
    script.write_text(f'#!/bin/sh\nexec "{runner}" --threads {threads} "$@"\n')
    script.chmod(0o755)
    return script


def sanitizer_flavour(name: str, option: str) -> cmake.Flavour:
    return cmake.Flavour(
        name,
        {
            option: "ON",
            "SELECT_ALL_OPS": "ON",
            **KernelChoice.every_optimized(CPUS[-1]).cmake_options(arches.HOST),
            **EAGER,
        },
        build_type="RelWithDebInfo",
    )


@pytest.fixture(scope="module", params=["SB_SANITIZE", "SB_TSAN"])
def sanitized_threaded(request: pytest.FixtureRequest) -> Path:
    """The optimized all-ops runtime under ASan + UBSan (SB_SANITIZE) or ThreadSanitizer (SB_TSAN)."""
    option = request.param
    return cmake.runner_path(cmake.build(sanitizer_flavour(f"threads-{option.lower()}", option)))


@pytest.mark.parametrize("name", SANITIZED_ZOO)
def test_zoo_under_sanitizers_at_two_threads(name: str, sanitized_threaded: Path, tmp_path: Path) -> None:
    outputs = run(sanitized_threaded, ZOO_DIR / f"{name}.pte", zoo_inputs(name), tmp_path, 2)
    for got, path in zip(outputs, zoo_expected(name), strict=True):
        assert max_error(got, np.load(path)) <= TOLERANCE


@pytest.mark.parametrize("name", SANITIZED_DELEGATED)
def test_delegated_under_sanitizers_at_two_threads(name: str, sanitized_threaded: Path, tmp_path: Path) -> None:
    run(sanitized_threaded, DELEGATED / f"{name}.pte", numbered(name, "input"), tmp_path, 2)


def test_conformance_fixtures_under_sanitizers_at_two_threads(sanitized_threaded: Path, tmp_path: Path) -> None:
    results = check.run_all(wrapped_runner(sanitized_threaded, 2, tmp_path), OVERRIDDEN_FIXTURES)
    failed = {
        fid: f"{r.status}: {r.message[:300]}"
        for fid, r in results.items()
        if not r.passed and r.status != check.NO_PROGRAM
    }
    assert not failed, failed


# ---- without the pool


@pytest.fixture(scope="module")
def unthreaded_build() -> Path:
    flavour = cmake.with_options(cmake.optimized_all_ops(CPUS[0]), {"SB_THREADS": "OFF"})
    return cmake.build(flavour, targets=("executor_runner", "execute_alloc_test"))


def test_a_runtime_without_threads_runs_and_holds_no_pool(
    unthreaded_build: Path, threaded_build: Path, tmp_path: Path
) -> None:
    runner = cmake.runner_path(unthreaded_build)
    for name in ("resnet", "mobilenet_v2"):
        ours = run(runner, ZOO_DIR / f"{name}.pte", zoo_inputs(name), tmp_path / f"{name}-off", 1)
        threaded = run(
            cmake.runner_path(threaded_build), ZOO_DIR / f"{name}.pte", zoo_inputs(name), tmp_path / f"{name}-on", 2
        )
        assert [o.tobytes() for o in ours] == [o.tobytes() for o in threaded], name
    # The pool's own functions (kernels still name the type in their signatures), and the thread start.
    symbols = subprocess.run(["nm", "-C", str(runner)], capture_output=True, text=True, check=True).stdout
    threaded = cmake.runner_path(threaded_build)
    assert "sb::ThreadPool::run(" in subprocess.run(["nm", "-C", str(threaded)], capture_output=True, text=True).stdout
    assert "sb::ThreadPool::run(" not in symbols and "sb::ThreadPool::ThreadPool(" not in symbols
    assert "pthread_create" not in symbols
    proc = subprocess.run(
        [str(runner), "--model", str(ZOO_DIR / "resnet.pte"), "--threads", "2"], capture_output=True, text=True
    )
    assert proc.returncode == 2
    assert proc.stderr.splitlines() == ["error: --threads 2: this runtime is built without threads (SB_THREADS=OFF)"]


def test_cortex_m_builds_without_the_pool() -> None:
    _require(arches.CORTEX_M, run=False)
    out = cmake.build(cmake.optimized_all_ops().for_arch(arches.CORTEX_M), targets=cmake.size_targets(arches.CORTEX_M))
    assert (out / cmake.SIZE_PROBE).is_file()
    cache = (out / "CMakeCache.txt").read_text()
    assert "SB_THREADS:BOOL=OFF" in cache
    assert "thread_pool" not in (out / f"{cmake.SIZE_PROBE}.map").read_text()


# ---- --threads values


@pytest.mark.parametrize("value", ["0", "-1", "two", "1.5", "", "257", "99999999999999999999999"])
def test_a_bad_thread_count_is_one_error_line(
    value: str, threaded_build: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    proc = subprocess.run(
        [str(cmake.runner_path(threaded_build)), "--model", str(ZOO_DIR / "resnet.pte"), "--threads", value],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 2
    assert proc.stderr.splitlines() == [
        f"error: --threads takes a whole number of threads from 1 to {MAX_THREADS}, not '{value}'"
    ]
    from bot import cli

    # Refused before anything builds or runs (no sandbox, no runtime).
    assert cli.main(["run", str(ZOO_DIR / "resnet.pte"), "--threads", value]) != 0
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("error: --threads") and f"1 to {MAX_THREADS}" in err[0], err
