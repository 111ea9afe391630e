"""Copies the runtime sources and the kernel libraries into the wheel (bot/_bundled/).

The package then builds runtimes for app repositories that carry none of their
own (bot/build/bundle.py). A source checkout uses its own tree: nothing is copied there.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
# What runtime builds need: the CMake project (core, runner, cmake modules and toolchains,
# size probes, the tests and fuzz sources it names), the bundled backends and the kernel libraries.
BUNDLED = {
    "native": ("CMakeLists.txt", "core", "backends", "runner", "cmake", "bench", "tests", "fuzz"),
    "kernels": ("portable", "optimized", "xnnpack", "quantized", "llm", "prim"),
}
SKIP = shutil.ignore_patterns("__pycache__", "*.pyc", ".sb-build", ".sb-*", "*.o")


class BuildPyWithRuntime(build_py):
    def run(self) -> None:
        super().run()
        target = Path(self.build_lib) / "bot" / "_bundled"
        if target.exists():
            shutil.rmtree(target)
        for top, names in BUNDLED.items():
            for name in names:
                source = HERE / top / name
                if source.is_dir():
                    shutil.copytree(source, target / top / name, ignore=SKIP)
                elif source.is_file():
                    (target / top).mkdir(parents=True, exist_ok=True)
                    shutil.copy2(source, target / top / name)
                else:
                    raise FileNotFoundError(f"{source}: missing from the checkout; cannot bundle the runtime")


setup(cmdclass={"build_py": BuildPyWithRuntime})
