"""Architectures (bot/build/arch.py): the aarch64 runtime runs and traces the whole zoo
under qemu-user as the x86-64 one does, a Cortex-M build of a real selection is
freestanding Thumb-2 code, and the config names architectures and budgets per
target.

References are ExecuTorch's own outputs (models/zoo/*.expected*.npy, as in
test_runtime_zoo); ELF facts are read with the cross binutils, independently of
the bot's own size code.
"""

from __future__ import annotations

import concurrent.futures
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest
import yaml

from bot import config
from bot.build import arch as arches
from bot.build import cmake
from bot.build.compare import TOLERANCE, max_error
from bot.build.runner import run_model
from bot.errors import BotError, ExitCode
from bot.safety.limits import MIB, Limits
from bot.selection import oplist, trace
from tests.conftest import ZOO_DIR, ZOO_MODELS, zoo_expected, zoo_inputs

REPO = Path(__file__).resolve().parent.parent
SENSOR_YAML = REPO / "apps" / "sensor" / "selected_operators.yaml"
KNOWN = "(known: x86-64, aarch64, cortex-m)"
EM_ARM = 40  # ELF e_machine of 32-bit Arm
EF_ARM_EABI_VER5 = 0x05000000
EF_ARM_ABI_FLOAT_HARD = 0x400
# What a freestanding core must not pull in: files, threads, C++ exceptions.
HOSTED_ONLY = ("fopen", "fread", "fwrite", "fclose", "pthread_", "__cxa_throw", "__cxa_begin_catch",
               "__gxx_personality_v0", "__cxa_allocate_exception", "_Unwind_Resume", "std::thread")  # fmt: skip


def _require(arch: arches.Arch, run: bool = True) -> None:
    missing = arches.missing_tools(arch, run=run)
    if missing:
        pytest.fail(missing)  # CI installs them (scripts/setup.sh): a missing toolchain is a failure, not a skip


@pytest.fixture(scope="session")
def aarch64_runner() -> Path:
    """The all-ops executor_runner cross-built for aarch64 (one build per session)."""
    _require(arches.AARCH64)
    return cmake.runner_path(cmake.build(cmake.ALL_OPS.for_arch(arches.AARCH64), targets=("executor_runner",)))


@pytest.fixture(scope="session")
def aarch64_tracer() -> Path:
    _require(arches.AARCH64)
    return trace.tracer_runner(arch=arches.AARCH64)


@pytest.fixture(scope="session")
def cortex_m_build() -> Path:
    _require(arches.CORTEX_M, run=False)
    flavour = cmake.selective_flavour(SENSOR_YAML, arch=arches.CORTEX_M.name)
    return cmake.build(flavour, targets=cmake.runtime_targets(arches.CORTEX_M))


def _binutils(arch: arches.Arch, tool: str, *args: str | Path) -> str:
    return subprocess.run([arch.tool(tool), *map(str, args)], capture_output=True, text=True, check=True).stdout


# (a) every zoo model, dynamic ones included, on aarch64 under qemu


@pytest.mark.parametrize("name", ZOO_MODELS)
def test_aarch64_runtime_matches_executorch(name: str, aarch64_runner: Path, tmp_path: Path) -> None:
    assert _binutils(arches.AARCH64, "readelf", "-h", aarch64_runner).count("AArch64") == 1
    result = run_model(aarch64_runner, ZOO_DIR / f"{name}.pte", zoo_inputs(name), tmp_path, arch=arches.AARCH64)
    expected = [np.load(p) for p in zoo_expected(name)]
    assert len(result.outputs) == len(expected)
    for actual, want in zip(result.outputs, expected, strict=True):
        assert actual.shape == want.shape
        assert actual.dtype == want.dtype
        assert max_error(actual, want) <= TOLERANCE


def test_the_host_cannot_run_aarch64_binaries_without_the_emulator(aarch64_runner: Path, tmp_path: Path) -> None:
    """The runs above really went through qemu: the same binary run natively is refused by the kernel."""
    if any(Path("/proc/sys/fs/binfmt_misc").glob("qemu-aarch64*")):
        pytest.skip("binfmt_misc hands aarch64 binaries to qemu on this machine")
    with pytest.raises(BotError):
        run_model(aarch64_runner, ZOO_DIR / "gru.pte", zoo_inputs("gru"), tmp_path, arch=arches.HOST)


