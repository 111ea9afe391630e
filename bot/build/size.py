"""Binary size analysis of built runtimes: exact VM bytes, ELF sections, and an
attribution of every loadable byte to symbols and to operators.

The headline is `vm_size`: the bytes of the loadable sections of the stripped
binary (SHF_ALLOC and not SHT_NOBITS: code, read-only data, data, relocations,
dynamic tables, unwind tables), each section's `sh_size` summed without page
padding. Bloaty's sections report counts exactly this per section (its ELF
reader gives an SHF_ALLOC section `sh_size` of VM size and a NOBITS one no file
bytes), so `vm_size` is the sum of bloaty's section rows minus the NOBITS ones
(`bss`, reported apart). Bloaty's TOTAL also has catch-all rows for the gaps
between sections inside each LOAD segment and for the mapped ELF headers
("[LOAD #n]", "[ELF Headers]"): alignment and page padding, left out here.
Unlike the file size, `vm_size` moves by exactly the bytes a change adds or
removes.

Both attributions (`per_op`, `symbols`) sum to `vm_size` exactly, by
construction: every loadable section is walked by address, each byte goes to at
most one owner (an input section of the linker map, or a symbol), and the bytes
no owner covers are named remainders.
"""

from __future__ import annotations

import dataclasses
import re
import shutil
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bot.build.arch import HOST, Arch
from bot.errors import BotError, ExitCode
from bot.report.model import SizeReport
from bot.safety import safe_files, sandbox
from bot.safety.limits import DEFAULT_LIMITS, Limits

CORE = "(core runtime)"
HELPERS = "(kernel helpers)"
LIBC = "(libc and C++ runtime)"
LINKER = "(linker-generated: relocations, dynamic tables, unwind index, padding)"


def backend_bucket(backend_id: str) -> str:
    """The size bucket of a bundled backend's own code (its payload reader and planner; the node kinds
    it runs are ops of their own)."""
    return f"(backend {backend_id})"


NO_SYMBOL = "(no symbol: {section})"
UNATTRIBUTED = "(unattributed: no linker map)"
MAX_MAP_BYTES = 256 << 20  # a linker map of PR-built code; ours are well under 1 MB

SHF_ALLOC = 0x2
# Output sections the linker writes itself. GNU ld's map lists their contents
# under the first input file (crt1.o), so they are the linker's, whatever the map says.
LINKER_SECTIONS = frozenset(
    {
        ".hash",
        ".gnu.hash",
        ".dynsym",
        ".dynstr",
        ".gnu.version",
        ".gnu.version_d",
        ".gnu.version_r",
        ".dynamic",
        ".got",
        ".got.plt",
        ".igot",
        ".igot.plt",
        ".plt",
        ".plt.got",
        ".plt.sec",
        ".iplt",
        ".eh_frame_hdr",
        ".note.gnu.build-id",
        ".relr.dyn",
    }
)
# Runtime libraries of the toolchain (glibc, newlib, libstdc++, libgcc, the crt objects).
_LIBC_NAME = re.compile(
    r"^(lib(c|c_nano|c_nonshared|g|g_nano|m|m_nano|stdc\+\+|stdc\+\+_nano|supc\+\+|supc\+\+_nano|gcc|gcc_s|gcc_eh|"
    r"nosys|rdimon|rdimon_nano|atomic|pthread|dl|rt|mvec)(\.so.*|\.a)?|(S|g|M|r)?crt\w*\.o|ld-linux\S*)$"
)


@dataclass(frozen=True)
class Section:
    name: str
    address: int
    size: int
    loadable: bool  # SHF_ALLOC and not NOBITS; False: NOBITS (bss)


def _binutil(name: str, arch: Arch) -> str:
    tool = shutil.which(arch.tool(name))
    if tool is None:
        raise BotError(f"{arch.tool(name)} not found: install binutils (scripts/setup.sh)", ExitCode.BUILD)
    return tool


