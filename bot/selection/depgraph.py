"""The static op dependency graph, read from the kernel library as compiled.

Kernels are compiled with -ffunction-sections, so every function is its own
section and its relocations say exactly what it references: other functions
(calls) and data (strings). From the object files alone (pyelftools) this
derives, for each kernel, the op names reachable from its implementation
through any chain of calls, shared helpers included. Nothing is declared by
hand; a kernel that starts calling an op, directly or through a helper, shows
up as a new edge.
"""

from __future__ import annotations

import re
import struct
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path

from elftools.elf.constants import SH_FLAGS
from elftools.elf.elffile import ELFFile
from elftools.elf.relocation import RelocationSection
from elftools.elf.sections import SymbolTableSection

from bot.build.size import demangle
from bot.errors import ExitCode
from bot.report.model import Edge
from bot.safety import bounded_walk
from bot.safety.limits import DEFAULT_LIMITS, Limits
from bot.selection.kernel_library import KernelEntry

OP_NAME = re.compile(r"^[a-z_][a-z0-9_]*::[A-Za-z0-9_]+(\.[A-Za-z0-9_]+)?$")
# KernelDef layout: op name pointer at 0, signature at 8, implementation at 16.
KERNELDEF_OP_OFFSET = 0
KERNELDEF_FN_OFFSET = 16
LOCAL_SEPARATOR = "@"  # never in a mangled name: a local symbol's key is name@object


@dataclass
class Function:
    source: str  # the object's source file name, e.g. "op_addmm.cpp"
    strings: set[str] = field(default_factory=set)
    calls: set[str] = field(default_factory=set)  # symbol names


@dataclass
class Objects:
    """Functions and kernel definitions found in a set of object files."""

    functions: dict[str, Function] = field(default_factory=dict)
    kernels: dict[str, tuple[str, str]] = field(default_factory=dict)  # KernelDef symbol -> (impl symbol, source)


@dataclass(frozen=True)
class Graph:
    edges: tuple[Edge, ...]
    kernel_sources: dict[str, str]  # op -> its kernel's source file name

    def callees(self, op: str) -> set[str]:
        return {e.callee for e in self.edges if e.caller == op}

    def closure(self, ops: Iterable[str]) -> set[str]:
        """Every op reachable from `ops` (included)."""
        seen = set(ops)
        pending = list(seen)
        while pending:
            for callee in self.callees(pending.pop()):
                if callee not in seen:
                    seen.add(callee)
                    pending.append(callee)
        return seen

    def pairs(self) -> set[tuple[str, str]]:
        return {(e.caller, e.callee) for e in self.edges}


def _cstring(data: bytes, offset: int) -> str | None:
    if not 0 <= offset < len(data) or (offset > 0 and data[offset - 1] != 0):
        return None
    end = data.find(b"\0", offset)
    if end < 0:
        return None
    try:
        return data[offset:end].decode("ascii")
    except UnicodeDecodeError:
        return None


def _portable_kernel(symbol: str) -> bool:
    return symbol.startswith("_ZN2sb7kernels")


def read_object(path: Path, into: Objects, is_kernel: Callable[[str], bool] = _portable_kernel) -> None:
    """`is_kernel`: which data symbols are KernelDefs (by mangled name; default: the portable library's)."""
    source = path.name.removesuffix(".o")
    with path.open("rb") as f:
        elf = ELFFile(f)
        sections = list(elf.iter_sections())
        symtab = next((sec for sec in sections if sec.name == ".symtab"), None)
        if not isinstance(symtab, SymbolTableSection):
            return
        symbols = list(symtab.iter_symbols())
        data_cache: dict[int, bytes] = {}
        # Every relocation asks which symbol covers an offset of a section: a scan of that section's symbols
        # only (with -ffunction-sections, one or a few), in symbol table order as before, not of them all.
        by_section: dict[tuple[object, str], list[tuple[int, int, str]]] = {}
        first_value: dict[str, int] = {}
        for sym in symbols:
            if not sym.name:
                continue
            key = _symbol_key(sym, source)
            first_value.setdefault(key, sym["st_value"])
            start = sym["st_value"]
            span = (start, start + max(sym["st_size"], 1), key)
            by_section.setdefault((sym["st_shndx"], sym["st_info"]["type"]), []).append(span)

        def section_data(index: int) -> bytes:
            if index not in data_cache:
                sec = sections[index]
                data_cache[index] = b"" if sec["sh_type"] == "SHT_NOBITS" else sec.data()
            return data_cache[index]

        def defined_at(index: int, offset: int, kind: str) -> str | None:
            for start, end, key in by_section.get((index, kind), ()):
                if start <= offset < end:
                    return key
            return None

        for rel_section in sections:
            if not isinstance(rel_section, RelocationSection):
                continue
            target_index = rel_section["sh_info"]
            if not 0 < target_index < len(sections):
                continue
            target = sections[target_index]
            executable = bool(target["sh_flags"] & SH_FLAGS.SHF_EXECINSTR)
            for where, sym_index, addend in _relocations(elf, rel_section):
                sym = symbols[sym_index]
                if executable:
                    owner = defined_at(target_index, where, "STT_FUNC")
                    if owner is None:
                        continue
                    fn = into.functions.setdefault(owner, Function(source))
                    _resolve(sym, addend, sections, section_data, defined_at, fn)
                else:
                    holder = defined_at(target_index, where, "STT_OBJECT")
                    if holder is None or not is_kernel(holder):
                        continue
                    offset_in = where - first_value[holder]
                    if offset_in == KERNELDEF_FN_OFFSET:
                        impl = _symbol_target(sym, addend, defined_at)
                        if impl:
                            into.kernels[holder] = (impl, source)