def test_emulated_runs_keep_the_memory_limit(aarch64_runner: Path, tmp_path: Path) -> None:
    """qemu reserves the guest's address space at the run limit (-R): a model that needs more
    than the limit fails cleanly, one that fits runs, as natively."""
    model = ZOO_DIR / "gru.pte"
    fits = Limits(run_memory_bytes=256 * MIB)
    run_model(aarch64_runner, model, zoo_inputs("gru"), tmp_path / "fits", limits=fits, arch=arches.AARCH64)
    tiny = Limits(run_memory_bytes=4 * MIB)  # less than the runner's own image and libc
    with pytest.raises(BotError) as failed:
        run_model(aarch64_runner, model, zoo_inputs("gru"), tmp_path / "tiny", limits=tiny, arch=arches.AARCH64)
    assert failed.value.exit_code == ExitCode.RUNTIME


# (b) tracing under qemu selects what tracing on x86-64 selects


@pytest.fixture(scope="session")
def host_tracer() -> Path:
    return trace.tracer_runner()


@pytest.mark.parametrize("name", ZOO_MODELS)
def test_aarch64_tracing_selects_what_x86_64_tracing_selects(
    name: str, host_tracer: Path, aarch64_tracer: Path
) -> None:
    model, inputs = ZOO_DIR / f"{name}.pte", zoo_inputs(name)
    on_host = trace.trace_model(host_tracer, model, inputs, name)
    on_aarch64 = trace.trace_model(aarch64_tracer, model, inputs, name, arch=arches.AARCH64)
    assert on_aarch64.operators, name
    assert on_aarch64 == on_host


# (c) a Cortex-M build of a real selection


def test_cortex_m_probe_is_thumb2_for_a_hard_float_cortex_m4(cortex_m_build: Path) -> None:
    probe = cortex_m_build / cmake.SIZE_PROBE
    header = probe.read_bytes()[:52]
    assert header[:4] == b"\x7fELF" and header[4] == 1  # ELFCLASS32
    e_machine = int.from_bytes(header[18:20], "little")
    e_flags = int.from_bytes(header[36:40], "little")
    assert e_machine == EM_ARM
    assert e_flags & 0xFF000000 == EF_ARM_EABI_VER5
    assert e_flags & EF_ARM_ABI_FLOAT_HARD
    readelf = _binutils(arches.CORTEX_M, "readelf", "-h", probe)
    assert "Machine:                           ARM" in readelf
    attributes = _binutils(arches.CORTEX_M, "readelf", "-A", probe)
    assert "Tag_CPU_arch: v7E-M" in attributes
    assert "Tag_CPU_arch_profile: Microcontroller" in attributes
    assert "Tag_THUMB_ISA_use: Thumb-2" in attributes
    assert "Tag_ARM_ISA_use" not in attributes  # no Arm (A32) code: Cortex-M runs Thumb only
    # Function symbols of Thumb code have the low address bit set: main and every kernel.
    functions = {}
    for line in _binutils(arches.CORTEX_M, "readelf", "-sW", probe).splitlines():
        fields = line.split()
        if len(fields) == 8 and fields[3] == "FUNC" and fields[7]:
            functions[fields[7]] = int(fields[1], 16)
    kernels = [name for name in functions if "_impl" in name]
    assert "main" in functions and kernels
    assert all(functions[name] & 1 for name in ["main", *kernels])


def test_cortex_m_core_and_kernels_need_nothing_hosted(cortex_m_build: Path) -> None:
    libraries = [cortex_m_build / "libsb_core.a", cortex_m_build / "libsb_selected_kernels.a"]
    undefined = set()
    for library in libraries:
        undefined |= {line.split()[-1] for line in _binutils(arches.CORTEX_M, "nm", "-uC", library).splitlines()
                      if line.strip() and not line.endswith(":")}  # fmt: skip
    assert "snprintf" in undefined  # the check sees libc references at all
    assert not [name for name in undefined for bad in HOSTED_ONLY if name.startswith(bad) or bad in name]
    # Nor does anything in the linked probe: the link map lists every archive member pulled in and why.
    link_map = (cortex_m_build / f"{cmake.SIZE_PROBE}.map").read_text()
    assert "libsb_selected_kernels.a(" in link_map
    symbols = _binutils(arches.CORTEX_M, "nm", "-C", cortex_m_build / cmake.SIZE_PROBE)
    defined = {line.split()[-1] for line in symbols.splitlines() if line.strip()}
    assert not [name for name in defined for bad in HOSTED_ONLY if name.startswith(bad)]