def strip_copy(binary: Path, work_dir: Path, arch: Arch = HOST, limits: Limits = DEFAULT_LIMITS) -> Path:
    """A stripped copy of `binary` in `work_dir` (the original is untouched), by the arch's strip."""
    strip = _binutil("strip", arch)
    work_dir.mkdir(parents=True, exist_ok=True)
    copy = work_dir / f"{binary.name}.stripped"
    shutil.copyfile(binary, copy)
    # The binary is built from PR code: binutils reading it run sandboxed too.
    proc = sandbox.run_program(
        [strip, "--strip-all", copy],
        what=f"strip of {binary.name}",
        limits=limits,
        view=sandbox.View(writes=(work_dir,)),
    )
    if proc.returncode != 0:
        raise BotError(f"strip of {binary.name} failed: {proc.last_error_line()[:200]}", ExitCode.BUILD)
    return copy


def _elf(binary: Path) -> Any:
    from elftools.common.exceptions import ELFError
    from elftools.elf.elffile import ELFFile

    try:
        return ELFFile(binary.open("rb"))
    except (ELFError, OSError) as exc:
        raise BotError(f"{binary.name}: not a readable ELF file ({exc})", ExitCode.BUILD) from None


def elf_sections(binary: Path) -> list[Section]:
    """Every SHF_ALLOC section of `binary`, in header order."""
    elf = _elf(binary)
    try:
        return [
            Section(s.name, s["sh_addr"], s["sh_size"], s["sh_type"] != "SHT_NOBITS")
            for s in elf.iter_sections()
            if s["sh_flags"] & SHF_ALLOC
        ]
    finally:
        elf.stream.close()


def demangle(names: list[str], limits: Limits = DEFAULT_LIMITS, arch: Arch = HOST) -> list[str]:
    """C++ symbol names as people read them (c++filt); unchanged when it is missing or fails."""
    tool = shutil.which(arch.tool("c++filt")) or shutil.which("c++filt")
    if tool is None or not names:
        return names
    # Names come from PR-built objects; the output may be as long as the input.
    enough = dataclasses.replace(limits, log_bytes=max(limits.log_bytes, 4 * sum(len(n) + 1 for n in names)))
    try:
        proc = sandbox.run_program([tool], what="c++filt", limits=enough, stdin_text="\n".join(names))
    except BotError:
        return names
    out = proc.stdout.splitlines()
    return out if proc.returncode == 0 and len(out) == len(names) else names


def _sweep(section: Section, ranges: Iterable[tuple[int, int, str]]) -> tuple[dict[str, int], int]:
    """Bytes of `section` owned by each range (address, size, owner), each byte counted once:
    ranges are clipped to the section and to what earlier (lower-addressed) ranges did not cover.
    Returns the owners' bytes and the bytes nobody covers."""
    start, end = section.address, section.address + section.size
    owned: dict[str, int] = {}
    covered_to = start
    covered = 0
    for address, size, owner in sorted(ranges, key=lambda r: (r[0], -r[1])):
        lo, hi = max(address, covered_to), min(address + size, end)
        if hi > lo:
            owned[owner] = owned.get(owner, 0) + hi - lo
            covered += hi - lo
            covered_to = hi
    return owned, section.size - covered


# --- symbols -----------------------------------------------------------------------------------------------


def elf_symbols(
    binary: Path, sections: list[Section] | None = None, arch: Arch = HOST, limits: Limits = DEFAULT_LIMITS
) -> dict[str, int]:
    """Loadable bytes per demangled symbol, summing exactly to the loadable sections' bytes.

    Defined FUNC and OBJECT symbols in loadable sections count; symbols at one
    address (aliases: C1/C2 constructors, folded functions) count once, under
    one name (a global one first). Thumb function symbols have the low address
    bit set; it is cleared. Bytes no symbol covers (relocations, dynamic
    tables, unwind tables, string literals, padding) are "(no symbol: <section>)".
    """
    from elftools.elf.sections import SymbolTableSection

    sections = sections if sections is not None else elf_sections(binary)
    elf = _elf(binary)
    try:
        thumb = elf["e_machine"] == "EM_ARM"
        index_to_name = {i: s.name for i, s in enumerate(elf.iter_sections())}
        at: dict[tuple[str, int], tuple[int, str, int]] = {}  # (section, address) -> (size, name, rank)
        for table in elf.iter_sections():
            if not isinstance(table, SymbolTableSection) or table.name != ".symtab":
                continue
            for sym in table.iter_symbols():
                kind, size, shndx = sym["st_info"]["type"], sym["st_size"], sym["st_shndx"]
                if kind not in ("STT_FUNC", "STT_OBJECT") or not size or not sym.name or not isinstance(shndx, int):
                    continue
                address = sym["st_value"] & ~1 if thumb and kind == "STT_FUNC" else sym["st_value"]
                rank = 0 if sym["st_info"]["bind"] == "STB_GLOBAL" else 1
                key = (index_to_name.get(shndx, ""), address)
                best = at.get(key)
                candidate = (size, sym.name, rank)
                if best is None or (-size, rank, len(sym.name), sym.name) < (-best[0], best[2], len(best[1]), best[1]):
                    at[key] = candidate
    finally:
        elf.stream.close()
    by_section: dict[str, list[tuple[int, int, str]]] = {}
    for (section, address), (size, name, _) in at.items():
        by_section.setdefault(section, []).append((address, size, name))
    raw: dict[str, int] = {}
    remainders: dict[str, int] = {}
    for section in sections:
        if not section.loadable:
            continue
        owned, rest = _sweep(section, by_section.get(section.name, ()))
        for name, size in owned.items():
            raw[name] = raw.get(name, 0) + size
        if rest:
            remainders[NO_SYMBOL.format(section=section.name)] = rest
    names = sorted(raw)
    out: dict[str, int] = {}
    for readable, name in zip(demangle(names, limits, arch), names, strict=True):
        out[readable] = out.get(readable, 0) + raw[name]  # local symbols of one name in several files add up
    for name, size in remainders.items():
        out[name] = out.get(name, 0) + size
    return out


