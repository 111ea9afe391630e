"""The runtime under AddressSanitizer and UndefinedBehaviorSanitizer: the zoo,
the corrupt and crafted programs and bit flips run clean; both fuzz targets
replay every saved crash and survive a short session seeded with the zoo."""

from __future__ import annotations

import os
import random
import shutil
import struct
import subprocess
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from bot.build import cmake
from bot.build.compare import TOLERANCE, max_error
from tests import crafted_programs as crafted
from tests import quantized_programs
from tests.conftest import REPO_ROOT, ZOO_DIR, ZOO_MODELS, zoo_expected, zoo_inputs
from tests.test_runtime_corrupt import CORRUPTIONS, MODEL

SANITIZED = cmake.Flavour("sanitized", {"SB_SANITIZE": "ON", "SELECT_ALL_OPS": "ON"}, build_type="RelWithDebInfo")
FUZZ = cmake.Flavour("fuzz", {"SB_FUZZ": "ON", "SELECT_ALL_OPS": "ON", "CMAKE_CXX_COMPILER": "clang++"})
CRASHES = REPO_ROOT / "tests" / "fuzz" / "crashes"
FUZZ_RUNS = 15_000  # about a minute on one core
LOAD_FUZZ_RUNS = 60_000  # about 20 s: loading alone is some ten times faster
FUZZ_SECONDS_CAP = 300  # a slow machine stops early, on a prefix of the same inputs
FUZZERS = ("pte_fuzzer", "pte_load_fuzzer")
SANITIZER_REPORT = ("AddressSanitizer", "UndefinedBehaviorSanitizer", "runtime error:", "LeakSanitizer")


@pytest.fixture(scope="module")
def sanitized() -> Path:
    return cmake.runner_path(cmake.build(SANITIZED))


def run(runner: Path, model: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(runner), "--model", str(model), *args], capture_output=True, text=True, timeout=300)


def assert_no_report(proc: subprocess.CompletedProcess[str]) -> None:
    assert not any(marker in proc.stderr for marker in SANITIZER_REPORT), proc.stderr[-3000:]
    assert proc.returncode in (0, 1), proc.stderr[-3000:]


@pytest.mark.parametrize("name", quantized_programs.PROGRAMS)
def test_quantized_programs_under_sanitizers(name: str, sanitized: Path, tmp_path: Path) -> None:
    """The PT2E programs without a delegate: ExecuTorch's quantized kernels (kernels/quantized) on real models."""
    args = [a for p in quantized_programs.inputs(name) for a in ("--input", str(p))]
    proc = run(sanitized, quantized_programs.QUANTIZED_DIR / f"{name}.pte", *args, "--output-dir", str(tmp_path))
    assert_no_report(proc)
    assert proc.returncode == 0
    for i, expected in enumerate(quantized_programs.expected(name)):
        assert max_error(np.load(tmp_path / f"output{i}.npy"), np.load(expected)) <= TOLERANCE


@pytest.mark.parametrize("bad", quantized_programs.BAD_INPUTS, ids=lambda bad: bad.name)
def test_quantized_bad_input_under_sanitizers(
    bad: quantized_programs.BadInput, sanitized: Path, tmp_path: Path
) -> None:
    args = [a for p in bad.input_paths(tmp_path) for a in ("--input", str(p))]
    proc = run(sanitized, bad.model(), *args, "--output-dir", str(tmp_path / "out"))
    assert_no_report(proc)
    assert proc.returncode == 1 and bad.message in proc.stderr, proc.stderr[-2000:]


@pytest.mark.parametrize("name", ZOO_MODELS)
def test_zoo_under_sanitizers(name: str, sanitized: Path, tmp_path: Path) -> None:
    args = [a for p in zoo_inputs(name) for a in ("--input", str(p))]
    proc = run(sanitized, ZOO_DIR / f"{name}.pte", *args, "--output-dir", str(tmp_path))
    assert_no_report(proc)
    assert proc.returncode == 0
    for i, expected in enumerate(zoo_expected(name)):
        assert max_error(np.load(tmp_path / f"output{i}.npy"), np.load(expected)) <= TOLERANCE


@pytest.mark.parametrize("name", sorted(CORRUPTIONS))
def test_corrupt_programs_under_sanitizers(name: str, sanitized: Path, tmp_path: Path) -> None:
    model = tmp_path / "corrupt.pte"
    model.write_bytes(CORRUPTIONS[name][0](MODEL.read_bytes()))
    proc = run(sanitized, model)
    assert_no_report(proc)
    assert proc.returncode == 1


# name: (program, runner arguments, expected exit code)
CRAFTED: dict[str, tuple[Callable[[], bytes], tuple[str, ...], int]] = {
    "wrapping_sizes_softmax": (lambda: crafted.overflowing_sizes("aten::_softmax.out"), (), 1),
    "wrapping_sizes_gelu": (lambda: crafted.overflowing_sizes("aten::gelu.out"), (), 1),
    "unplanned_huge_input": (crafted.unplanned_input, (), 1),
    "shared_list_table": (lambda: crafted.shared_tensor_list(share="table"), (), 0),
    "shared_list_items": (lambda: crafted.shared_tensor_list(share="items"), (), 0),
    "looping_softmax": (crafted.looping_softmax, ("--max-work", str(1 << 28)), 1),
}


