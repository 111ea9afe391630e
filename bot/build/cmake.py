"""Builds runtime flavours of native/ with CMake + Ninja (from PyPI).

A flavour is identified by its configure options; each gets its own build
directory under the cache, so rebuilding one is incremental.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import os
import shutil
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from bot.build import arch as arches
from bot.build import build_log, bundle, lock
from bot.build.kernel_choice import PORTABLE, KernelChoice
from bot.errors import BotError, ExitCode
from bot.fileio import write_text_atomic
from bot.safety import sandbox
from bot.safety.limits import DEFAULT_LIMITS, Limits
from bot.selection import features
from bot.selection.kernel_library import KernelLibrary, KernelLibraryError

REPO_ROOT = bundle.root()  # the source checkout, or an installed package's bundle (native/ and kernels/)
BUILD_DIR_NAME = ".sb-build"
CONFIGURED_STAMP = ".sb-configured"  # the configure command, written once it has succeeded
LOCK_NAME = ".sb-lock"
DEPFILE_CLOCK_SLACK = 2.0  # seconds: a depfile this much older than the build step's start still counts as its


def cache_dir() -> Path:
    """Where the PR pipeline keeps its worktrees (reused across runs)."""
    default = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "selective-build"
    return Path(os.environ.get("SB_CACHE_DIR", default))


def bundled_build_dir(flavour: Flavour, trusted: bool = False) -> Path:
    """Where a flavour of the installed package's runtime is built: the cache, by tool version, and apart
    for the base (trusted) and PR builds, so PR code never writes a directory the base is built in."""
    return cache_dir() / "bundled-runtime" / bundle.version() / _side(trusted) / flavour.key()


def _side(trusted: bool) -> str:
    """The name of a side's own directories. PR code's are the sandbox uid's: each is handed over to the uid
    that builds in it, so runs with sandbox uids of their own (SB_SANDBOX_UID) each keep their own."""
    if trusted:
        return "base"
    uid = sandbox.child_uid(sandbox.View())
    return "pr" if uid is None else f"pr-uid{uid}"


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
    shared, own = home / "shared", home / _side(trusted)
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
    """What to build: a name for humans, the CMake cache options and the architecture (bot/build/arch.py)."""

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
    ops_yaml: Path,
    dtype_selective: bool = True,
    lenient_calls: bool = False,
    arch: str = arches.HOST.name,
    kernels: KernelChoice = PORTABLE,
    core_parts: frozenset[str] | None = None,
) -> Flavour:
    """A runtime registering just the ops of `ops_yaml` (and, by default, just their dtypes), with
    `kernels` on `arch`: what the PR pipeline and `bot build` both build.

    `lenient_calls` is for selections of traced ops only (config `include: traced`). `core_parts`: the
    core's optional parts the runtime keeps (bot/selection/features.py: what the target's programs need);
    None keeps every one.
    """
    options = {"SELECT_OPS_YAML": str(ops_yaml.resolve()), "SB_DTYPE_SELECTIVE": "ON" if dtype_selective else "OFF"}
    if lenient_calls:
        options["SB_LENIENT_CALLS"] = "ON"
    if core_parts is not None:
        options |= {option: "OFF" for part, option in features.CMAKE_OPTIONS.items() if part not in core_parts}
    options |= kernels.cmake_options(arch)
    return Flavour(f"selective-{ops_yaml.parent.name}-{ops_yaml.stem}", options, arch=arch)


def optimized_all_ops(cpu: str | None = None, arch: arches.Arch = arches.HOST) -> Flavour:
    """Every op, with the optimized library preferred wherever it has a kernel, built for `cpu` on `arch`
    (None: the compiler's default, which runs on any host of the architecture)."""
    options = KernelChoice.every_optimized(cpu, arch).cmake_options(arch)
    if cpu is None:
        options.pop("SB_CPU", None)
    return with_options(Flavour("all-ops-optimized"), options)


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


def _run(
    cmd: list[str],
    cwd: Path,
    what: str,
    limits: Limits,
    view: sandbox.View,
    env: dict[str, str],
    scope: build_log.Scope,
    compiles: bool,
) -> None:
    """Runs a configure (`compiles` False) or build step; raises the step's failure (`failure`).

    After a build step, the depfiles its compiles wrote say which files they read: a compile that read a
    file outside the repo and the toolchain fails the step, whatever its exit status (its output is then
    shown as little as what it quoted), and its object is deleted, so the next run compiles and checks it again.
    """
    started = time.time()
    proc = sandbox.run_build(cmd, what=what, limits=limits, cwd=cwd, extra_env=env, view=view)
    tainted = build_log.outside_reads(cwd, scope, since=started - DEPFILE_CLOCK_SLACK) if compiles else {}
    _forget_outputs(cwd, tainted)
    if proc.returncode != 0:
        raise failure(what, (proc.stdout, proc.stderr), scope, tainted)
    if tainted:
        shown = [f"{source}: {build_log.READ_OUTSIDE}" for source in dict.fromkeys(tainted.values())]
        shown = shown[: build_log.MAX_DIAGNOSTICS]
        build_log.to_job_log(f"the compiles of the {what} that read files outside the repository", shown)
        raise BotError(f"{what} failed: {shown[0]}", ExitCode.BUILD, detail="\n".join(shown))


def failure(
    what: str,
    streams: tuple[str, ...],
    scope: build_log.Scope,
    tainted: dict[str, str],
    write: Callable[[str], None] | None = None,
) -> BotError:
    """A failed build step as the one error the report shows: the step, then at most a few of its error lines
    located inside the repo (bot/build/build_log.py). The rest of its output goes to the job log (`write`, stderr),
    without every message about a file outside the repo."""
    shown = [line for text in streams for line in build_log.safe_diagnostics(text, scope.inside, tainted)]
    # Compiles that read an outside file and did not fail are named too (their objects are gone already).
    shown += [
        f"{source}: {build_log.READ_OUTSIDE}"
        for source in dict.fromkeys(tainted.values())
        if not any(line.startswith(f"{source}: ") for line in shown)
    ]
    shown = shown[: build_log.MAX_DIAGNOSTICS]
    kept = [line for text in streams for line in build_log.filtered_log(text, scope.inside, tainted)]
    build_log.to_job_log(f"the output of the failed {what}", kept, write)
    if shown:
        return BotError(f"{what} failed: {shown[0]}", ExitCode.BUILD, detail="\n".join(shown))
    return BotError(f"{what} failed (no message located in the repository: see the job log)", ExitCode.BUILD)


def _forget_outputs(build_dir: Path, outputs: dict[str, str]) -> None:
    """Deletes these outputs of `build_dir` and their depfiles: ninja builds them again next time."""
    for output in outputs:  # relative paths found by walking `build_dir`
        for path in (build_dir / output, build_dir / f"{output}.d"):
            with contextlib.suppress(OSError):
                path.unlink(missing_ok=True)


def log_scope(source: Path, build_dir: Path, options: dict[str, str], repo_root: Path | None = None) -> build_log.Scope:
    """Where a build's messages may point (build_log.Scope): the checkout (`repo_root`, else the nearest
    .git above the sources and above the config's kernel sources), the tool's bundled runtime and the
    build directory; relative paths are the build directory's (the compiler's) or the source directory's
    (CMake's)."""
    roots = [repo_root] if repo_root is not None else []
    if repo_root is None and not bundle.contains(source):
        roots.append(_checkout_of(source) or source.parent)
    if repo_root is None:
        kernel_sources = [Path(p) for p in options.get("SB_KERNEL_SOURCES", "").split(";") if p]
        roots += [checkout for checkout in map(_checkout_of, kernel_sources) if checkout is not None]
    return build_log.Scope.of([*roots, bundle.root(), build_dir], (build_dir, source))


def _checkout_of(path: Path) -> Path | None:
    """The nearest directory holding `path` that has a .git (a clone or a worktree), if any."""
    resolved = path.resolve()
    for directory in (resolved, *resolved.parents):
        if (directory != resolved or resolved.is_dir()) and (directory / ".git").exists():
            return directory
    return None


def build(
    flavour: Flavour,
    targets: tuple[str, ...] = ("executor_runner",),
    source_dir: Path | None = None,
    build_dir: Path | None = None,
    limits: Limits = DEFAULT_LIMITS,
    trusted: bool = False,
    repo_root: Path | None = None,
) -> Path:
    """Configures (once) and builds `targets` in the sandbox; returns the build directory.

    `repo_root`: the checkout whose sources are built (its config's root), where the build's messages
    may point (`log_scope`); by default the nearest directory with a .git above the sources.

    Build directories live inside the checkout (`.sb-build/<flavour>`), so that
    two checkouts of the same code (head and the base worktree, or a fresh
    clone) compile with identical relative paths and share ccache hits.
    `trusted`: the base's code (bot/safety/sandbox.py).
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
    scope = log_scope(source, out, flavour.options, repo_root)
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
        # The portable library is named even where CMake's default would find it: a build directory
        # configured before the library's yaml moved keeps the old path in its cache otherwise.
        options = {"SB_KERNEL_LIBRARIES": str(source.parent / bundle.PORTABLE_LIBRARY), **flavour.options}
        configure += [f"-D{k}={v}" for k, v in sorted(options.items())]
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
            # What the build's messages may point at is what it may read: the checkout(s), the bundled runtime.
            reads=(source.parent, *map(Path, scope.roots), *_option_paths(flavour), *cache_reads),
            writes=(out, *cache_writes),
            trusted=trusted,
        )
        stamp = out / CONFIGURED_STAMP
        if not _configured_by(stamp, configure):
            # Never configured, or a run was killed mid-configure: start from an empty directory.
            _empty_directory(out, keep=(LOCK_NAME,))
            _run(configure, out, f"CMake configure of {flavour.name}", limits, view, env, scope, compiles=False)
            write_text_atomic(stamp, "\0".join(configure))
        # keepdepfile: ninja leaves each compile's depfile (the files it read) for build_log.outside_reads.
        build_cmd = [_tool("cmake"), "--build", str(out), "--target", *targets, "--", "-d", "keepdepfile"]
        _run(build_cmd, out, f"build of {flavour.name}", limits, view, env, scope, compiles=True)
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
