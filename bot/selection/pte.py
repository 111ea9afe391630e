"""Reads ExecuTorch `.pte` programs in pure Python, without torch.

Only what the bot needs: the execution plans' operators, instructions and the
kinds of their values. Field numbers follow program.fbs from the executorch
wheel. Every read is bounds-checked; a bad file raises PteError with one
line that says what is wrong. Time and memory are linear in the file size,
also for files that share one table or vector among many references.
"""

from __future__ import annotations

import struct
import sys
from array import array
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from bot.safety.limits import DEFAULT_LIMITS
from bot.safety.safe_files import UnsafeFileError, read_bytes

IDENTIFIER = b"ET12"
HEADER_MAGIC = b"eh00"
HEADER_END = 32  # 4-byte root offset, identifier, then magic, length, program size, segment base
# The reader's memory grows with the flatbuffer (some ten times its size for a
# hostile file of tiny distinct tables). Real programs stay far below: a large
# language model's plan is a few MB, its weights live in segments.
MAX_FLATBUFFER_BYTES = 64 << 20

# KernelTypes union members (program.fbs order, 0 = NONE).
VALUE_KINDS = (
    "None", "Null", "Int", "Bool", "Double", "Tensor", "String",
    "IntList", "DoubleList", "BoolList", "TensorList", "OptionalTensorList",
)  # fmt: skip
INSTRUCTION_KINDS = ("None", "KernelCall", "DelegateCall", "MoveCall", "JumpFalseCall", "FreeCall")
# Every ScalarType the .pte schema (ExecuTorch's scalar_type.fbs) defines, and the
# complex ones (8-10) it lists as not implemented but the executorch serializer writes
# (a program taking a complex tensor holds them), with ExecuTorch's C++ names.
SCALAR_TYPES = {
    0: "Byte",
    1: "Char",
    2: "Short",
    3: "Int",
    4: "Long",
    5: "Half",
    6: "Float",
    7: "Double",
    8: "ComplexHalf",
    9: "ComplexFloat",
    10: "ComplexDouble",
    11: "Bool",
    12: "QInt8",
    13: "QUInt8",
    14: "QInt32",
    15: "BFloat16",
    16: "QUInt4x2",
    17: "QUInt2x4",
    22: "Bits16",
    23: "Float8_e5m2",
    24: "Float8_e4m3fn",
    25: "Float8_e5m2fnuz",
    26: "Float8_e4m3fnuz",
    27: "UInt16",
    28: "UInt32",
    29: "UInt64",
}


class PteError(ValueError):
    pass


T = TypeVar("T")

_STRUCTS = {fmt: struct.Struct("<" + fmt) for fmt in "BbHhIiqQd"}
# Vectors and strings up to this many elements are read again at each
# reference (a constant cost per reference); longer ones once per position.
_SHORT = 16


@dataclass(frozen=True, slots=True)
class Table:
    pos: int
    vtable: int
    vtable_size: int