@pytest.mark.parametrize("name", sorted(CRAFTED))
def test_crafted_programs_under_sanitizers(name: str, sanitized: Path, tmp_path: Path) -> None:
    build_program, args, code = CRAFTED[name]
    model = tmp_path / "crafted.pte"
    model.write_bytes(build_program())
    proc = run(sanitized, model, *args)
    assert_no_report(proc)
    assert proc.returncode == code, proc.stderr[-3000:]
    if code:
        assert len(proc.stderr.splitlines()) == 1 and proc.stderr.startswith("error: "), proc.stderr[-3000:]


def test_bit_flips_under_sanitizers(sanitized: Path, tmp_path: Path) -> None:
    data = MODEL.read_bytes()
    program_size = struct.unpack_from("<Q", data, 16)[0]
    rng = random.Random(7)
    for i in range(60):
        flipped = bytearray(data)
        flipped[rng.randrange(program_size)] ^= 1 << rng.randrange(8)
        model = tmp_path / f"flip{i}.pte"
        model.write_bytes(bytes(flipped))
        assert_no_report(run(sanitized, model))


@pytest.fixture(scope="module")
def fuzz_build() -> Path:
    assert shutil.which("clang++"), "clang++ is needed for the fuzz targets: run scripts/setup.sh"
    return cmake.build(FUZZ, targets=FUZZERS)


@pytest.mark.parametrize("target", FUZZERS)
def test_saved_crashes_stay_fixed(target: str, fuzz_build: Path) -> None:
    crashes = sorted(CRASHES.iterdir())
    assert crashes
    proc = subprocess.run([str(fuzz_build / target), *map(str, crashes)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stderr.count("Executed ") == len(crashes)


def run_fuzzer(fuzzer: Path, corpus: Path, runs: int, work: Path) -> None:
    """A fixed-seed session of `runs` inputs from `corpus`: the same inputs on every machine, so CI is
    deterministic; open-ended, timed fuzzing is `python -m benchmarks`' job (BENCHMARKS.md). Nothing found."""
    proc = subprocess.run(
        [
            str(fuzzer),
            "-seed=1",
            f"-runs={runs}",
            f"-max_total_time={FUZZ_SECONDS_CAP}",
            "-rss_limit_mb=2048",
            f"-artifact_prefix={work}/",
            str(corpus),
        ],
        capture_output=True,
        text=True,
        timeout=FUZZ_SECONDS_CAP * 4,
    )
    found = sorted(p.name for kind in ("crash", "leak", "timeout", "oom") for p in work.glob(f"{kind}-*"))
    assert proc.returncode == 0 and not found, f"fuzzer found {found}: {proc.stderr[-3000:]}"
    assert "Done " in proc.stderr


def fuzzer_report(fuzzer: Path, files: list[Path], prefixes: tuple[str, ...]) -> list[str]:
    """The lines starting with `prefixes` that a fuzz target prints with SB_FUZZ_REPORT=1, one run of each
    file in order. -detect_leaks=0: otherwise libFuzzer runs an input a second time when its first run
    mallocs more than it frees (a one-time lazy allocation does), and its outcome would print twice. The fuzz
    sessions (run_fuzzer) keep looking for leaks."""
    env = {**os.environ, "SB_FUZZ_REPORT": "1"}
    proc = subprocess.run(
        [str(fuzzer), "-detect_leaks=0", *map(str, files)], capture_output=True, text=True, timeout=300, env=env
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert not any(report in proc.stderr for report in SANITIZER_REPORT), proc.stderr[-3000:]
    return [line for line in proc.stderr.splitlines() if line.startswith(prefixes)]


def fuzz_session(fuzzer: Path, runs: int, work: Path) -> None:
    """run_fuzzer seeded with the zoo's programs."""
    corpus = work / "corpus"
    corpus.mkdir()
    for model in ZOO_DIR.glob("*.pte"):
        shutil.copy2(model, corpus)
    run_fuzzer(fuzzer, corpus, runs, work)


def test_short_fuzz_session(fuzz_build: Path, tmp_path: Path) -> None:
    fuzz_session(fuzz_build / "pte_fuzzer", FUZZ_RUNS, tmp_path)


def test_short_load_fuzz_session(fuzz_build: Path, tmp_path: Path) -> None:
    fuzz_session(fuzz_build / "pte_load_fuzzer", LOAD_FUZZ_RUNS, tmp_path)


def test_every_conformance_fixture_runs_clean_under_sanitizers(sanitized: Path, tmp_path: Path) -> None:
    """Every kernel, in every dtype and edge case the conformance suite holds (broadcasting,
    0-d, empty, NaN, overflow, ExecuTorch's refusals), under ASan and UBSan."""
    from concurrent.futures import ThreadPoolExecutor

    from tests.conformance.layout import fixtures

    def reports(fixture) -> str | None:  # type: ignore[no-untyped-def]
        args = [a for p in fixture.inputs() for a in ("--input", str(p))]
        proc = run(sanitized, fixture.path / "model.pte", *args, "--output-dir", str(tmp_path / fixture.id))
        clean = proc.returncode in (0, 1) and not any(marker in proc.stderr for marker in SANITIZER_REPORT)
        return None if clean else f"{fixture.id}: exit {proc.returncode}: {proc.stderr[-800:]}"

    everything = [f for f in fixtures() if f.unexpressible is None]  # the others hold no program
    assert len(everything) > 1000
    with ThreadPoolExecutor(max_workers=2) as pool:
        found = [report for report in pool.map(reports, everything) if report is not None]
    assert not found, "\n".join(found[:5])
