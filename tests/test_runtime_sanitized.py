"""The runtime under AddressSanitizer and UndefinedBehaviorSanitizer: the zoo,
the corrupt programs and bit flips run clean; the fuzz target replays every
saved crash and survives a short session seeded with the zoo."""

from __future__ import annotations

import random
import shutil
import struct
import subprocess
from pathlib import Path

import numpy as np
import pytest

from bot import build
from bot.compare import TOLERANCE, max_error
from tests.conftest import REPO_ROOT, ZOO_DIR, ZOO_MODELS, zoo_expected, zoo_inputs
from tests.test_runtime_corrupt import CORRUPTIONS, MODEL

SANITIZED = build.Flavour("sanitized", {"SB_SANITIZE": "ON", "SELECT_ALL_OPS": "ON"}, build_type="RelWithDebInfo")
FUZZ = build.Flavour("fuzz", {"SB_FUZZ": "ON", "SELECT_ALL_OPS": "ON", "CMAKE_CXX_COMPILER": "clang++"})
CRASHES = REPO_ROOT / "tests" / "fuzz" / "crashes"
FUZZ_SECONDS = 60
SANITIZER_REPORT = ("AddressSanitizer", "UndefinedBehaviorSanitizer", "runtime error:", "LeakSanitizer")


@pytest.fixture(scope="module")
def sanitized() -> Path:
    return build.runner_path(build.build(SANITIZED))


def run(runner: Path, model: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(runner), "--model", str(model), *args], capture_output=True, text=True, timeout=300)


def assert_no_report(proc: subprocess.CompletedProcess[str]) -> None:
    assert not any(marker in proc.stderr for marker in SANITIZER_REPORT), proc.stderr[-3000:]
    assert proc.returncode in (0, 1), proc.stderr[-3000:]


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
def fuzzer() -> Path:
    assert shutil.which("clang++"), "clang++ is needed for the fuzz target: run scripts/setup.sh"
    return build.build(FUZZ, targets=("pte_fuzzer",)) / "pte_fuzzer"


def test_saved_crashes_stay_fixed(fuzzer: Path) -> None:
    crashes = sorted(CRASHES.iterdir())
    assert crashes
    proc = subprocess.run([str(fuzzer), *map(str, crashes)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stderr.count("Executed ") == len(crashes)


def test_short_fuzz_session(fuzzer: Path, tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for model in ZOO_DIR.glob("*.pte"):
        shutil.copy2(model, corpus)
    proc = subprocess.run(
        [
            str(fuzzer),
            f"-max_total_time={FUZZ_SECONDS}",
            "-rss_limit_mb=2048",
            f"-artifact_prefix={tmp_path}/",
            str(corpus),
        ],
        capture_output=True,
        text=True,
        timeout=FUZZ_SECONDS * 4,
    )
    found = sorted(p.name for p in tmp_path.glob("crash-*")) + sorted(p.name for p in tmp_path.glob("leak-*"))
    assert proc.returncode == 0 and not found, f"fuzzer found {found}: {proc.stderr[-3000:]}"
    assert "Done " in proc.stderr