_RELA64 = struct.Struct("<QQq")  # r_offset, r_info, r_addend of a little-endian ELF64 object
_REL64 = struct.Struct("<QQ")


def _relocations(elf: ELFFile, section: RelocationSection) -> Iterator[tuple[int, int, int]]:
    """(offset, symbol index, addend) of each relocation of `section`.

    A little-endian ELF64 object (every host the tracer builds on) is unpacked directly: pyelftools parses
    entry by entry, which was most of the time of reading the op graph. Any other layout goes through it."""
    rela = section.is_RELA()
    layout = _RELA64 if rela else _REL64
    if elf.elfclass == 64 and elf.little_endian and section["sh_entsize"] == layout.size:
        data = section.data()
        usable = len(data) - len(data) % layout.size
        for entry in layout.iter_unpack(data[:usable]):
            yield entry[0], entry[1] >> 32, entry[2] if rela else 0
        return
    for rel in section.iter_relocations():
        yield rel["r_offset"], rel["r_info_sym"], rel["r_addend"] if rel.is_RELA() else 0


def _symbol_key(sym, source: str) -> str:
    """A function's identity across the library. Local symbols (internal linkage:
    anonymous namespaces, templates over a file's own `kOp`) carry the same
    mangled name in every object that has one, so they are told apart by object."""
    if sym["st_info"]["bind"] == "STB_LOCAL":
        return f"{sym.name}{LOCAL_SEPARATOR}{source}"
    return sym.name


def _mangled(key: str) -> str:
    return key.partition(LOCAL_SEPARATOR)[0]


def _symbol_target(sym, addend: int, defined_at) -> str | None:
    if sym["st_info"]["type"] == "STT_FUNC" and sym.name:
        return (
            sym.name
            if sym["st_info"]["bind"] != "STB_LOCAL"
            else defined_at(sym["st_shndx"], sym["st_value"], "STT_FUNC")
        )
    if sym["st_shndx"] in ("SHN_UNDEF", "SHN_ABS", "SHN_COMMON"):
        return sym.name or None
    return defined_at(sym["st_shndx"], sym["st_value"] + addend, "STT_FUNC")


def _resolve(sym, addend: int, sections, section_data, defined_at, fn: Function) -> None:
    shndx = sym["st_shndx"]
    if shndx == "SHN_UNDEF":
        if sym.name:
            fn.calls.add(sym.name)
        return
    if not isinstance(shndx, int):
        return
    section = sections[shndx]
    base = sym["st_value"] + addend
    if section["sh_flags"] & SH_FLAGS.SHF_EXECINSTR:
        # PC-relative call/jump: the addend folds in -4 for the displacement.
        callee = defined_at(shndx, base + 4, "STT_FUNC") or defined_at(shndx, base, "STT_FUNC")
        if callee:
            fn.calls.add(callee)
        return
    data = section_data(shndx)
    for offset in (base, base + 4):
        text = _cstring(data, offset)
        if text and OP_NAME.match(text):
            fn.strings.add(text)


