"""Reads ExecuTorch `.pte` programs in pure Python, without torch.

Only what the bot needs: the execution plans' operators, instructions and the
kinds of their values. Field numbers follow program.fbs from the executorch
wheel. Every read is bounds-checked; a bad file raises PteError with one
line that says what is wrong.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path

IDENTIFIER = b"ET12"
HEADER_MAGIC = b"eh00"

# KernelTypes union members (program.fbs order, 0 = NONE).
VALUE_KINDS = (
    "None", "Null", "Int", "Bool", "Double", "Tensor", "String",
    "IntList", "DoubleList", "BoolList", "TensorList", "OptionalTensorList",
)  # fmt: skip
INSTRUCTION_KINDS = ("None", "KernelCall", "DelegateCall", "MoveCall", "JumpFalseCall", "FreeCall")
SCALAR_TYPES = {0: "Byte", 1: "Char", 2: "Short", 3: "Int", 4: "Long", 5: "Half", 6: "Float", 7: "Double", 11: "Bool"}


class PteError(ValueError):
    pass


@dataclass(frozen=True)
class Table:
    pos: int
    vtable: int
    vtable_size: int


class FlatReader:
    """Bounds-checked access to a flatbuffer; positions are byte offsets."""

    def __init__(self, data: bytes) -> None:
        self.data = data

    def _read(self, fmt: str, pos: int) -> int | float:
        size = struct.calcsize(fmt)
        if pos < 0 or pos + size > len(self.data):
            raise PteError(f"read of {size} bytes at offset {pos} is past the end of the {len(self.data)}-byte file")
        return struct.unpack_from("<" + fmt, self.data, pos)[0]

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

    def tables(self, table: Table | None, field: int) -> list[Table]:
        start, length = self.vector(table, field, 4)
        return [self.table_at(start + 4 * i) for i in range(length)]

    def string(self, table: Table | None, field: int) -> str:
        start, length = self.vector(table, field, 1)
        try:
            return self.data[start : start + length].decode()
        except UnicodeDecodeError:
            raise PteError(f"string at offset {start} is not UTF-8") from None

    def ints(self, table: Table | None, field: int, fmt: str = "i") -> list[int]:
        size = struct.calcsize(fmt)
        start, length = self.vector(table, field, size)
        return [int(self._read(fmt, start + size * i)) for i in range(length)]


@dataclass(frozen=True)
class Value:
    kind: str  # one of VALUE_KINDS
    dtype: str | None = None  # tensors only
    sizes: tuple[int, ...] = ()  # tensors only
    members: tuple[int, ...] = ()  # tensor lists: value indices of the elements
    table: Table | None = None  # where the value's table is, for tools that patch files


@dataclass(frozen=True)
class Instruction:
    kind: str  # one of INSTRUCTION_KINDS
    op_index: int | None = None  # KernelCall
    args: tuple[int, ...] = ()  # KernelCall / DelegateCall value indices
    table: Table | None = None  # the instr_args table


@dataclass(frozen=True)
class ExecutionPlan:
    name: str
    operators: tuple[str, ...]  # full names, "aten::add.out"
    values: tuple[Value, ...]
    instructions: tuple[Instruction, ...]
    delegates: tuple[str, ...]  # backend ids

    def used_operators(self) -> list[str]:
        """Operators that some KernelCall actually calls, in first-use order."""
        seen: dict[str, None] = {}
        for ins in self.instructions:
            if ins.kind == "KernelCall" and ins.op_index is not None and 0 <= ins.op_index < len(self.operators):
                seen.setdefault(self.operators[ins.op_index])
        return list(seen)

    def operator_dtypes(self) -> dict[str, set[str]]:
        """Per operator, the dtypes of the tensors its calls receive."""
        dtypes: dict[str, set[str]] = {}
        for ins in self.instructions:
            if ins.kind != "KernelCall" or ins.op_index is None or not 0 <= ins.op_index < len(self.operators):
                continue
            bucket = dtypes.setdefault(self.operators[ins.op_index], set())
            for arg in ins.args:
                if 0 <= arg < len(self.values) and self.values[arg].dtype:
                    bucket.add(self.values[arg].dtype or "")
        return dtypes


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
        return Value(kind, members=tuple(r.ints(val, 0)), table=val)
    if kind != "Tensor" or val is None:
        return Value(kind, table=val)
    dtype_id = int(r.scalar(val, 0, "b"))
    sizes = tuple(r.ints(val, 2))
    return Value(kind, SCALAR_TYPES.get(dtype_id, f"unknown({dtype_id})"), sizes, table=val)


def _read_instruction(r: FlatReader, ins: Table) -> Instruction:
    kind_id = int(r.scalar(ins, 0, "B"))
    kind = INSTRUCTION_KINDS[kind_id] if kind_id < len(INSTRUCTION_KINDS) else f"unknown({kind_id})"
    args = r.table(ins, 1)
    if args is not None and kind in ("KernelCall", "DelegateCall"):
        return Instruction(kind, int(r.scalar(args, 0, "i")), tuple(r.ints(args, 1)), table=args)
    return Instruction(kind, table=args)


def parse(data: bytes) -> Program:
    if len(data) < 8:
        raise PteError(f"file is {len(data)} bytes, too small for a .pte")
    if data[4:8] != IDENTIFIER:
        seen = "".join(chr(b) if 32 <= b < 127 else "?" for b in data[4:8])
        raise PteError(f"not an ExecuTorch program: file identifier is '{seen}', expected 'ET12'")
    r = FlatReader(data)
    try:
        root = r.root()
        plans = []
        for plan in r.tables(root, 1):
            ops = tuple(_full_op_name(r.string(op, 0), r.string(op, 1)) for op in r.tables(plan, 6))
            values = tuple(_read_value(r, ev) for ev in r.tables(plan, 2))
            chains = r.tables(plan, 5)
            instructions = tuple(_read_instruction(r, ins) for ins in r.tables(chains[0], 2)) if chains else ()
            delegates = tuple(r.string(d, 0) for d in r.tables(plan, 7))
            plans.append(ExecutionPlan(r.string(plan, 0), ops, values, instructions, delegates))
        return Program(int(r.scalar(root, 0, "I")), tuple(plans))
    except (struct.error, IndexError, RecursionError) as exc:  # defensive: FlatReader checks bounds itself
        raise PteError(f"corrupt flatbuffer ({exc.__class__.__name__})") from None


def load(path: Path) -> Program:
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError:
        raise PteError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise PteError(f"{path}: is a directory, not a .pte file") from None
    except OSError as exc:
        raise PteError(f"{path}: cannot read ({exc.strerror})") from None
    try:
        return parse(data)
    except PteError as exc:
        raise PteError(f"{path}: {exc}") from None