class FlatReader:
    """Bounds-checked access to a flatbuffer; positions are byte offsets.

    Long vectors and strings are read once per position and shared: a hostile
    file can point thousands of tables at one long vector, and reading it once
    per reference would take time and memory quadratic in the file size.
    """

    def __init__(self, data: bytes) -> None:
        self.data = data
        self._vectors: dict[tuple[int, str], tuple[Any, ...]] = {}
        self._strings: dict[int, str] = {}

    def _read(self, fmt: str, pos: int) -> int | float:
        unpacker = _STRUCTS[fmt]
        try:
            if pos >= 0:  # unpack_from counts a negative offset from the end
                return unpacker.unpack_from(self.data, pos)[0]
        except struct.error:
            pass
        size = len(self.data)
        raise PteError(f"read of {unpacker.size} bytes at offset {pos} is past the end of the {size}-byte file")

    def u8(self, pos: int) -> int:
        return int(self._read("B", pos))

    def u16(self, pos: int) -> int:
        return int(self._read("H", pos))

    def i32(self, pos: int) -> int:
        return int(self._read("i", pos))

    def u32(self, pos: int) -> int:
        return int(self._read("I", pos))

    def i64(self, pos: int) -> int:
        return int(self._read("q", pos))

    def f64(self, pos: int) -> float:
        return float(self._read("d", pos))

    def table_at(self, offset_pos: int) -> Table:
        pos = offset_pos + self.u32(offset_pos)
        vtable = pos - self.i32(pos)
        vtable_size = self.u16(vtable)
        if vtable_size < 4:
            raise PteError(f"table at offset {pos} has a malformed vtable")
        return Table(pos, vtable, vtable_size)

    def root(self) -> Table:
        return self.table_at(0)

    def field_pos(self, table: Table, field: int) -> int | None:
        """Byte position of a field's value, or None when it is absent (default)."""
        slot = 4 + 2 * field
        if slot + 2 > table.vtable_size:
            return None
        offset = self.u16(table.vtable + slot)
        return table.pos + offset if offset else None

    def scalar(self, table: Table, field: int, fmt: str, default: int | float = 0) -> int | float:
        pos = self.field_pos(table, field)
        return default if pos is None else self._read(fmt, pos)

    def table(self, table: Table, field: int) -> Table | None:
        pos = self.field_pos(table, field)
        return None if pos is None else self.table_at(pos)

    def vector(self, table: Table | None, field: int, element_size: int) -> tuple[int, int]:
        """(position of element 0, length); (0, 0) when absent."""
        if table is None:
            return 0, 0
        pos = self.field_pos(table, field)
        if pos is None:
            return 0, 0
        start = pos + self.u32(pos)
        length = self.u32(start)
        if start + 4 + length * element_size > len(self.data):
            raise PteError(f"vector at offset {start} ({length} elements) runs past the end of the file")
        return start + 4, length

    def _elements(self, table: Table | None, field: int, fmt: str) -> tuple[Any, ...]:
        start, length = self.vector(table, field, _STRUCTS[fmt].size)
        if length <= _SHORT:
            return struct.unpack_from(f"<{length}{fmt}", self.data, start)
        key = (start, fmt)
        found = self._vectors.get(key)
        if found is None:
            found = self._vectors[key] = struct.unpack_from(f"<{length}{fmt}", self.data, start)
        return found

    def tables(self, table: Table | None, field: int) -> list[Table]:
        start, length = self.vector(table, field, 4)
        return [self.table_at(start + 4 * i) for i in range(length)]

    def read_tables(self, table: Table | None, field: int, read: Callable[[Table], T]) -> tuple[T, ...]:
        """`read` of each table of a vector of tables, once per distinct table: the
        entries (4 bytes each) may all refer to one, and are not kept as objects."""
        start, length = self.vector(table, field, 4)
        offsets = array("I")
        offsets.frombytes(self.data[start : start + 4 * length])
        if sys.byteorder == "big":
            offsets.byteswap()
        done: dict[int, T] = {}
        out = []
        for i, offset in enumerate(offsets):
            entry = start + 4 * i
            found = done.get(entry + offset)
            if found is None:
                found = done[entry + offset] = read(self.table_at(entry))
            out.append(found)
        return tuple(out)

    def string(self, table: Table | None, field: int) -> str:
        start, length = self.vector(table, field, 1)
        found = self._strings.get(start) if length > _SHORT else None
        if found is None:
            try:
                found = self.data[start : start + length].decode()
            except UnicodeDecodeError:
                raise PteError(f"string at offset {start} is not UTF-8") from None
            if length > _SHORT:
                self._strings[start] = found
        return found

    def ints(self, table: Table | None, field: int, fmt: str = "i") -> tuple[int, ...]:
        """A vector of integers; the same tuple for every read of one vector."""
        return self._elements(table, field, fmt)


@dataclass(frozen=True, slots=True)
class Value:
    kind: str  # one of VALUE_KINDS
    dtype: str | None = None  # tensors only
    sizes: tuple[int, ...] = ()  # tensors only
    dim_order: tuple[int, ...] = ()  # tensors only; empty: the program gave none (contiguous)
    members: tuple[int, ...] = ()  # tensor lists: value indices of the elements
    table: Table | None = None  # where the value's table is, for tools that patch files


