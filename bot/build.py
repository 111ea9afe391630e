"""Builds runtime flavours of native/ with CMake + Ninja (from PyPI).

A flavour is identified by its configure options; each gets its own build
directory under the cache, so rebuilding one is incremental.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import re
import shutil
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from bot import arch as arches
from bot import bundle, lock, sandbox
from bot.errors import BotError, ExitCode
from bot.fileio import write_text_atomic
from bot.kernel_library import KernelLibrary, KernelLibraryError
from bot.limits import DEFAULT_LIMITS, Limits

REPO_ROOT = bundle.root()  # the source checkout, or an installed package's bundle (native/ and kernels/)
BUILD_DIR_NAME = ".sb-build"
CONFIGURED_STAMP = ".sb-configured"  # the configure command, written once it has succeeded
LOCK_NAME = ".sb-lock"
COMPILER_DIAGNOSTIC = re.compile(r"^\S+:\d+:\d+: (fatal )?error:")
LOG_TAIL_LINES = 30


def cache_dir() -> Path:
    """Where the PR pipeline keeps its worktrees (reused across runs)."""
    default = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "selective-build"
    return Path(os.environ.get("SB_CACHE_DIR", default))


def bundled_build_dir(flavour: Flavour, trusted: bool = False) -> Path:
    """Where a flavour of the installed package's runtime is built: the cache, by tool version, and apart
    for the base (trusted) and PR builds, so PR code never writes a directory the base is built in."""
    return cache_dir() / "bundled-runtime" / bundle.version() / ("base" if trusted else "pr") / flavour.key()


def ccache_home() -> Path:
    """Where the compiler caches live (SB_CCACHE_DIR): apart from the user's own ccache, which PR code never
    writes, and from the pipeline's cache, so that runs with their own SB_CACHE_DIR still share compiles."""
    default = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "selective-build-ccache"
    return Path(os.environ.get("SB_CCACHE_DIR", default))


def ccache_env(trusted: bool) -> tuple[dict[str, str], tuple[Path, ...], tuple[Path, ...]]:
    """The compiler cache of a build: (environment, paths it reads, paths it writes).

    The base (trusted) builds keep their own cache and also store every result in a shared one;
    PR builds have a cache of their own and only read the shared one. So PR code can
    never plant an object that a base build would take for its own, and a PR's head still
    hits on every file it did not change. Paths relative to the checkout in ccache's hashes
    let clones and worktrees of the same code share hits."""
    home = ccache_home()
    shared, own = home / "shared", home / ("base" if trusted else "pr")
    shared.mkdir(parents=True, exist_ok=True)
    env = {"CCACHE_DIR": str(own), "CCACHE_NOHASHDIR": "1"}
    env["CCACHE_REMOTE_STORAGE"] = f"file:{shared}" + ("" if trusted else "|read-only")
    return env, (() if trusted else (shared,)), ((own, shared) if trusted else (own,))


def _tool(name: str) -> str:
    """The cmake/ninja of the PyPI packages when installed, else the PATH's."""
    try:
        if name == "cmake":
            import cmake

            candidate = Path(cmake.CMAKE_BIN_DIR) / "cmake"
        else:
            import ninja

            candidate = Path(ninja.BIN_DIR) / "ninja"
        if candidate.exists():
            return str(candidate)
    except ImportError:
        pass
    found = shutil.which(name)
    if found is None:
        raise BotError(f"{name} not found: run scripts/setup.sh", ExitCode.BUILD)
    return found


@dataclass(frozen=True)
class Flavour:
    """What to build: a name for humans, the CMake cache options and the architecture (bot/arch.py)."""

    name: str
    options: dict[str, str] = field(default_factory=dict)
    build_type: str = "Release"
    arch: str = arches.HOST.name

    def key(self) -> str:
        text = repr((sorted(self.options.items()), self.build_type))
        if self.arch != arches.HOST.name:
            # Host keys are unchanged from before architectures existed, so existing build directories stay warm.
            text += f"\0{self.arch}"
            return f"{self.name}-{self.arch}-{hashlib.sha256(text.encode()).hexdigest()[:10]}"
        return f"{self.name}-{hashlib.sha256(text.encode()).hexdigest()[:10]}"

    def for_arch(self, arch: arches.Arch | str) -> Flavour:
        """The same flavour built for another architecture."""
        return dataclasses.replace(self, arch=arch if isinstance(arch, str) else arch.name)


ALL_OPS = Flavour("all-ops")


