"""Kernel libraries, as described by ExecuTorch-style `functions.yaml` files."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from bot import safe_yaml
from bot.limits import DEFAULT_LIMITS, MIB
from bot.safe_files import UnsafeFileError, inside_repo, read_text

# Kernel sources are read only to find their KernelDefs; the largest portable kernel is ~20 KB.
KERNEL_SOURCE_BYTES = 4 * MIB


class KernelLibraryError(ValueError):
    """A functions.yaml that cannot be used; the message names file and entry."""


@dataclass(frozen=True)
class KernelEntry:
    op: str  # full operator name, e.g. "aten::add.out"
    kernel_name: str  # C++ symbol of the KernelDef, e.g. "sb::kernels::add_out"
    source: Path  # the functions.yaml that declared it


def _op_name(entry: dict, path: Path, index: int) -> str:
    if "op" in entry:
        name = str(entry["op"])
        return name if "::" in name else f"aten::{name}"
    if "func" in entry:
        # "ns::name.overload(schema) -> ret": the name is what precedes "(".
        return str(entry["func"]).split("(", 1)[0].strip()
    raise KernelLibraryError(f"{path}: entry {index} has neither 'op' nor 'func'")


def functions_yaml_entries(data: object, path: Path) -> list[KernelEntry]:
    """The kernels of an already loaded functions.yaml."""
    if not isinstance(data, list):
        raise KernelLibraryError(f"{path}: expected a list of kernel entries")
    entries: list[KernelEntry] = []
    for index, item in enumerate(data):
        if not isinstance(item, dict):
            raise KernelLibraryError(f"{path}: entry {index} is not a mapping")
        op = _op_name(item, path, index)
        kernels = item.get("kernels")
        if not isinstance(kernels, list) or not kernels or not isinstance(kernels[0], dict):
            raise KernelLibraryError(f"{path}: {op} has no kernels list")
        # Only the default (arg_meta: null) kernel matters for a portable build.
        default = next((k for k in kernels if isinstance(k, dict) and k.get("arg_meta") is None), kernels[0])
        kernel_name = default.get("kernel_name")
        if not isinstance(kernel_name, str) or not kernel_name:
            raise KernelLibraryError(f"{path}: {op} has no kernel_name")
        entries.append(KernelEntry(op=op, kernel_name=kernel_name, source=path))
    return entries


def load_libraries(paths: list[Path], limit_bytes: int = DEFAULT_LIMITS.yaml_bytes) -> dict[str, KernelEntry]:
    """All kernels of the given libraries by op name; an op defined twice is an error."""
    by_op: dict[str, KernelEntry] = {}
    for path in paths:
        try:
            data = safe_yaml.load_file(path, limit_bytes)
        except (UnsafeFileError, safe_yaml.YamlError) as exc:
            raise KernelLibraryError(str(exc)) from None
        for entry in functions_yaml_entries(data, path):
            if entry.op in by_op:
                raise KernelLibraryError(f"{entry.op} is implemented by both {by_op[entry.op].source} and {path}")
            by_op[entry.op] = entry
    return by_op


KERNEL_DEFINITION = re.compile(r"^extern const (?:::)?(?:sb::)?KernelDef (\w+)\s*\{", re.MULTILINE)


def find_definitions(sources: Iterable[Path], root: Path | None = None) -> tuple[dict[str, Path], list[Path]]:
    """Which source defines each KernelDef (by reading the code, not a hand-kept list),
    and the sources that define none (shared helpers).

    With `root`, a source that leads out of it (a symlink) is refused before it is read.
    """
    defined_in: dict[str, Path] = {}
    helpers: list[Path] = []
    for source in sources:
        try:
            if root is not None:
                inside_repo(root, os.path.relpath(source, root), "kernel source")
            text = read_text(source, KERNEL_SOURCE_BYTES, "a kernel source")
        except UnsafeFileError as exc:
            raise KernelLibraryError(str(exc)) from None
        names = KERNEL_DEFINITION.findall(text)
        if not names:
            helpers.append(source)
        for name in names:
            defined_in[name] = source
    return defined_in, helpers


def op_sources(library: dict[str, KernelEntry], sources: Iterable[Path], root: Path | None = None) -> dict[str, Path]:
    """Op name -> the source file of its kernel, for the ops whose kernel is found."""
    defined_in, _ = find_definitions(sources, root)
    found = {}
    for op, entry in library.items():
        source = defined_in.get(entry.kernel_name.rpartition("::")[2])
        if source is not None:
            found[op] = source
    return found