@dataclass(frozen=True, slots=True)
class Instruction:
    kind: str  # one of INSTRUCTION_KINDS
    op_index: int | None = None  # KernelCall
    args: tuple[int, ...] = ()  # KernelCall / DelegateCall value indices
    table: Table | None = None  # the instr_args table


@dataclass(frozen=True)
class ExecutionPlan:
    """One method. Tuples read from one flatbuffer vector are one object (the
    reader shares them), which is what lets the derived views below do their
    work once per vector rather than once per reference."""

    name: str
    operators: tuple[str, ...]  # full names, "aten::add.out"
    values: tuple[Value, ...]
    instructions: tuple[Instruction, ...]
    delegates: tuple[str, ...]  # backend ids
    _first_tensors: dict[int, tuple[tuple[int, ...], Value | None]] = field(
        default_factory=dict, compare=False, repr=False
    )

    def used_operators(self) -> list[str]:
        """Operators that some KernelCall actually calls, in first-use order."""
        seen: dict[str, None] = {}
        for ins in self.instructions:
            if ins.kind == "KernelCall" and ins.op_index is not None and 0 <= ins.op_index < len(self.operators):
                seen.setdefault(self.operators[ins.op_index])
        return list(seen)

    def summarize_calls(self, summarize: Callable[[tuple[int, ...]], T]) -> dict[str, set[T]]:
        """Per called operator, the summaries of its calls' argument lists.

        `summarize` runs once per distinct argument vector, however many calls
        share it, so its cost is linear in the file."""
        by_vector: dict[int, T] = {}
        result: dict[str, set[T]] = {}
        for ins in self.instructions:
            if ins.kind != "KernelCall" or ins.op_index is None or not 0 <= ins.op_index < len(self.operators):
                continue
            key = id(ins.args)  # stable: self holds every args tuple
            if key not in by_vector:
                by_vector[key] = summarize(ins.args)
            result.setdefault(self.operators[ins.op_index], set()).add(by_vector[key])
        return result

    def operator_dtypes(self) -> dict[str, set[str]]:
        """Per operator, the dtypes of the tensors its calls receive."""

        def dtypes(args: tuple[int, ...]) -> frozenset[str]:
            return frozenset(
                self.values[arg].dtype or "" for arg in args if 0 <= arg < len(self.values) and self.values[arg].dtype
            )

        return {op: set().union(*found) for op, found in self.summarize_calls(dtypes).items()}

    def first_tensor(self, members: tuple[int, ...]) -> Value | None:
        """The first member of a tensor list that is a tensor (None if none is)."""
        key = id(members)  # the entry keeps `members` alive, so the id stays its own
        if key not in self._first_tensors:
            found = next(
                (self.values[i] for i in members if 0 <= i < len(self.values) and self.values[i].kind == "Tensor"),
                None,
            )
            self._first_tensors[key] = (members, found)
        return self._first_tensors[key][1]


@dataclass(frozen=True)
class Program:
    version: int
    plans: tuple[ExecutionPlan, ...]

    def plan(self, name: str = "forward") -> ExecutionPlan:
        for plan in self.plans:
            if plan.name == name:
                return plan
        raise PteError(f"program has no method '{name}'")


def _full_op_name(name: str, overload: str) -> str:
    return f"{name}.{overload}" if overload else name


def _read_value(r: FlatReader, ev: Table) -> Value:
    kind_id = int(r.scalar(ev, 0, "B"))
    if kind_id >= len(VALUE_KINDS):
        raise PteError(f"value at offset {ev.pos} has unknown type {kind_id}")
    kind = VALUE_KINDS[kind_id]
    val = r.table(ev, 1)
    if kind in ("TensorList", "OptionalTensorList") and val is not None:
        return Value(kind, members=r.ints(val, 0), table=val)
    if kind != "Tensor" or val is None:
        return Value(kind, table=val)
    dtype_id = int(r.scalar(val, 0, "b"))
    sizes = r.ints(val, 2)
    dim_order = r.ints(val, 3, "B")
    return Value(kind, SCALAR_TYPES.get(dtype_id, f"unknown({dtype_id})"), sizes, dim_order, table=val)