def selective_flavour(
    ops_yaml: Path, dtype_selective: bool = True, lenient_calls: bool = False, arch: str = arches.HOST.name
) -> Flavour:
    """A runtime registering just the ops of `ops_yaml` (and, by default, just their dtypes).

    `lenient_calls` is for selections of traced ops only (config `include: traced`).
    """
    options = {"SELECT_OPS_YAML": str(ops_yaml.resolve()), "SB_DTYPE_SELECTIVE": "ON" if dtype_selective else "OFF"}
    if lenient_calls:
        options["SB_LENIENT_CALLS"] = "ON"
    return Flavour(f"selective-{ops_yaml.parent.name}-{ops_yaml.stem}", options, arch=arch)


def kernel_choice_options(optimized_ops: str | Sequence[str] | None, cpu: str | None) -> dict[str, str]:
    """The CMake options of a target's kernel choice: `optimized_ops` "ALL", the ops whose optimized
    kernel to prefer, or None/empty for portable only; `cpu` the -march of the optimized kernels (None:
    the compiler's default). Empty for a portable build at the default cpu, so its flavour key stays."""
    options: dict[str, str] = {}
    if optimized_ops:
        options["SB_OPTIMIZED_OPS"] = optimized_ops if isinstance(optimized_ops, str) else ",".join(optimized_ops)
    if cpu:
        options["SB_CPU"] = cpu
    return options


def optimized_all_ops(cpu: str | None = None) -> Flavour:
    """Every op, with the optimized library preferred wherever it has a kernel."""
    return with_options(Flavour("all-ops-optimized"), kernel_choice_options("ALL", cpu))


def with_options(flavour: Flavour, options: dict[str, str]) -> Flavour:
    """The flavour with more CMake cache options (the same flavour when there are none)."""
    if not options:
        return flavour
    return dataclasses.replace(flavour, options={**flavour.options, **options})


def kernel_library_options(root: Path, libraries: Sequence[KernelLibrary]) -> dict[str, str]:
    """The CMake options that compile the config's kernel libraries besides the runtime's portable one:
    every library's functions.yaml (SB_KERNEL_LIBRARIES) and the others' sources (SB_KERNEL_SOURCES).

    None when the portable library is all there is, so such builds keep their flavour keys.
    Raises KernelLibraryError when a library's sources cannot be listed (one leads out of the repo).
    """
    extra = [library for library in libraries if not library.portable]
    if not extra:
        return {}
    yamls = [str((root / library.yaml).resolve()) for library in libraries]
    sources = [str(path.resolve()) for library in extra for path in library.source_files(root)]
    for value in (*yamls, *sources):
        if ";" in value:
            raise KernelLibraryError(f"{value}: a kernel library path cannot hold ';' (CMake's list separator)")
    return {"SB_KERNEL_LIBRARIES": ";".join(yamls), "SB_KERNEL_SOURCES": ";".join(sources)}


SIZE_PROBE = "runtime_size_probe"  # the measured binary; its linker map is f"{SIZE_PROBE}.map" beside it


def size_targets(arch: arches.Arch) -> tuple[str, ...]:
    """What to build to measure a runtime's size on `arch` (on a microcontroller, the freestanding probe)."""
    del arch  # every architecture has the probe
    return (SIZE_PROBE,)


def runtime_targets(arch: arches.Arch) -> tuple[str, ...]:
    """What to build for a target on `arch`: the runner (for smoke runs) where models run, and the size probe."""
    return ("executor_runner", SIZE_PROBE) if arch.runs_models else size_targets(arch)


def log_tail(text: str, lines: int = LOG_TAIL_LINES) -> str:
    return "\n".join(text.rstrip().splitlines()[-lines:])


def first_error(log: str) -> str:
    """The first `error:` line of a build log, with CMake's wrapped continuation lines joined."""
    lines = log.splitlines()
    for i, line in enumerate(lines):
        if "error:" in line.lower():
            parts = [line.strip()]
            if COMPILER_DIAGNOSTIC.match(line.strip()):
                return parts[0]  # what follows is the source excerpt, not more message
            for follow in lines[i + 1 :]:
                if not follow.startswith("  ") or not follow.strip() or "error" in follow.lower():
                    break
                parts.append(follow.strip())
            return " ".join(parts)
    return next((ln.strip() for ln in reversed(lines) if ln.strip()), "no output")


def _run(cmd: list[str], cwd: Path, what: str, limits: Limits, view: sandbox.View, env: dict[str, str]) -> None:
    proc = sandbox.run_build(cmd, what=what, limits=limits, cwd=cwd, extra_env=env, view=view)
    if proc.returncode != 0:
        log = proc.log
        raise BotError(f"{what} failed: {first_error(log)[:400]}", ExitCode.BUILD, detail=log_tail(log))