def test_cortex_m_links_only_the_selection(cortex_m_build: Path) -> None:
    selected = set(oplist.load(SENSOR_YAML).operators)
    registered = (cortex_m_build / "sb_selected_kernels" / "selected_operators.yaml").read_text()
    assert all(op in registered for op in selected)
    link_map = (cortex_m_build / f"{cmake.SIZE_PROBE}.map").read_text()
    assert "op_convolution.cpp.obj" not in link_map  # a GRU needs no convolution
    assert not (cortex_m_build / "executor_runner").exists()  # nothing hosted is built for a microcontroller


def test_every_kernel_and_the_core_compile_for_cortex_m(cortex_m_build: Path) -> None:
    """The sensor build links a GRU's kernels; this keeps every other kernel portable too
    (int32_t is long there, size_t 32 bits, no __int128, no POSIX math constants), with the
    compile flags CMake configured for Cortex-M, front end only (what -Werror sees)."""
    ninja = (cortex_m_build / "build.ninja").read_text()
    flags = next(line.split("=", 1)[1].split() for line in ninja.splitlines() if line.startswith("  FLAGS = "))
    assert "-mcpu=cortex-m4" in flags and "-Werror" in flags
    defines = ["-DSB_BARE_METAL=1", f"-I{REPO / 'native/core/include'}", f"-I{REPO / 'kernels/portable'}"]
    defines.append(f"-I{REPO / 'kernels'}")  # the prim library's "prim/util/scalar.h"
    # The thread pool is the one core source a Cortex-M build leaves out (SB_THREADS is off there).
    core = [p for p in (REPO / "native/core/src").glob("*.cpp") if p.name != "thread_pool.cpp"]
    sources = sorted([*core, *(REPO / "kernels/portable").glob("op_*.cpp")])
    sources += sorted((REPO / "kernels/portable/util").glob("*.cpp"))
    sources += sorted([*(REPO / "kernels/prim").glob("prim_*.cpp"), *(REPO / "kernels/prim/util").glob("*.cpp")])

    def compile_one(source: Path) -> str:
        cmd = [arches.CORTEX_M.compiler, *flags, *defines, "-fsyntax-only", str(source)]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        return "" if proc.returncode == 0 else f"{source.name}: {proc.stderr.strip().splitlines()[0]}"

    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as pool:
        failures = [f for f in pool.map(compile_one, sources) if f]
    assert len(sources) > 200
    assert not failures, "\n".join(failures)


def test_runtime_targets_per_arch() -> None:
    assert cmake.runtime_targets(arches.HOST) == ("executor_runner", cmake.SIZE_PROBE)
    assert cmake.runtime_targets(arches.AARCH64) == ("executor_runner", cmake.SIZE_PROBE)
    assert cmake.runtime_targets(arches.CORTEX_M) == (cmake.SIZE_PROBE,)
    assert all(cmake.size_targets(a) == (cmake.SIZE_PROBE,) for a in arches.ARCHES.values())
    assert cmake.ALL_OPS.for_arch("aarch64").key() != cmake.ALL_OPS.key()
    with pytest.raises(BotError, match="cannot run here"):
        run_model(Path("/nonexistent"), ZOO_DIR / "gru.pte", [], Path("/tmp"), arch=arches.CORTEX_M)


# (d) config: architectures and budgets


def _config(tmp_path: Path, text: str) -> config.Config:
    (tmp_path / "models").mkdir(exist_ok=True)
    (tmp_path / "models" / "m.pte").write_bytes(b"x")
    (tmp_path / config.CONFIG_NAME).write_text(text)
    return config.load(tmp_path)


TARGETS = """
targets:
  phone:
    yaml: apps/phone.yaml
    models: [models/m.pte]
  watch:
    yaml: apps/watch.yaml
    models: [models/m.pte]
"""