def _read_instruction(r: FlatReader, ins: Table) -> Instruction:
    kind_id = int(r.scalar(ins, 0, "B"))
    kind = INSTRUCTION_KINDS[kind_id] if kind_id < len(INSTRUCTION_KINDS) else f"unknown({kind_id})"
    args = r.table(ins, 1)
    if args is not None and kind in ("KernelCall", "DelegateCall"):
        return Instruction(kind, int(r.scalar(args, 0, "i")), r.ints(args, 1), table=args)
    return Instruction(kind, table=args)


def _read_plan(r: FlatReader, plan: Table) -> ExecutionPlan:
    ops = r.read_tables(plan, 6, lambda op: _full_op_name(r.string(op, 0), r.string(op, 1)))
    values = r.read_tables(plan, 2, lambda ev: _read_value(r, ev))
    chain = r.read_tables(plan, 5, lambda chain: chain)[:1]
    instructions = r.read_tables(chain[0], 2, lambda ins: _read_instruction(r, ins)) if chain else ()
    delegates = r.read_tables(plan, 7, lambda d: r.string(d, 0))
    return ExecutionPlan(r.string(plan, 0), ops, values, instructions, delegates)


def parse(data: bytes) -> Program:
    """The program in `data`, in time and memory linear in its size."""
    if len(data) < 8:
        raise PteError(f"file is {len(data)} bytes, too small for a .pte")
    if data[4:8] != IDENTIFIER:
        seen = "".join(chr(b) if 32 <= b < 127 else "?" for b in data[4:8])
        raise PteError(f"not an ExecuTorch program: file identifier is '{seen}', expected 'ET12'")
    r = FlatReader(data)
    try:
        root = r.root()
        plans = r.read_tables(root, 1, lambda plan: _read_plan(r, plan))
        return Program(int(r.scalar(root, 0, "I")), plans)
    except (struct.error, IndexError, RecursionError) as exc:  # defensive: FlatReader checks bounds itself
        raise PteError(f"corrupt flatbuffer ({exc.__class__.__name__})") from None


def flatbuffer_size(head: bytes, file_size: int) -> int:
    """How many leading bytes of the file are the program's flatbuffer: what the
    extended header says (constants and delegate data follow in segments), else all."""
    if len(head) >= HEADER_END and head[8:12] == HEADER_MAGIC:
        program_size = struct.unpack_from("<Q", head, 16)[0]
        if 0 < program_size <= file_size:
            return int(program_size)
    return file_size


def load(path: Path, limit: int = DEFAULT_LIMITS.model_bytes) -> Program:
    """Reads only the flatbuffer part: the reader's memory is bounded by it, not by the weights."""
    data = read_flatbuffer(path, limit)
    try:
        return parse(data)
    except PteError as exc:
        raise PteError(f"{path}: {exc}") from None


def read_flatbuffer(path: Path, limit: int = DEFAULT_LIMITS.model_bytes) -> bytes:
    """The flatbuffer part of the .pte at `path` (not the segments after it), read safely."""
    try:
        head = read_bytes(Path(path), limit, "a model", prefix=HEADER_END)
        size = flatbuffer_size(head, Path(path).stat().st_size)
        if size > MAX_FLATBUFFER_BYTES:
            raise PteError(
                f"{path}: its flatbuffer is {size:,} bytes, over the {MAX_FLATBUFFER_BYTES:,} this reader accepts "
                "(ExecuTorch keeps constants in segments after it)"
            )
        return read_bytes(Path(path), limit, "a model", prefix=size)
    except (UnsafeFileError, OSError) as exc:  # missing, not a regular file (a FIFO, /dev/zero), over the limit
        raise PteError(str(exc) if isinstance(exc, UnsafeFileError) else f"{path}: cannot read") from None
