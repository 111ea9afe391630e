"""Which kernels a runtime is built with: the portable library only (the smallest runtime), or the
optimized library's kernels preferred for every op it has or for the ops named, built for a -march.

A target's `kernels:` and `cpu:` (bot/config.py) and `bot build --kernels/--cpu` both become a
`KernelChoice`; builds read its CMake options, the report its label and cpu.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.build import arch as arches

ALL_OPS = "ALL"  # SB_OPTIMIZED_OPS's value for every op the optimized library has (native/CMakeLists.txt)


@dataclass(frozen=True)
class KernelChoice:
    optimized: bool = False
    ops: tuple[str, ...] = ()  # with `optimized`: the ops to take from the optimized library (empty: every one)
    cpus: tuple[tuple[str, str], ...] = ()  # (architecture, -march) named for the optimized kernels

    @staticmethod
    def every_optimized(cpu: str | None = None, arch: arches.Arch = arches.HOST) -> KernelChoice:
        """Every op the optimized library has, built for `cpu` on `arch` (None: `arch`'s usual cpu)."""
        return KernelChoice(True, (), ((arch.name, cpu),) if cpu else ())

    @property
    def label(self) -> str:
        """How the report names it: "portable", "optimized" (every op the optimized library has) or
        "optimized: 2 ops"."""
        if not self.optimized:
            return "portable"
        if not self.ops:
            return "optimized"
        return f"optimized: {len(self.ops)} op{'s' if len(self.ops) != 1 else ''}"

    def cpu_for(self, arch: str | arches.Arch) -> str | None:
        """The -march of the optimized kernels on `arch` (None: portable, or the toolchain's default)."""
        if not self.optimized:
            return None
        arch = arches.get(arch) if isinstance(arch, str) else arch
        return dict(self.cpus).get(arch.name) or arch.optimized_cpu

    def portable(self) -> KernelChoice:
        """The same selection with portable kernels only: what an optimized choice is measured against."""
        return KernelChoice()

    def cmake_options(self, arch: str | arches.Arch) -> dict[str, str]:
        """The CMake cache options on `arch`. Empty for portable kernels, so a portable build's
        flavour (and its build directory) stays what it always was."""
        if not self.optimized:
            return {}
        options = {"SB_OPTIMIZED_OPS": ",".join(self.ops) if self.ops else ALL_OPS}
        cpu = self.cpu_for(arch)
        if cpu:
            options["SB_CPU"] = cpu
        return options


PORTABLE = KernelChoice()
