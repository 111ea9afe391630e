"""The architectures a runtime is built and measured for.

Each one names how to build for it (a CMake toolchain file under the runtime's
source directory, or the host compiler), which binutils read its binaries, and
how to run them here: natively, under qemu-user, or not at all (a
microcontroller: only the size probe is built).
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from bot.errors import BotError, ExitCode

# Where Debian's cross toolchain keeps the aarch64 dynamic loader and libc;
# qemu-aarch64 looks up the target's absolute library paths under it.
AARCH64_SYSROOT = "/usr/aarch64-linux-gnu"


@dataclass(frozen=True)
class Arch:
    name: str  # as written in .selective-build.yml and shown in the comment
    description: str
    toolchain_file: str | None  # relative to the runtime source dir; None: the host compiler
    binutils_prefix: str  # strip, readelf, nm, c++filt are f"{prefix}strip", ...
    emulator: tuple[str, ...] | None  # command prefix running its binaries here; (): natively; None: cannot run
    runs_models: bool  # False: only the size probe is built for it
    # The -march of an optimized runtime when the config names none (None: the toolchain's default,
    # which on aarch64 already has NEON).
    optimized_cpu: str | None = None

    @property
    def compiler(self) -> str:
        """The C++ compiler the toolchain file names (the host's g++ for x86-64)."""
        return f"{self.binutils_prefix}g++"

    def tool(self, name: str) -> str:
        """A binutils program for this architecture's binaries: tool("readelf") -> "aarch64-linux-gnu-readelf"."""
        return f"{self.binutils_prefix}{name}"


HOST = Arch(
    name="x86-64",
    description="x86-64 Linux",
    toolchain_file=None,
    binutils_prefix="",
    emulator=(),
    runs_models=True,
    optimized_cpu="x86-64-v3",  # AVX2 and FMA: every x86-64 desktop CPU since 2013-2015
)
AARCH64 = Arch(
    name="aarch64",
    description="aarch64 Linux/Android",
    toolchain_file="cmake/toolchains/aarch64-linux-gnu.cmake",
    binutils_prefix="aarch64-linux-gnu-",
    emulator=("qemu-aarch64", "-L", AARCH64_SYSROOT),
    runs_models=True,
)
CORTEX_M = Arch(
    name="cortex-m",
    description="Arm Cortex-M4 (Thumb-2, newlib-nano)",
    toolchain_file="cmake/toolchains/arm-none-eabi.cmake",
    binutils_prefix="arm-none-eabi-",
    emulator=None,
    runs_models=False,
)
ARCHES: dict[str, Arch] = {arch.name: arch for arch in (HOST, AARCH64, CORTEX_M)}


def get(name: str) -> Arch:
    try:
        return ARCHES[name]
    except KeyError:
        known = ", ".join(ARCHES)
        raise BotError(f"unknown architecture {name!r} (known: {known})", ExitCode.CONFIG) from None


def missing_tools(arch: Arch, *, run: bool = True) -> str | None:
    """What is missing to build and measure (and with `run`, to run models) for `arch`, as one line; None if nothing."""
    needed = [arch.compiler, arch.tool("strip"), arch.tool("readelf")]
    if run and arch.emulator:
        needed.append(arch.emulator[0])
    missing = [tool for tool in needed if shutil.which(tool) is None]
    if run and arch.emulator and "-L" in arch.emulator:
        sysroot = arch.emulator[arch.emulator.index("-L") + 1]
        if not Path(sysroot, "lib").is_dir():
            missing.append(f"{sysroot} (the target's libc)")
    if not missing:
        return None
    return f"{', '.join(missing)} not found: run scripts/setup.sh"
