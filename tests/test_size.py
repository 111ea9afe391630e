"""Exact sizes of real selective runtimes, on every architecture (bot/build/size.py).

Each architecture builds three small runtimes: add.out alone, add.out + mul.out,
and add.out + mul.out where mul's kernel gained a check (a copy of kernels/
with one edited file, the way a PR changes a kernel). The figures are checked
against binutils of that architecture (`<prefix>readelf -SW`, `<prefix>size -A`,
`<prefix>nm`), never against bot/build/size.py itself.
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from bot.build import arch as arches
from bot.build import cmake, size
from bot.report import model
from bot.selection import oplist
from bot.selection.kernel_library import load_libraries, op_sources

REPO_ROOT = cmake.REPO_ROOT
WORK = REPO_ROOT / cmake.BUILD_DIR_NAME / "test-size"  # stable paths: the builds stay incremental across runs
OPS = {"one": ("aten::add.out",), "two": ("aten::add.out", "aten::mul.out")}
GROWN_FILE = "portable/op_mul.cpp"
GROWN_BEFORE = "Error mul_out_impl(KernelContext& /*ctx*/, Args args) {\n"
GROWN_AFTER = "  Tensor& out = *args[2]->as_tensor;\n"
# A new check in its own function (so the compiler's inlining of the rest stays as it was) and its call.
GROWN_FUNCTION = (
    "[[gnu::noinline]] Error grown_check(const Tensor& out) {\n"
    "  if (out.dim > 60) {\n"
    '    return Error::make(ErrorCode::kInvalidArgument, "%s: out has %d dims; this check was added by "\n'
    '                       "tests/test_size.py to change the kernel", kOp, static_cast<int>(out.dim));\n'
    "  }\n"
    "  return Error();\n"
    "}\n\n"
)
GROWN_CALL = "  if (Error grown = grown_check(out); !grown.ok()) return grown;\n"
_READELF_ROW = re.compile(
    r"^\s*\[\s*\d+\]\s+(\S+)\s+(\S+)\s+[0-9a-f]+\s+[0-9a-f]+\s+([0-9a-f]+)\s+[0-9a-f]+\s+([A-Za-z]*)\s+\d+\s+\d+\s+(\d+)\s*$"
)


def _write_if_changed(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.is_file() or path.read_text() != text:
        path.write_text(text)
    return path


def _grown_kernels() -> Path:
    """A copy of kernels/ in which mul.out's kernel has one more check (files rewritten only when they differ)."""
    copy = WORK / "kernels-grown"
    for source in sorted((REPO_ROOT / "kernels").rglob("*")):
        if source.is_file() and "__pycache__" not in source.parts:
            text = source.read_text()
            relative = source.relative_to(REPO_ROOT / "kernels").as_posix()
            if relative == GROWN_FILE:
                assert GROWN_BEFORE in text and GROWN_AFTER in text, f"kernels/{GROWN_FILE} changed: update GROWN_*"
                text = text.replace(GROWN_BEFORE, GROWN_FUNCTION + GROWN_BEFORE, 1)
                text = text.replace(GROWN_AFTER, GROWN_AFTER + GROWN_CALL, 1)
            _write_if_changed(copy / relative, text)
    return copy


def _ops_by_source() -> dict[str, list[str]]:
    library = load_libraries([REPO_ROOT / "kernels" / "portable" / "functions.yaml"])
    by_source: dict[str, list[str]] = {}
    for op, path in op_sources(library, sorted((REPO_ROOT / "kernels").rglob("*.cpp")), REPO_ROOT).items():
        by_source.setdefault(path.name, []).append(op)
    return by_source


@dataclass(frozen=True)
class Built:
    binary: Path
    report: model.SizeReport


def _binutils(arch: arches.Arch, tool: str, *args: str | Path) -> str:
    return subprocess.run([arch.tool(tool), *map(str, args)], capture_output=True, text=True, check=True).stdout


def readelf_alloc(arch: arches.Arch, binary: Path) -> tuple[dict[str, int], dict[str, int]]:
    """(loadable, nobits): SHF_ALLOC sections of `binary` by binutils' readelf, split on NOBITS."""
    loadable: dict[str, int] = {}
    nobits: dict[str, int] = {}
    for line in _binutils(arch, "readelf", "-SW", binary).splitlines():
        row = _READELF_ROW.match(line)
        if row and "A" in row.group(4):
            (nobits if row.group(2) == "NOBITS" else loadable)[row.group(1)] = int(row.group(3), 16)
    assert loadable, f"no allocated sections read from {binary}"
    return loadable, nobits