def build(
    flavour: Flavour,
    targets: tuple[str, ...] = ("executor_runner",),
    source_dir: Path | None = None,
    build_dir: Path | None = None,
    limits: Limits = DEFAULT_LIMITS,
    trusted: bool = False,
    reads: Sequence[Path] = (),
) -> Path:
    """Configures (once) and builds `targets` in the sandbox; returns the build directory.

    Build directories live inside the checkout (`.sb-build/<flavour>`), so that
    two checkouts of the same code (head and the base worktree, or a fresh
    clone) compile with identical relative paths and share ccache hits.
    `trusted`: the base's code (bot/sandbox.py); `reads`: what the build reads outside its
    checkout (an app's repository, for the bundled runtime; a selection yaml in the cache).
    """
    source = (source_dir or bundle.runtime_dir()).resolve()
    ccache_base = source.parent
    if build_dir is None and bundle.is_installed() and bundle.contains(source):
        # The installed package's runtime: never build inside site-packages. Every checkout
        # (head, base) builds it in the same cache directory, so their compiles share ccache hits.
        build_dir = bundled_build_dir(flavour, trusted)
        ccache_base = Path(os.path.commonpath([source.parent, build_dir.parent.parent]))
    out = (build_dir or source.parent / BUILD_DIR_NAME / flavour.key()).resolve()
    if build_dir is None and not out.is_relative_to(source.parent):
        # A checked-in .sb-build symlink must not send the build elsewhere.
        raise BotError(
            f"{source.parent / BUILD_DIR_NAME}: leads outside the checkout; refusing to build there", ExitCode.BUILD
        )
    out.mkdir(parents=True, exist_ok=True)
    with lock.exclusive(out / LOCK_NAME, f"the build directory {out}"):
        configure = [
            _tool("cmake"),
            "-S",
            str(source),
            "-B",
            str(out),
            "-G",
            "Ninja",
            f"-DCMAKE_MAKE_PROGRAM={_tool('ninja')}",
            f"-DCMAKE_BUILD_TYPE={flavour.build_type}",
            f"-DPython3_EXECUTABLE={sys.executable}",
        ]
        configure += [f"-D{k}={v}" for k, v in sorted(flavour.options.items())]
        target_arch = arches.get(flavour.arch)
        if target_arch.toolchain_file is not None:
            missing = arches.missing_tools(target_arch, run=False)
            if missing is not None:
                raise BotError(f"cannot build {flavour.name} for {target_arch.name}: {missing}", ExitCode.BUILD)
            toolchain = source / target_arch.toolchain_file
            if not toolchain.is_file():
                raise BotError(
                    f"cannot build {flavour.name} for {target_arch.name}: {target_arch.toolchain_file} "
                    f"is missing from {source}",
                    ExitCode.BUILD,
                )
            configure.append(f"-DCMAKE_TOOLCHAIN_FILE={toolchain}")
        launcher = shutil.which("ccache")
        if launcher:
            configure.append(f"-DCMAKE_CXX_COMPILER_LAUNCHER={launcher}")
        env, cache_reads, cache_writes = ccache_env(trusted)
        env["CCACHE_BASEDIR"] = str(ccache_base)
        view = sandbox.View(
            reads=(source.parent, *_option_paths(flavour), *reads, *cache_reads),
            writes=(out, *cache_writes),
            trusted=trusted,
        )
        stamp = out / CONFIGURED_STAMP
        if not _configured_by(stamp, configure):
            # Never configured, or a run was killed mid-configure: start from an empty directory.
            _empty_directory(out, keep=(LOCK_NAME,))
            _run(configure, out, f"CMake configure of {flavour.name}", limits, view, env)
            write_text_atomic(stamp, "\0".join(configure))
        build_cmd = [_tool("cmake"), "--build", str(out), "--target", *targets]
        _run(build_cmd, out, f"build of {flavour.name}", limits, view, env)
    return out


def _option_paths(flavour: Flavour) -> list[Path]:
    """Files the CMake options name (a selection yaml, kernel libraries and their sources): the build reads them."""
    found = []
    for value in flavour.options.values():
        for item in value.split(";"):
            if os.path.isabs(item) and os.path.exists(item):
                found.append(Path(item))
    return found


def _configured_by(stamp: Path, command: list[str]) -> bool:
    try:
        return stamp.read_text() == "\0".join(command) and (stamp.parent / "build.ninja").is_file()
    except OSError:
        return False


def _empty_directory(path: Path, keep: tuple[str, ...]) -> None:
    """Empties a CMake build directory; anything else (a mistyped --build-dir) is refused."""
    children = [child for child in path.iterdir() if child.name not in keep]
    if children and not (path / "CMakeCache.txt").is_file() and not (path / CONFIGURED_STAMP).is_file():
        raise BotError(f"{path}: not empty and not a build directory; refusing to build there", ExitCode.BUILD)
    for child in children:
        if child.is_dir() and not child.is_symlink():
            shutil.rmtree(child)
        else:
            child.unlink()


def runner_path(build_dir: Path) -> Path:
    return build_dir / "executor_runner"