# --- the linker map --------------------------------------------------------------------------------------------

_HEX = r"0x([0-9a-fA-F]+)"
_OUTPUT = re.compile(rf"^(\S+)(?:\s+{_HEX}\s+{_HEX}(?:\s.*)?)?$")  # ".text  0xaddr 0xsize [load address 0x..]"
_INPUT = re.compile(rf"^ (\S+)(?:\s+{_HEX}\s+{_HEX}\s+(\S.*?))?\s*$")  # " .text.f 0xaddr 0xsize file"
_CONTINUED = re.compile(rf"^\s+{_HEX}\s+{_HEX}\s+(\S.*?)\s*$")  # a long name's "  0xaddr 0xsize file"


@dataclass(frozen=True)
class InputSection:
    address: int
    size: int
    file: str  # "lib.a(member.o)", "path/file.o", "linker stubs"


def map_input_sections(map_text: str) -> dict[str, list[InputSection]]:
    """Output section name -> the input sections placed in it, from a GNU ld -Map file.

    Only the memory map counts: sections ld discarded (gc-sections) are listed
    before it. Fill (`*fill*`), script patterns, symbols and assignments are not
    input sections. Sizes are as placed (after relaxation); merged inputs
    (SHF_MERGE) may overlap, which the address sweep resolves.
    """
    start = map_text.find("Linker script and memory map")
    out: dict[str, list[InputSection]] = {}
    current: str | None = None
    pending: str | None = None  # an input section name whose address/size/file are on the next line
    for line in map_text[start if start >= 0 else 0 :].splitlines():
        if pending is not None:
            cont = _CONTINUED.match(line)
            pending = None
            if cont and current is not None:
                out[current].append(InputSection(int(cont.group(1), 16), int(cont.group(2), 16), cont.group(3)))
                continue
        if not line.strip():
            continue
        if not line[0].isspace():
            head = _OUTPUT.match(line)
            if head and head.group(1).startswith("."):
                current = head.group(1)
                out.setdefault(current, [])
            elif head is None or not head.group(1).startswith("."):
                current = None if line.startswith(("LOAD ", "OUTPUT(", "START GROUP", "END GROUP")) else current
            continue
        if current is None:
            continue
        entry = _INPUT.match(line)
        if entry is None or entry.group(1).startswith("*"):  # *fill*, *(pattern)
            continue
        if entry.group(2) is None:
            pending = entry.group(1)
            continue
        out[current].append(InputSection(int(entry.group(2), 16), int(entry.group(3), 16), entry.group(4)))
    return out