def largest_alloc_alignment(arch: arches.Arch, binary: Path) -> int:
    """The largest sh_addralign of `binary`'s SHF_ALLOC sections: the most the padding between two
    input sections of one output section can move when the first one grows."""
    rows = (_READELF_ROW.match(line) for line in _binutils(arch, "readelf", "-SW", binary).splitlines())
    return max(int(r.group(5)) for r in rows if r and "A" in r.group(4))


def _loadable_bytes(arch: arches.Arch, built: Built) -> int:
    return sum(readelf_alloc(arch, built.binary)[0].values())


def size_a(arch: arches.Arch, binary: Path) -> dict[str, int]:
    """Section -> bytes, by binutils' `size -A`."""
    rows = (line.split() for line in _binutils(arch, "size", "-A", binary).splitlines())
    return {r[0]: int(r[1]) for r in rows if len(r) == 3 and r[0].startswith(".") and r[1].isdigit()}


@pytest.fixture(scope="module", params=sorted(arches.ARCHES))
def arch(request: pytest.FixtureRequest) -> arches.Arch:
    target = arches.get(request.param)
    missing = arches.missing_tools(target, run=False)
    if missing is not None:
        pytest.skip(f"{target.name} cross toolchain missing: {missing}")
    return target


@pytest.fixture(scope="module")
def builds(arch: arches.Arch) -> dict[str, Built]:
    yamls = {
        name: _write_if_changed(WORK / f"{name}.yaml", oplist.dumps(oplist.from_root_ops(ops, "tests/test_size.py")))
        for name, ops in OPS.items()
    }
    grown = _grown_kernels()
    flavours = {
        name: cmake.selective_flavour(path, dtype_selective=False, arch=arch.name) for name, path in yamls.items()
    }
    two = flavours["two"]
    flavours["grown"] = cmake.Flavour(
        "test-size-grown",
        {
            **two.options,
            "SB_KERNELS_DIR": str(grown),
            "SB_KERNEL_LIBRARIES": str(grown / "portable" / "functions.yaml"),
        },
        arch=arch.name,
    )
    by_source = _ops_by_source()
    out = {}
    for name, flavour in flavours.items():
        build_dir = cmake.build(flavour, targets=cmake.size_targets(arch))
        binary = build_dir / cmake.SIZE_PROBE
        report = size.analyse(binary, build_dir / f"{cmake.SIZE_PROBE}.map", by_source, WORK / "work", arch=arch)
        out[name] = Built(binary, report)
    return out


def test_vm_size_is_the_loadable_sections_as_binutils_reads_them(arch: arches.Arch, builds: dict[str, Built]) -> None:
    for name, built in builds.items():
        loadable, nobits = readelf_alloc(arch, built.binary)
        r = built.report
        assert r.vm_size == sum(loadable.values()), name
        assert r.bss == sum(nobits.values()), name
        assert r.sections == {s: v for s, v in {**loadable, **nobits}.items() if v}, name
        by_size = size_a(arch, built.binary)
        assert {s: by_size[s] for s in loadable} == loadable, f"{name}: size -A and readelf -S disagree"
        assert sum(v for s, v in r.sections.items() if r.section_kind(s) == "loadable") == r.vm_size, name
        assert ".text" in loadable and r.vm_size < r.file_size, name


def test_per_op_and_symbols_sum_exactly_to_vm_size(arch: arches.Arch, builds: dict[str, Built]) -> None:
    for name, built in builds.items():
        r = built.report
        assert sum(r.per_op.values()) == r.vm_size, name
        assert sum(r.symbols.values()) == r.vm_size, name
        assert all(v > 0 for v in r.per_op.values()), (name, r.per_op)
        assert all(v > 0 for v in r.symbols.values()), name
        # each bucket means something: the core, the kernels, libc/libgcc and the linker's own bytes are all there
        for bucket in (size.CORE, size.LIBC, size.LINKER, "aten::add.out"):
            assert r.per_op.get(bucket, 0) > 0, (name, bucket, r.per_op)
        assert r.per_op[size.CORE] > r.per_op[size.LIBC], (name, r.per_op)
        assert any(k.startswith("(no symbol: ") for k in r.symbols), name


