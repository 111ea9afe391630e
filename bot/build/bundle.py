"""Where the runtime and the portable kernel library come from, and at which version.

An installed package carries them in `bot/_bundled/` (copied there by setup.py
when the wheel is built): `native/` (core, runner, CMake, size probes) and
`kernels/` (functions.yaml and the portable kernels), at the tool's version. A
source checkout has no `_bundled/`: its own `native/` and `kernels/` are used.

App repositories that carry no runtime of their own build this one
(bot/config.py); the runtime repository builds its own tree.
"""

from __future__ import annotations

import functools
import re
from importlib import metadata
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parents[1]  # bot/
BUNDLE_DIR_NAME = "_bundled"
DISTRIBUTION = "selective-build"
RUNTIME_DIR = "native"
PORTABLE_LIBRARY = Path("kernels") / "portable" / "functions.yaml"
# The bundled backends' node kinds as ops (native/backends/xnnpack runs them): part of every selection.
NODE_KIND_LIBRARY = Path("kernels") / "xnnpack" / "functions.yaml"
# ExecuTorch's quantized library (quantized_decomposed::*, the q/dq ops of PT2E programs without a delegate)
# and its LLM custom ops (llama::custom_sdpa.out, ...): compiled by the runtime itself beside the portable
# library, and part of every selection likewise.
QUANTIZED_LIBRARY = Path("kernels") / "quantized" / "functions.yaml"
LLM_LIBRARY = Path("kernels") / "llm" / "functions.yaml"
# The prim ops (aten::sym_size.int, executorch_prim::*): selected like any op, compiled when selected.
PRIM_LIBRARY = Path("kernels") / "prim" / "functions.yaml"
# The libraries beside kernels/portable that the runtime's CMake project always compiles.
COMPANION_LIBRARIES = (NODE_KIND_LIBRARY, QUANTIZED_LIBRARY, LLM_LIBRARY, PRIM_LIBRARY)


def root() -> Path:
    """The directory holding `native/` and `kernels/`: the package's bundle, or the source checkout."""
    bundled = PACKAGE_DIR / BUNDLE_DIR_NAME
    return bundled if (bundled / RUNTIME_DIR).is_dir() else PACKAGE_DIR.parent


def is_installed() -> bool:
    """True when the runtime comes from an installed package (not a source checkout)."""
    return root() != PACKAGE_DIR.parent


def runtime_dir() -> Path:
    """The bundled runtime's CMake project."""
    return root() / RUNTIME_DIR


def portable_library() -> Path:
    """The bundled portable kernel library's functions.yaml."""
    return root() / PORTABLE_LIBRARY


def runtime_libraries() -> list[Path]:
    """The functions.yaml of every library the bundled runtime compiles itself (portable, and its companions)."""
    return [root() / PORTABLE_LIBRARY, *(root() / library for library in COMPANION_LIBRARIES)]


def contains(path: Path) -> bool:
    """Whether `path` lies in the bundle (the tool's own files: trusted, not PR-controlled)."""
    return path.resolve().is_relative_to(root().resolve())


@functools.cache
def version() -> str:
    """The tool's version: the installed distribution's, else pyproject.toml's in a source checkout."""
    if not is_installed():
        pyproject = PACKAGE_DIR.parent / "pyproject.toml"
        if pyproject.is_file():
            found = re.search(r'^version\s*=\s*"([^"]+)"', pyproject.read_text(), re.MULTILINE)
            if found:
                return found.group(1)
    try:
        return metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return "unknown"


def describe() -> str:
    """How a report names the bundled runtime."""
    return f"bundled runtime of {DISTRIBUTION} {version()}"


OWN_RUNTIME = "this repository's native/"


def describe_own(source_dir: Path) -> str:
    """How a report names a repository's own runtime (`source_dir` relative to its root)."""
    return f"this repository's {source_dir.as_posix().rstrip('/')}/"