def object_owner(file: str, ops_by_source: dict[str, list[str]]) -> str | list[str]:
    """An input file's owner: the op(s) its kernel source defines, or a bucket."""
    if file == "linker stubs" or not file:
        return LINKER
    member = file.rsplit("(", 1)[-1].rstrip(")") if file.endswith(")") else file
    archive = file.rsplit("(", 1)[0] if file.endswith(")") else ""
    name = Path(member).name
    ops = ops_by_source.get(name.removesuffix(".o").removesuffix(".obj"))
    if ops:
        return ops
    if _LIBC_NAME.match(Path(archive).name if archive else name) or file.startswith(("/usr/", "/lib")):
        return LIBC
    if "kernels" in Path(archive).name or "/kernels/" in file or "/util/" in file:
        return HELPERS
    return CORE


def attribute_to_ops(
    sections: list[Section], inputs: dict[str, list[InputSection]], ops_by_source: dict[str, list[str]]
) -> dict[str, int]:
    """Loadable bytes per op or bucket, summing exactly to the loadable sections' bytes.

    Each loadable output section is walked by address: each input section the
    map places there owns the bytes its listed range covers (clipped to the
    section and to what lower-addressed inputs did not already cover, so
    SHF_MERGE inputs that ld merged into fewer bytes than the map lists count
    once, for the first input that lists them). A kernel object's bytes go to
    the op(s) its source defines (split evenly, the odd bytes to the first
    ops), core and runner objects to CORE, shared kernel code and the
    registration table to HELPERS, toolchain runtime libraries and crt objects
    to LIBC. LINKER gets the rest: output sections the linker writes itself
    (dynamic relocations, .dynsym/.dynstr, GOT/PLT, .eh_frame_hdr, build-id),
    linker stubs and every byte no input covers (alignment padding, fill,
    linker-added entries such as the .ARM.exidx terminator).
    """
    per_op: dict[str, int] = {}

    def add(owner: str, size: int) -> None:
        if size:
            per_op[owner] = per_op.get(owner, 0) + size

    for section in sections:
        if not section.loadable:
            continue
        if section.name in LINKER_SECTIONS or section.name.startswith((".rela.", ".rel.")):
            add(LINKER, section.size)
            continue
        owned, rest = _sweep(section, ((i.address, i.size, i.file) for i in inputs.get(section.name, ())))
        add(LINKER, rest)
        for file, size in owned.items():
            owner = object_owner(file, ops_by_source)
            if isinstance(owner, str):
                add(owner, size)
                continue
            share, odd = divmod(size, len(owner))
            for i, op in enumerate(owner):
                add(op, share + (1 if i < odd else 0))
    return dict(sorted(per_op.items()))


def analyse(
    binary: Path,
    map_file: Path | None,
    ops_by_source: dict[str, list[str]],
    work_dir: Path,
    arch: Arch = HOST,
    limits: Limits = DEFAULT_LIMITS,
) -> SizeReport:
    """Sizes of `binary` (not stripped: its symbols are read) built for `arch`, read by its binutils.

    Without a linker map, `per_op` has one entry, UNATTRIBUTED, of every loadable byte.
    """
    try:
        # Both were written by PR code (its build): a symlink there could lead to any file.
        safe_files.check_regular_file(binary, limits.file_bytes, "a runtime binary", follow_symlinks=False)
    except safe_files.UnsafeFileError as exc:
        raise BotError(str(exc), ExitCode.BUILD) from None
    stripped = strip_copy(binary, work_dir, arch, limits)
    sections = elf_sections(stripped)
    vm_size = sum(s.size for s in sections if s.loadable)
    if map_file is not None and (map_file.is_file() or map_file.is_symlink()):
        try:
            map_text = safe_files.read_text(map_file, MAX_MAP_BYTES, "a linker map", follow_symlinks=False)
        except safe_files.UnsafeFileError as exc:
            raise BotError(str(exc), ExitCode.BUILD) from None
        per_op = attribute_to_ops(sections, map_input_sections(map_text), ops_by_source)
    else:
        per_op = {UNATTRIBUTED: vm_size} if vm_size else {}
    symbols = elf_symbols(binary, sections, arch, limits) if vm_size else {}
    by_name: dict[str, int] = {}
    for s in sections:
        if s.size:  # empty placeholders (.tm_clone_table, .noinit of a firmware that uses none) are noise
            by_name[s.name] = by_name.get(s.name, 0) + s.size
    return SizeReport(
        vm_size=vm_size,
        bss=sum(s.size for s in sections if not s.loadable),
        file_size=stripped.stat().st_size,
        sections=by_name,
        symbols=symbols,
        per_op=per_op,
    )