def test_symbols_match_nm_sizes(arch: arches.Arch, builds: dict[str, Built]) -> None:
    """The biggest functions' bytes are their nm sizes (Thumb symbols have the low address bit set)."""
    r = builds["two"].report
    nm: dict[str, list[int]] = {}
    for line in _binutils(arch, "nm", "-S", "-C", "--defined-only", builds["two"].binary).splitlines():
        parts = line.split(" ", 3)
        if len(parts) == 4 and parts[2] in "TtWw":
            nm.setdefault(parts[3], []).append(int(parts[1], 16))
    unique = {n: sizes[0] for n, sizes in nm.items() if len(set(sizes)) == 1 and len(sizes) == 1}
    biggest = sorted((n for n in r.symbols if n in unique), key=lambda n: -r.symbols[n])[:10]
    assert len(biggest) == 10
    assert {n: r.symbols[n] for n in biggest} == {n: unique[n] for n in biggest}


def test_one_more_op_changes_vm_size_by_the_sections_delta(arch: arches.Arch, builds: dict[str, Built]) -> None:
    one, two = builds["one"], builds["two"]
    sections_delta = _loadable_bytes(arch, two) - _loadable_bytes(arch, one)
    assert two.report.vm_size - one.report.vm_size == sections_delta > 0
    assert "aten::mul.out" not in one.report.per_op and two.report.per_op["aten::mul.out"] > 0


STRING_MERGE_SLACK = 16  # bytes: a shared string tail that ld moved to another object


def test_a_kernel_change_moves_vm_size_by_the_sections_delta(arch: arches.Arch, builds: dict[str, Built]) -> None:
    """mul's kernel gains a check. That can change the compiler's inlining, so the kernel may grow or
    shrink by more than the check: the figure is whatever the sections say, to the byte, and mul moved.
    Nothing else moved beyond a few bytes: the linker's padding (less than the largest section alignment),
    and merged string sections, where ld shares a string's tail between objects and the bytes go to the
    first object that lists them."""
    base, head = builds["two"], builds["grown"]
    sections_delta = sum(readelf_alloc(arch, head.binary)[0].values()) - sum(
        readelf_alloc(arch, base.binary)[0].values()
    )
    delta = head.report.vm_size - base.report.vm_size
    assert delta == sections_delta != 0
    moved = {
        k: head.report.per_op.get(k, 0) - base.report.per_op.get(k, 0)
        for k in {*head.report.per_op, *base.report.per_op}
        if head.report.per_op.get(k, 0) != base.report.per_op.get(k, 0)
    }
    assert "aten::mul.out" in moved, moved
    # An input section's alignment padding is the linker's: when mul's sections grow, the padding
    # before the next aligned input section shrinks or grows by less than that section's alignment.
    alignment = max(largest_alloc_alignment(arch, built.binary) for built in (base, head))
    others = {k: v for k, v in moved.items() if k != "aten::mul.out"}
    limits = {k: alignment - 1 if k == size.LINKER else STRING_MERGE_SLACK for k in others}
    assert all(abs(v) <= limits[k] for k, v in others.items()), moved
    assert sum(moved.values()) == delta
    print(f"{arch.name}: vm {delta:+} bytes, file {head.report.file_size - base.report.file_size:+} bytes, {moved}")


def test_without_a_map_or_symbols_every_byte_is_still_counted(builds: dict[str, Built], arch: arches.Arch) -> None:
    """No linker map: one UNATTRIBUTED entry. An already stripped binary: every byte is a "(no symbol: ...)" row."""
    built = builds["one"]
    r = size.analyse(built.binary, None, {}, WORK / "work", arch=arch)
    assert r.per_op == {size.UNATTRIBUTED: r.vm_size} and r.vm_size == built.report.vm_size
    stripped = size.strip_copy(built.binary, WORK / "stripped", arch)
    bare = size.analyse(stripped, None, {}, WORK / "work", arch=arch)
    assert bare.vm_size == r.vm_size and sum(bare.symbols.values()) == r.vm_size
    assert all(name.startswith("(no symbol: ") for name in bare.symbols)