def test_architectures_default_to_x86_64_and_int_budgets_still_work(tmp_path: Path) -> None:
    text = TARGETS.replace("yaml: apps/phone.yaml\n", "yaml: apps/phone.yaml\n    size_budget: 5000\n")
    phone, watch = _config(tmp_path, text).targets
    assert phone.architectures == watch.architectures == ("x86-64",)
    assert phone.budget_for("x86-64") == 5000
    assert phone.budget_for(arches.AARCH64) is None  # one figure: a budget on each architecture it is measured for
    assert watch.budget_for("x86-64") is None


def test_top_level_architectures_and_per_target_override(tmp_path: Path) -> None:
    text = (
        "architectures: [x86-64, aarch64]\n"
        + TARGETS
        + ("    architectures: [cortex-m, aarch64]\n    size_budget: {cortex-m: 200000, aarch64: 300000}\n")
    )
    phone, watch = _config(tmp_path, text).targets
    assert phone.architectures == ("x86-64", "aarch64")
    assert watch.architectures == ("cortex-m", "aarch64")  # config order
    assert watch.arches() == (arches.CORTEX_M, arches.AARCH64)
    assert watch.budget_for("cortex-m") == 200000
    assert watch.budget_for(arches.AARCH64) == 300000
    assert watch.budget_for("x86-64") is None


@pytest.mark.parametrize(
    ("snippet", "message"),
    [
        ("architectures: [x86-64, riscv]\n", f"architectures[1]: unknown architecture 'riscv' {KNOWN}"),
        ("architectures: []\n", "architectures: [] should be non-empty"),
        ("architectures: [aarch64, aarch64]\n", "has non-unique elements"),
        ("architectures: aarch64\n", "architectures: 'aarch64' is not of type 'array'"),
    ],
)
def test_bad_architectures_are_named(tmp_path: Path, snippet: str, message: str) -> None:
    with pytest.raises(BotError) as error:
        _config(tmp_path, snippet + TARGETS)
    assert error.value.exit_code == ExitCode.CONFIG
    assert message in error.value.message


@pytest.mark.parametrize(
    ("target_lines", "message"),
    [
        ("    architectures: [arm64]\n", f"targets.watch.architectures[0]: unknown architecture 'arm64' {KNOWN}"),
        ("    size_budget: {arm64: 5}\n", f"targets.watch.size_budget: unknown architecture 'arm64' {KNOWN}"),
        ("    size_budget: {aarch64: 5}\n", "size_budget: a budget for aarch64, which the target is not measured for"),
        ("    size_budget: {x86-64: 0}\n", "targets.watch.size_budget.x86-64: 0 is less than the minimum of 1"),
        ("    size_budget: {}\n", "targets.watch.size_budget: {} should be non-empty"),
        ("    size_budget: 1.5\n", "targets.watch.size_budget: 1.5 is not of type 'integer', 'object'"),
        ("    size_budget: -3\n", "targets.watch.size_budget: -3 is less than the minimum of 1"),
    ],
)  # fmt: skip
def test_bad_budgets_are_named(tmp_path: Path, target_lines: str, message: str) -> None:
    with pytest.raises(BotError) as error:
        _config(tmp_path, TARGETS + target_lines)
    assert error.value.exit_code == ExitCode.CONFIG
    assert message in error.value.message


def test_schema_names_exactly_the_known_architectures() -> None:
    schema = yaml.safe_load(config.SCHEMA_PATH.read_text())
    assert schema["$defs"]["arch_name"]["enum"] == list(arches.ARCHES)


def test_unknown_arch_lookup_names_the_known_ones() -> None:
    with pytest.raises(BotError, match=r"unknown architecture 'mips' \(known: x86-64, aarch64, cortex-m\)") as error:
        arches.get("mips")
    assert error.value.exit_code == ExitCode.CONFIG


def test_this_repos_config_measures_every_target_on_x86_64_and_aarch64() -> None:
    cfg = config.load(REPO)
    for target in cfg.targets:
        assert target.architectures[:2] == ("x86-64", "aarch64"), target.name
    assert "cortex-m" in cfg.target("sensor-app").architectures
