"""Hostile programs, each derived from a real zoo program.

They are rewritten with ExecuTorch's own serializer (`deserialize_pte_binary`,
`serialize_pte_binary` and the `executorch.exir.schema` dataclasses), so every
one is a well-formed program that only asks for something hostile. Sharing one
table among many values, which the serializer never emits, is patched into the
serialized flatbuffer afterwards.
"""

from __future__ import annotations

import copy
import functools
import struct
from typing import Any

from bot.selection import pte
from tests.conftest import ZOO_DIR

# Sizes whose product is 2**64: it wraps to 0 in int64, while each size and
# each partial product fits.
WRAPPING_SIZES = [1 << 20, 1 << 20, 1 << 24]


@functools.cache
def _serializer() -> Any:
    # Imported on first use: executorch imports torch, which takes seconds.
    from executorch.exir._serialize import _program

    return _program


@functools.cache
def _schema() -> Any:
    from executorch.exir import schema

    return schema


@functools.cache
def _zoo(name: str) -> Any:
    return _serializer().deserialize_pte_binary((ZOO_DIR / f"{name}.pte").read_bytes())


def zoo_program(name: str) -> Any:
    """A zoo program as ExecuTorch's PTEFile, to rewrite freely."""
    return copy.deepcopy(_zoo(name))


def serialize(pte_file: Any) -> bytes:
    return bytes(_serializer().serialize_pte_binary(pte_file))


def _plan(pte_file: Any) -> Any:
    return pte_file.program.execution_plan[0]


def _first_call(plan: Any, op: str) -> Any:
    for index, operator in enumerate(plan.operators):
        if f"{operator.name}.{operator.overload}" == op:
            for instruction in plan.chains[0].instructions:
                call = instruction.instr_args
                if isinstance(call, _schema().KernelCall) and call.op_index == index:
                    return call
    raise AssertionError(f"no call to {op}")


def _planned(tensor: Any, sizes: list[int], offset: int) -> Any:
    """`tensor` reshaped to `sizes`, memory-planned at `offset` of buffer 1."""
    schema = _schema()
    return schema.Tensor(
        scalar_type=tensor.scalar_type,
        storage_offset=0,
        sizes=sizes,
        dim_order=list(range(len(sizes))),
        requires_grad=False,
        layout=tensor.layout,
        data_buffer_idx=0,
        allocation_info=schema.AllocationDetails(memory_id=1, memory_offset_low=offset, memory_offset_high=0),
        shape_dynamism=tensor.shape_dynamism,
        extra_tensor_info=None,
    )


def _element_size(tensor: Any) -> int:
    return {6: 4, 7: 8, 4: 8, 3: 4, 11: 1, 1: 1, 0: 1, 2: 2}[int(tensor.scalar_type)]


def _single_call_program(model: str, op: str, sizes: list[int], loop: bool) -> bytes:
    """`model`'s first call to the unary `op` (tensor in, scalars, tensor out), alone in a
    program whose tensors have `sizes`; with `loop`, a jump back to it that is never taken
    out of."""
    schema = _schema()
    pte_file = zoo_program(model)
    plan = _plan(pte_file)
    call = _first_call(plan, op)
    values = [copy.deepcopy(plan.values[i]) for i in call.args[:-1]]
    tensors = [i for i, v in enumerate(values) if isinstance(v.val, schema.Tensor)]
    first, out = tensors[0], tensors[-1]
    nbytes = _element_size(values[first].val)
    for size in sizes:
        nbytes = (nbytes * size) % (1 << 32)  # offsets are what the file can say; the runtime checks them
    values[first].val = _planned(values[first].val, sizes, 0)
    values[out].val = _planned(values[out].val, sizes, nbytes)
    args = [*range(len(values)), out]
    instructions = [schema.Instruction(schema.KernelCall(op_index=0, args=args))]
    if loop:
        values.append(schema.EValue(schema.Bool(False)))
        instructions.append(schema.Instruction(schema.JumpFalseCall(len(values) - 1, 0)))
    plan.values = values
    plan.inputs = [first]
    plan.outputs = [out]
    plan.operators = [plan.operators[call.op_index]]
    plan.chains = [schema.Chain(inputs=[first], outputs=[out], instructions=instructions, stacktrace=None)]
    plan.non_const_buffer_sizes = [0, 2 * nbytes]
    plan.delegates = []
    pte_file.program.constant_buffer = pte_file.program.constant_buffer[:1]
    pte_file.program.constant_segment.offsets = pte_file.program.constant_segment.offsets[:1]
    pte_file.program.segments = pte_file.program.segments[:1]
    return serialize(pte_file)


