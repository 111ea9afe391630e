"""Binary size analysis of built runtimes: stripped size, ELF sections, symbols,
and per-operator attribution from the GNU ld linker map."""

from __future__ import annotations

import dataclasses
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from bot import safe_files, sandbox
from bot.errors import BotError, ExitCode
from bot.limits import DEFAULT_LIMITS, Limits

ALLOC_SECTIONS = (".text", ".rodata", ".data", ".bss", ".data.rel.ro", ".eh_frame", ".eh_frame_hdr", ".init_array")
CORE = "(core runtime)"
HELPERS = "(kernel helpers)"
OTHER = "(runner, libc glue)"
MAX_MAP_BYTES = 256 << 20  # a linker map of PR-built code; ours are well under 1 MB


@dataclass(frozen=True)
class SizeReport:
    stripped: int
    sections: dict[str, int]
    symbols: dict[str, int]  # demangled name -> bytes
    per_op: dict[str, int] = field(default_factory=dict)  # op (or a bucket) -> bytes


def stripped_size(binary: Path, work_dir: Path, limits: Limits = DEFAULT_LIMITS) -> int:
    """Size in bytes of a stripped copy of `binary` (the original is untouched)."""
    strip = shutil.which("strip")
    if strip is None:
        raise BotError("strip not found: install binutils (scripts/setup.sh)", ExitCode.BUILD)
    work_dir.mkdir(parents=True, exist_ok=True)
    copy = work_dir / f"{binary.name}.stripped"
    shutil.copyfile(binary, copy)
    # The binary is built from PR code: binutils reading it run sandboxed too.
    proc = sandbox.run_program([strip, "--strip-all", copy], what=f"strip of {binary.name}", limits=limits)
    if proc.returncode != 0:
        raise BotError(f"strip of {binary.name} failed: {proc.last_error_line()[:200]}", ExitCode.BUILD)
    return copy.stat().st_size


def elf_sections(binary: Path) -> dict[str, int]:
    from elftools.elf.elffile import ELFFile

    with binary.open("rb") as f:
        elf = ELFFile(f)
        return {s.name: s.data_size for s in elf.iter_sections() if s.name in ALLOC_SECTIONS and s.data_size}


def demangle(names: list[str], limits: Limits = DEFAULT_LIMITS) -> list[str]:
    """C++ symbol names as people read them (c++filt); unchanged when it is missing or fails."""
    tool = shutil.which("c++filt")
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


def elf_symbols(binary: Path) -> dict[str, int]:
    from elftools.elf.elffile import ELFFile
    from elftools.elf.sections import SymbolTableSection

    sizes: dict[str, int] = {}
    with binary.open("rb") as f:
        for section in ELFFile(f).iter_sections():
            if not isinstance(section, SymbolTableSection) or section.name != ".symtab":
                continue
            for sym in section.iter_symbols():
                if sym["st_size"] and sym["st_info"]["type"] in ("STT_FUNC", "STT_OBJECT") and sym.name:
                    sizes[sym.name] = sizes.get(sym.name, 0) + sym["st_size"]
    names = sorted(sizes)
    return dict(zip(demangle(names), (sizes[n] for n in names), strict=True))


_MAP_ENTRY = re.compile(r"^\s+0x[0-9a-f]+\s+0x([0-9a-f]+)\s+(\S+\.o)\)?\s*$")
_SECTION_START = re.compile(r"^ (\.(?:text|rodata|data)\S*)\s*(.*)$")  # .bss takes no file bytes


def map_object_sizes(map_text: str) -> dict[str, int]:
    """Bytes each object file contributes to the output, from a GNU ld -Map file.

    Only the memory map counts: sections ld discarded (gc-sections) are listed
    before it and are skipped.
    """
    start = map_text.find("Linker script and memory map")
    sizes: dict[str, int] = {}
    pending = False
    for line in map_text[start if start >= 0 else 0 :].splitlines():
        section = _SECTION_START.match(line)
        if section:
            rest = section.group(2)
            pending = not rest
            entry = _MAP_ENTRY.match(" " + rest) if rest else None
        elif pending:
            entry = _MAP_ENTRY.match(line)
            pending = False
        else:
            continue
        if entry:
            size = int(entry.group(1), 16)
            obj = entry.group(2)
            sizes[obj] = sizes.get(obj, 0) + size
    return sizes


def attribute_to_ops(object_sizes: dict[str, int], ops_by_source: dict[str, list[str]]) -> dict[str, int]:
    """Per-op bytes: a kernel object's bytes go to the op(s) its source defines
    (split evenly when a file defines several); other objects go to buckets."""
    per_op: dict[str, int] = {}
    for obj, size in object_sizes.items():
        name = Path(obj.split("(")[-1]).name  # archive members look like lib.a(file.o)
        source = name.removesuffix(".o")
        ops = ops_by_source.get(source)
        if ops:
            for op in ops:
                per_op[op] = per_op.get(op, 0) + size // len(ops)
            continue
        if "sb_core" in obj or "/core/src/" in obj:
            bucket = CORE
        elif "/util/" in obj or source.startswith("util"):
            bucket = HELPERS
        else:
            bucket = OTHER
        per_op[bucket] = per_op.get(bucket, 0) + size
    return dict(sorted(per_op.items()))


def analyse(binary: Path, map_file: Path | None, ops_by_source: dict[str, list[str]], work_dir: Path) -> SizeReport:
    per_op = {}
    if map_file is not None and map_file.is_file():
        try:
            map_text = safe_files.read_text(map_file, MAX_MAP_BYTES, "a linker map")
        except safe_files.UnsafeFileError as exc:
            raise BotError(str(exc), ExitCode.BUILD) from None
        per_op = attribute_to_ops(map_object_sizes(map_text), ops_by_source)
    return SizeReport(
        stripped=stripped_size(binary, work_dir),
        sections=elf_sections(binary),
        symbols=elf_symbols(binary),
        per_op=per_op,
    )
