"""The optimized kernel library (kernels/optimized): preferred over portable op by op, numerically
ExecuTorch's, allocation-free in execute, and resolved as the config asks.

Every zoo model and every conformance fixture of an op the optimized library overrides runs on the
all-ops runtime with the optimized library preferred, at x86-64-v3 (AVX2) and, on a machine that has
it, x86-64-v4 (AVX-512): the two SIMD widths the kernels are compiled for here.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import numpy as np
import pytest

from bot.build import arch as arches
from bot.build import cmake
from bot.build.compare import TOLERANCE, max_error
from bot.build.kernel_choice import KernelChoice
from bot.build.runner import run_model
from bot.selection import codegen
from bot.selection.kernel_library import KernelLibraryError, load_libraries
from tests.conformance import check
from tests.conformance.layout import fixtures
from tests.conftest import REPO_ROOT, ZOO_DIR, ZOO_MODELS, zoo_expected, zoo_inputs

PORTABLE_YAML = REPO_ROOT / "kernels" / "portable" / "functions.yaml"
OPTIMIZED_YAML = REPO_ROOT / "kernels" / "optimized" / "functions.yaml"
OPTIMIZED_OPS = sorted(load_libraries([OPTIMIZED_YAML]))
OVERRIDDEN_FIXTURES = sorted((f for f in fixtures() if f.op in OPTIMIZED_OPS), key=lambda f: f.id)


def _host_has(flag: str) -> bool:
    try:
        return any(flag in line.split() for line in Path("/proc/cpuinfo").read_text().splitlines() if "flags" in line)
    except OSError:
        return False


CPUS = ["x86-64-v3"] + (["x86-64-v4"] if _host_has("avx512f") and _host_has("avx512bw") else [])


@pytest.fixture(scope="session", params=CPUS)
def optimized_build(request: pytest.FixtureRequest) -> Path:
    return cmake.build(cmake.optimized_all_ops(request.param), targets=("executor_runner", "execute_alloc_test"))


@pytest.fixture(scope="session")
def optimized_conformance(optimized_build: Path) -> dict[str, check.Result]:
    return check.run_all(cmake.runner_path(optimized_build), OVERRIDDEN_FIXTURES)


def test_optimized_library_overrides_only_portable_ops() -> None:
    portable = load_libraries([PORTABLE_YAML])
    assert OPTIMIZED_OPS, "the optimized library is empty"
    assert set(OPTIMIZED_OPS) <= set(portable)


@pytest.mark.parametrize("name", ZOO_MODELS)
def test_zoo_model_matches_executorch(name: str, optimized_build: Path, tmp_path: Path) -> None:
    result = run_model(cmake.runner_path(optimized_build), ZOO_DIR / f"{name}.pte", zoo_inputs(name), tmp_path)
    expected = [np.load(p) for p in zoo_expected(name)]
    assert len(result.outputs) == len(expected)
    for actual, want in zip(result.outputs, expected, strict=True):
        assert actual.shape == want.shape and actual.dtype == want.dtype
        assert max_error(actual, want) <= TOLERANCE


@pytest.mark.parametrize("fixture_id", [f.id for f in OVERRIDDEN_FIXTURES])
def test_conformance_fixture_matches_executorch(
    fixture_id: str, optimized_conformance: dict[str, check.Result]
) -> None:
    result = optimized_conformance[fixture_id]
    if result.status == check.NO_PROGRAM:
        pytest.skip(f"no program: {result.message}")
    assert result.passed, f"{fixture_id}: {result.status}: {result.message}"


def test_execute_does_not_allocate(optimized_build: Path) -> None:
    models = [str(ZOO_DIR / f"{name}.pte") for name in ZOO_MODELS]
    with_inputs = [f"{ZOO_DIR / name}.pte=" + ",".join(map(str, zoo_inputs(name))) for name in ZOO_MODELS]
    proc = subprocess.run(
        [str(optimized_build / "execute_alloc_test"), *models, *with_inputs], capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    counts = [line.rsplit(" allocations_during_execute=", 1)[1] for line in proc.stdout.splitlines()]
    assert len(counts) == 2 * len(models) and set(counts) == {"0"}


def _kernel_sources() -> list[Path]:
    return sorted((REPO_ROOT / "kernels").rglob("*.cpp"))


def test_a_mix_prefers_just_the_named_ops_and_compiles_their_fallbacks() -> None:
    op = OPTIMIZED_OPS[0]
    _, resolution = codegen.select([PORTABLE_YAML], [], [op, "aten::add.out"], False, OPTIMIZED_YAML, [op])
    chosen = {entry.op: entry for entry in resolution.kernels}
    assert set(chosen) >= {op, "aten::add.out"}
    assert chosen[op].source == OPTIMIZED_YAML
    assert chosen["aten::add.out"].source == PORTABLE_YAML
    assert [entry.op for entry in resolution.fallbacks] == [op]
    assert resolution.fallbacks[0].source == PORTABLE_YAML
    sources = codegen.kernel_sources(resolution, _kernel_sources())
    optimized_file = next(
        p for p in sources if p.is_relative_to(REPO_ROOT / "kernels" / "optimized") and p.name.startswith("opt_")
    )
    portable_names = {p.name for p in sources if p.parent == REPO_ROOT / "kernels" / "portable"}
    assert optimized_file.exists() and portable_names, sources
    table = codegen.render_registration(resolution.kernels, [PORTABLE_YAML, OPTIMIZED_YAML]).split("kernels[] = {")[1]
    registered = {line.split("//")[0].strip().lstrip("&").rstrip(",") for line in table.splitlines()}
    assert "::" + chosen[op].kernel_name in registered
    assert "::" + resolution.fallbacks[0].kernel_name not in registered


def test_all_prefers_every_optimized_op() -> None:
    _, resolution = codegen.select([PORTABLE_YAML], [], [], True, OPTIMIZED_YAML, None)
    from_optimized = sorted(e.op for e in resolution.kernels if e.source == OPTIMIZED_YAML)
    assert from_optimized == OPTIMIZED_OPS
    assert sorted(e.op for e in resolution.fallbacks) == OPTIMIZED_OPS


def test_a_mix_naming_an_op_the_optimized_library_lacks_is_refused() -> None:
    with pytest.raises(
        KernelLibraryError, match=r"optimized kernel library has no kernel for aten::nonexistent_op\.out"
    ):
        codegen.select([PORTABLE_YAML], [], ["aten::add.out"], False, OPTIMIZED_YAML, ["aten::nonexistent_op.out"])


# The same kernels on the architectures apps ship: NEON on aarch64 (run under qemu against ExecuTorch's
# references), and a Cortex-M build that still compiles (no float SIMD there: the vector code lowers to scalar).


def _require(arch: arches.Arch, run: bool = True) -> None:
    missing = arches.missing_tools(arch, run=run)
    if missing:
        pytest.fail(missing)  # CI installs the cross toolchains (scripts/setup.sh)


@pytest.fixture(scope="session")
def aarch64_optimized_build() -> Path:
    _require(arches.AARCH64)
    flavour = cmake.optimized_all_ops(arches.AARCH64.optimized_cpu).for_arch(arches.AARCH64)
    return cmake.build(flavour, targets=("executor_runner",))


@pytest.mark.parametrize("name", ZOO_MODELS)
def test_aarch64_zoo_model_matches_executorch(name: str, aarch64_optimized_build: Path, tmp_path: Path) -> None:
    runner = cmake.runner_path(aarch64_optimized_build)
    result = run_model(runner, ZOO_DIR / f"{name}.pte", zoo_inputs(name), tmp_path, arch=arches.AARCH64)
    expected = [np.load(p) for p in zoo_expected(name)]
    assert len(result.outputs) == len(expected)
    for actual, want in zip(result.outputs, expected, strict=True):
        assert actual.shape == want.shape and max_error(actual, want) <= TOLERANCE


def test_aarch64_optimized_kernels_use_neon(aarch64_optimized_build: Path) -> None:
    """Every optimized kernel library object that does fp32 arithmetic does some of it on 4-lane NEON
    registers (any floating-point instruction on .4s: fmla, fsub, fdiv, fcmgt, ...), or calls a shared
    helper of the library that does (a pool that sums its windows with util/pool_rows' vector row sum):
    read from the objects' disassembly and relocations, not a scalar fallback."""
    objects = sorted(aarch64_optimized_build.rglob("*.o"))
    optimized = [o for o in objects if "/kernels/optimized/" in o.as_posix()]
    assert optimized, "no optimized kernel objects in the aarch64 build"
    any_float_math = re.compile(r"\b(fmla|fmadd|fadd|fmul|fmax|fmin)\s+[sv]\d+")
    vector_math = re.compile(r"\bf[a-z0-9]+\s+v\d+\.4s")
    call = re.compile(r"R_AARCH64_CALL26\s+(\S+)")
    listings = {o: _binutils(arches.AARCH64, "objdump", "-dr", "--no-show-raw-insn", o) for o in optimized}
    vectorised = {o for o, text in listings.items() if vector_math.search(text)}
    defined_by_vectorised = {
        line.split()[-1]
        for o in vectorised
        for line in _binutils(arches.AARCH64, "nm", "--defined-only", o).splitlines()
        if line.split()[-2:-1] in (["T"], ["t"], ["W"], ["w"])
    }
    computing = {o for o, text in listings.items() if any_float_math.search(text)}
    assert computing, "no optimized object does fp32 arithmetic"
    scalar_only = sorted(
        o.name for o in computing - vectorised if not defined_by_vectorised.intersection(call.findall(listings[o]))
    )
    assert not scalar_only, scalar_only


def _binutils(arch: arches.Arch, tool: str, *args: str | Path) -> str:
    return subprocess.run([arch.tool(tool), *map(str, args)], capture_output=True, text=True, check=True).stdout


def test_cortex_m_compiles_the_optimized_library() -> None:
    _require(arches.CORTEX_M, run=False)
    flavour = cmake.optimized_all_ops().for_arch(arches.CORTEX_M)
    out = cmake.build(flavour, targets=cmake.size_targets(arches.CORTEX_M))
    assert (out / cmake.SIZE_PROBE).is_file()


# Under AddressSanitizer and UndefinedBehaviorSanitizer: the zoo and every overridden op's conformance
# fixtures (NaN, broadcasting, 0-d, empty and odd-sized cases) run clean through the fast paths.

SANITIZER_REPORT = ("AddressSanitizer", "UndefinedBehaviorSanitizer", "runtime error:")


@pytest.fixture(scope="module")
def sanitized_optimized() -> Path:
    flavour = cmake.Flavour(
        "sanitized-optimized",
        {
            "SB_SANITIZE": "ON",
            "SELECT_ALL_OPS": "ON",
            **KernelChoice.every_optimized(CPUS[-1]).cmake_options(arches.HOST),
        },
        build_type="RelWithDebInfo",
    )
    return cmake.runner_path(cmake.build(flavour))


@pytest.mark.parametrize("name", ZOO_MODELS)
def test_zoo_under_sanitizers(name: str, sanitized_optimized: Path, tmp_path: Path) -> None:
    args = [a for p in zoo_inputs(name) for a in ("--input", str(p))]
    proc = subprocess.run(
        [str(sanitized_optimized), "--model", str(ZOO_DIR / f"{name}.pte"), *args, "--output-dir", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert not any(marker in proc.stderr for marker in SANITIZER_REPORT), proc.stderr[-3000:]
    assert proc.returncode == 0, proc.stderr[-3000:]
    for i, expected in enumerate(zoo_expected(name)):
        assert max_error(np.load(tmp_path / f"output{i}.npy"), np.load(expected)) <= TOLERANCE


def test_conformance_fixtures_under_sanitizers(sanitized_optimized: Path) -> None:
    results = check.run_all(sanitized_optimized, OVERRIDDEN_FIXTURES)
    failed = {
        fid: f"{r.status}: {r.message[:300]}"
        for fid, r in results.items()
        if not r.passed and r.status != check.NO_PROGRAM
    }
    assert not failed, failed