def looping_softmax(rows: int = 1024, cols: int = 1024) -> bytes:
    """A softmax over a rows x cols float tensor that jumps back to itself forever."""
    return _single_call_program("mha_block", "aten::_softmax.out", [rows, cols], loop=True)


def looping_jump(model: str = "mha_block") -> bytes:
    """`model` whose only instruction jumps to itself: a loop that touches no tensor."""
    schema = _schema()
    pte_file = zoo_program(model)
    plan = _plan(pte_file)
    plan.values.append(schema.EValue(schema.Bool(False)))
    plan.chains[0].instructions = [schema.Instruction(schema.JumpFalseCall(len(plan.values) - 1, 0))]
    return serialize(pte_file)


def overflowing_sizes(op: str = "aten::_softmax.out") -> bytes:
    """One call whose tensors have sizes with a product of 2**64 (0 in int64)."""
    return _single_call_program("mha_block", op, WRAPPING_SIZES, loop=False)


def unplanned_input(elements_log2: int = 30, model: str = "resnet") -> bytes:
    """`model` whose first input is not memory-planned and has 2**elements_log2 elements."""
    pte_file = zoo_program(model)
    plan = _plan(pte_file)
    tensor = plan.values[plan.inputs[0]].val
    third = elements_log2 // 3
    tensor.sizes = [1 << third, 1 << third, 1 << (elements_log2 - 2 * third)]
    tensor.dim_order = [0, 1, 2]
    tensor.allocation_info = None
    return serialize(pte_file)


def shared_tensor_list(values: int = 16384, items: int = 65536, share: str = "table") -> bytes:
    """mha_block plus `values` tensor-list values that all share one list of `items` tensors.

    share="table": the values point at one EValue table; share="items": each value has its
    own list table, and they all point at one items vector.
    """
    schema = _schema()
    pte_file = zoo_program("mha_block")
    plan = _plan(pte_file)
    member = plan.inputs[0]
    first = len(plan.values)
    plan.values.append(schema.EValue(schema.TensorList(items=[member] * items)))
    plan.values.extend(schema.EValue(schema.TensorList(items=[member])) for _ in range(values))
    data = bytearray(serialize(pte_file))
    r = pte.FlatReader(bytes(data))
    plan_table = r.tables(r.root(), 1)[0]
    start, _ = r.vector(plan_table, 2, 4)
    entry = [start + 4 * (first + k) for k in range(values + 1)]
    if share == "table":
        target = r.table_at(entry[0]).pos
        for pos in entry[1:]:
            _point(data, pos, target)
    else:
        target = r.field_pos(r.table(r.table_at(entry[0]), 1), 0)
        target_vector = target + struct.unpack_from("<I", data, target)[0]
        for pos in entry[1:]:
            items_field = r.field_pos(r.table(r.table_at(pos), 1), 0)
            _point(data, items_field, target_vector)
    return bytes(data)


def _point(data: bytearray, pos: int, target: int) -> None:
    """Makes the uoffset at `pos` refer to `target` (which must lie after it)."""
    assert target > pos, "flatbuffer offsets only point forward"
    struct.pack_into("<I", data, pos, target - pos)