def build_graph(objects: Objects, library: dict[str, KernelEntry]) -> Graph:
    """Edges op -> op: the op names a kernel's implementation can reach."""
    by_symbol = kernel_symbols(library)
    edges: set[Edge] = set()
    sources: dict[str, str] = {}
    for symbol, (impl, source) in objects.kernels.items():
        op = by_symbol.get(symbol)
        if op is None:
            continue
        sources[op] = source
        seen = {impl}
        pending = [impl]
        while pending:
            name = pending.pop()
            fn = objects.functions.get(name)
            if fn is None:
                continue
            for text in fn.strings:
                if text in library and text != op:
                    edges.add(Edge(op, text, name, fn.source))
            for callee in fn.calls - seen:
                seen.add(callee)
                pending.append(callee)
    ordered = sorted(edges, key=lambda e: (e.caller, e.callee, e.via))
    readable = demangle([_mangled(e.via) for e in ordered])
    named = tuple(
        Edge(e.caller, e.callee, _function_name(name), e.source) for e, name in zip(ordered, readable, strict=True)
    )
    return Graph(named, dict(sorted(sources.items())))


def mangled_kernel(kernel_name: str) -> str:
    """The Itanium-mangled symbol of a KernelDef named by its qualified name, in any namespace:
    `sb::kernels::add_out` -> `_ZN2sb7kernels7add_outE`, `my_ops::fancy_gelu_out` -> `_ZN6my_ops14fancy_gelu_outE`."""
    parts = kernel_name.removeprefix("::").split("::")
    if len(parts) == 1:
        return parts[0]  # a global variable keeps its plain name
    return "_ZN" + "".join(f"{len(part)}{part}" for part in parts) + "E"


def kernel_symbols(library: dict[str, KernelEntry]) -> dict[str, str]:
    """Mangled KernelDef symbol -> op, for every kernel of the libraries."""
    return {mangled_kernel(entry.kernel_name): op for op, entry in library.items()}


def object_files(build_dir: Path, limits: Limits = DEFAULT_LIMITS) -> list[Path]:
    """The kernel library's objects in a build directory (which a PR's CMakeLists.txt may fill: bounded)."""
    objects = build_dir / "CMakeFiles" / "sb_selected_kernels.dir"
    return bounded_walk.glob(objects, ["**/*.o"], "the kernel library's objects", limits, exit_code=ExitCode.BUILD)


def from_build(build_dir: Path, library: dict[str, KernelEntry], limits: Limits = DEFAULT_LIMITS) -> Graph:
    objects = Objects()
    symbols = kernel_symbols(library)
    for path in object_files(build_dir, limits):
        read_object(path, objects, symbols.__contains__)
    return build_graph(objects, library)


def graph_for_checkout(
    runtime_source: Path,
    library: dict[str, KernelEntry],
    limits: Limits = DEFAULT_LIMITS,
    options: dict[str, str] | None = None,
    *,  # keywords: a checkout passed where `trusted` stands would build PR code as trusted
    trusted: bool = False,
    repo_root: Path | None = None,
) -> Graph:
    """Builds a checkout's kernel library (all kernels, as the tracer does) and reads its graph.

    `runtime_source` is the CMake project, e.g. <checkout>/native; `options` adds the config's
    kernel libraries (cmake.kernel_library_options), so custom kernels are in the graph too;
    `repo_root` is the checkout (cmake.build); `trusted`: the base's kernels (bot/safety/sandbox.py).
    """
    from bot.build import cmake
    from bot.selection import trace

    flavour = replace(trace.TRACER, options={**trace.TRACER.options, **options}) if options else trace.TRACER
    build_dir = cmake.build(
        flavour,
        ("sb_selected_kernels",),
        source_dir=runtime_source,
        limits=limits,
        trusted=trusted,
        repo_root=repo_root,
    )
    return from_build(build_dir, library, limits)


@dataclass(frozen=True)
class GraphDiff:
    added: tuple[Edge, ...]
    removed: tuple[Edge, ...]

    @property
    def changed(self) -> bool:
        return bool(self.added or self.removed)


def diff(base: Graph, head: Graph) -> GraphDiff:
    base_pairs, head_pairs = base.pairs(), head.pairs()
    added = tuple(e for e in head.edges if (e.caller, e.callee) not in base_pairs)
    removed = tuple(e for e in base.edges if (e.caller, e.callee) not in head_pairs)
    return GraphDiff(_unique(added), _unique(removed))


def _unique(edges: tuple[Edge, ...]) -> tuple[Edge, ...]:
    seen: dict[tuple[str, str], Edge] = {}
    for e in edges:
        seen.setdefault((e.caller, e.callee), e)
    return tuple(seen.values())


def _function_name(demangled: str) -> str:
    """`sb::kernels::(anonymous namespace)::mean_out_impl(sb::KernelContext&, ...)` -> `sb::kernels::mean_out_impl`."""
    return demangled.replace("(anonymous namespace)::", "").split("(")[0]
