"""Kernel libraries, as described by ExecuTorch-style `functions.yaml` files."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from bot.safety import bounded_walk, safe_yaml
from bot.safety.limits import DEFAULT_LIMITS, MIB, Limits
from bot.safety.safe_files import UnsafeFileError, inside_repo, read_text

# Kernel sources are read only to find their KernelDefs; the largest portable kernel is ~20 KB.
KERNEL_SOURCE_BYTES = 4 * MIB


class KernelLibraryError(ValueError):
    """A functions.yaml that cannot be used; the message names file and entry."""


# `namespace::name.overload`, as ExecuTorch's tools write operator names (custom namespaces included).
OPERATOR_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*::[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z0-9_]+)?$")
# A C++ qualified name (the generated registration refers to the KernelDef by it).
KERNEL_SYMBOL = re.compile(r"^(::)?([A-Za-z_][A-Za-z0-9_]*::)*[A-Za-z_][A-Za-z0-9_]*$")
DEFAULT_SOURCES = ("**/*.cpp",)  # a library's sources when the config names none: every .cpp in its folder tree


@dataclass(frozen=True)
class KernelLibrary:
    """One kernel library of the config: its functions.yaml and the sources that implement it."""

    yaml: Path  # relative to the repo root (absolute only for the bundled portable library)
    sources: tuple[str, ...] = DEFAULT_SOURCES  # globs relative to the yaml's folder
    portable: bool = False  # the runtime's own library, whose sources its CMake project compiles itself
    limits: Limits = DEFAULT_LIMITS  # the config's: bounds the listing of its sources

    def source_files(self, root: Path) -> list[Path]:
        """The library's sources (absolute, sorted); each one stays inside the repo (no symlink leads out).
        Listed once for all its globs, within `limits` (bot/safety/bounded_walk.py: one error line beyond them)."""
        listed = bounded_walk.glob((root / self.yaml).parent, self.sources, self._listing_what(), self.limits)
        found = {p for p in listed if p.suffix in (".cpp", ".cc") and not p.is_dir()}
        if not self.yaml.is_absolute():
            for path in found:
                try:
                    inside_repo(root, os.path.relpath(path, root), "kernel source")
                except UnsafeFileError as exc:
                    raise KernelLibraryError(str(exc)) from None
        return sorted(found)

    def folder(self) -> Path:
        """The folder tree the library's sources live in: its yaml's folder; for the runtime's portable
        library (kernels/portable) the kernels folder above it, which also holds the optimized library
        that the runtime's CMake project compiles with it."""
        return self.yaml.parent.parent if self.portable else self.yaml.parent

    def tree_sources(self, root: Path) -> list[Path]:
        """Every .cpp in the library's folder tree, whatever its globs: what the runtime's own CMake
        project compiles of its portable library. Listed within `limits` as `source_files` is."""
        return bounded_walk.glob(root / self.folder(), ["**/*.cpp"], self._listing_what(), self.limits)

    def _listing_what(self) -> str:
        return f"the sources of kernel library {self.yaml.name if self.yaml.is_absolute() else self.yaml.as_posix()}"


@dataclass(frozen=True)
class KernelEntry:
    op: str  # full operator name, e.g. "aten::add.out"
    kernel_name: str  # C++ symbol of the KernelDef, e.g. "sb::kernels::add_out"
    source: Path  # the functions.yaml that declared it


def _op_name(entry: dict, path: Path, index: int) -> str:
    """The entry's full operator name; without a namespace it is `aten::` (as ExecuTorch's gen_oplist reads it)."""
    if "op" in entry:
        name = str(entry["op"]).strip()
    elif "func" in entry:
        # "ns::name.overload(schema) -> ret": the name is what precedes "(".
        name = str(entry["func"]).split("(", 1)[0].strip()
    else:
        raise KernelLibraryError(f"{path}: entry {index} has neither 'op' nor 'func'")
    full = name if "::" in name else f"aten::{name}"
    if not OPERATOR_NAME.match(full):
        raise KernelLibraryError(
            f"{path}: entry {index}: {name[:80]!r} is not an operator name (namespace::name.overload)"
        )
    return full


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
        if not KERNEL_SYMBOL.match(kernel_name):
            raise KernelLibraryError(f"{path}: {op}: kernel_name {kernel_name[:80]!r} is not a C++ qualified name")
        if any(e.op == op for e in entries):
            raise KernelLibraryError(f"{path}: {op} is listed twice")
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
            clash = next((e for e in by_op.values() if _bare(e.kernel_name) == _bare(entry.kernel_name)), None)
            if clash is not None:
                # Kernel sources are matched to KernelDefs by unqualified name.
                raise KernelLibraryError(
                    f"{path}: {entry.op}: kernel_name {entry.kernel_name} has the same name as {clash.kernel_name} "
                    f"({clash.op}, {clash.source}); give it another"
                )
            by_op[entry.op] = entry
    return by_op


def prefer(
    library: dict[str, KernelEntry], preferred: dict[str, KernelEntry], ops: Iterable[str] | None = None
) -> tuple[dict[str, KernelEntry], dict[str, KernelEntry]]:
    """`library` with the kernels of `preferred` in place of its own, for `ops` (None: every op `preferred` has).

    Returns the merged library and the kernels it replaced (op -> the replaced entry): a preferred kernel
    hands the cases it does not take to the kernel it replaces, so the build compiles both. A preferred
    kernel must replace one (an optimized library adds speed, not ops), and every op named in `ops` must
    be one `preferred` has.
    """
    wanted = set(preferred) if ops is None else set(ops)
    unknown = sorted(wanted - set(preferred))
    if unknown:
        more = f" (and {len(unknown) - 1} more)" if len(unknown) > 1 else ""
        raise KernelLibraryError(f"the optimized kernel library has no kernel for {unknown[0]}{more}")
    merged = dict(library)
    replaced: dict[str, KernelEntry] = {}
    for op in sorted(wanted):
        if op not in library:
            raise KernelLibraryError(
                f"{preferred[op].source}: {op} has no kernel in the other libraries to fall back to"
            )
        replaced[op] = library[op]
        merged[op] = preferred[op]
    return merged, replaced


def _bare(kernel_name: str) -> str:
    return kernel_name.rpartition("::")[2]


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
            if name in defined_in and defined_in[name] != source:
                raise KernelLibraryError(f"KernelDef {name} is defined in both {defined_in[name]} and {source}")
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
