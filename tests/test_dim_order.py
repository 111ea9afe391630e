"""Non-default dim orders on the native runtime, from real channels-last exports.

A model moved to channels-last (`model.to(memory_format=torch.channels_last)`) and exported with such an
input keeps its activations and weights in dim order [0, 2, 3, 1]. The runtime takes them where each
kernel's layout policy allows, refuses the rest at load in one line, and its runner reads and writes
logical (contiguous) arrays whatever the program's layout.

Needs the `export` extra (torch==2.13.0, executorch==1.5.1).
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from bot.build.runner import run_model
from bot.selection import pte
from tests.test_runtime_corrupt import assert_clean_failure, patch, run

torch = pytest.importorskip("torch")
pytest.importorskip("executorch")
nn = torch.nn
F = torch.nn.functional

pytestmark = pytest.mark.export

CHANNELS_LAST = (0, 2, 3, 1)
TOLERANCE = 1e-4


class SmallCNN(nn.Module):
    """Plain and grouped strided convolutions, max pooling and nearest upsampling: the ops ExecuTorch's
    runtime runs channels-last; ExecuTorch's export puts the average pool back in the default order."""

    def __init__(self) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.conv2 = nn.Conv2d(8, 6, 3, stride=2, padding=1, groups=2)

    def forward(self, x: Any) -> Any:
        y = F.max_pool2d(torch.relu(self.conv1(x)), 2)
        y = F.interpolate(torch.sigmoid(self.conv2(y)), scale_factor=2, mode="nearest")
        return F.avg_pool2d(y, 2).flatten(1)


class ConvBatchNorm(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3)
        self.bn = nn.BatchNorm2d(4)

    def forward(self, x: Any) -> Any:
        return torch.relu(self.bn(self.conv(x)))


def channels_last(t: Any) -> Any:
    return t.contiguous(memory_format=torch.channels_last)


def export(model: Any, inputs: tuple[Any, ...]) -> Any:
    """The ExecuTorch program (to_edge's default dim-order handling) of `model` on `inputs`."""
    from executorch.exir import to_edge

    with torch.no_grad():
        return to_edge(torch.export.export(model.eval(), inputs)).to_executorch()


def dim_orders(program: Any) -> set[tuple[int, ...]]:
    values = program.executorch_program.execution_plan[0].values
    return {tuple(v.val.dim_order) for v in values if hasattr(v.val, "dim_order")}


def executorch_outputs(buffer: bytes, inputs: tuple[Any, ...]) -> list[np.ndarray]:
    from executorch.runtime import Runtime

    method = Runtime.get().load_program(buffer).load_method("forward")
    outputs = method.execute([t.clone() for t in inputs])
    return [o.contiguous().numpy() for o in outputs]


def write_program(buffer: bytes, inputs: tuple[Any, ...], tmp_path: Path) -> tuple[Path, list[Path]]:
    model = tmp_path / "model.pte"
    model.write_bytes(buffer)
    paths = []
    for i, t in enumerate(inputs):
        paths.append(tmp_path / f"input{i}.npy")
        np.save(paths[-1], t.contiguous().numpy())  # logical order: the runner converts
    return model, paths


def our_outputs(runner: Path, buffer: bytes, inputs: tuple[Any, ...], tmp_path: Path) -> list[np.ndarray]:
    model, paths = write_program(buffer, inputs, tmp_path)
    return list(run_model(runner, model, paths, tmp_path / "out").outputs)


def assert_close(ours: list[np.ndarray], reference: list[np.ndarray]) -> None:
    assert len(ours) == len(reference) > 0
    for a, b in zip(ours, reference, strict=True):
        assert a.shape == b.shape and a.dtype == b.dtype
        assert float(np.max(np.abs(a - b))) <= TOLERANCE


def cnn_program() -> tuple[Any, tuple[Any, ...]]:
    torch.manual_seed(0)
    model = SmallCNN().to(memory_format=torch.channels_last)
    inputs = (channels_last(torch.randn(2, 3, 16, 16)),)
    return export(model, inputs), inputs


def test_channels_last_cnn_matches_executorch(runner: Path, tmp_path: Path) -> None:
    program, inputs = cnn_program()
    assert CHANNELS_LAST in dim_orders(program)  # the program really is channels-last
    reference = executorch_outputs(program.buffer, inputs)
    assert_close(our_outputs(runner, program.buffer, inputs, tmp_path), reference)


def test_channels_last_batch_norm_matches_the_contiguous_program(runner: Path, tmp_path: Path) -> None:
    """ExecuTorch's runtime refuses batch norm channels-last (its save_mean/invstd outs are not); the same
    model exported contiguous gives the reference."""
    torch.manual_seed(1)
    model = ConvBatchNorm().eval()
    model.bn.running_mean.uniform_(-1, 1)
    model.bn.running_var.uniform_(0.5, 2)
    x = torch.randn(2, 3, 9, 7)
    reference = executorch_outputs(export(model, (x,)).buffer, (x,))
    program = export(model.to(memory_format=torch.channels_last), (channels_last(x),))
    assert CHANNELS_LAST in dim_orders(program)
    assert_close(our_outputs(runner, program.buffer, (x,), tmp_path), reference)


def test_execute_does_not_allocate_channels_last(all_ops_build: Path, tmp_path: Path) -> None:
    program, inputs = cnn_program()
    model, paths = write_program(program.buffer, inputs, tmp_path)
    proc = subprocess.run(
        [str(all_ops_build / "execute_alloc_test"), f"{model}=" + ",".join(map(str, paths))],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.strip().endswith(" allocations_during_execute=0"), proc.stdout


def channels_last_dim_order_pos(data: bytes) -> int:
    """File position of the first tensor's dim order that is [0, 2, 3, 1]."""
    r = pte.FlatReader(data)
    for value in pte.parse(data).plan().values:
        if value.kind == "Tensor" and value.table is not None:
            start, length = r.vector(value.table, 3, 1)  # Tensor.dim_order: [ubyte]
            if tuple(data[start : start + length]) == CHANNELS_LAST:
                return start
    raise AssertionError("no channels-last tensor in the program")


@pytest.mark.parametrize(("name", "item", "byte"), [("repeated_dim", 2, 2), ("dim_out_of_range", 3, 9)])
def test_non_permutation_dim_order_fails_at_load(runner: Path, tmp_path: Path, name: str, item: int, byte: int) -> None:
    program, _ = cnn_program()
    data = program.buffer
    corrupt = tmp_path / f"{name}.pte"
    corrupt.write_bytes(patch(data, channels_last_dim_order_pos(data) + item, "B", byte))
    assert_clean_failure(run(runner, corrupt), "not a permutation of its 4 dims")


def test_kernel_refuses_a_dim_order_it_does_not_take_at_load(runner: Path, tmp_path: Path) -> None:
    """_softmax.out reads the default order only (ExecuTorch's export gives it a channels-last input and a
    contiguous out): the loader names the op, the order and the value."""
    x = channels_last(torch.randn(2, 3, 4, 5))

    class Softmax(nn.Module):
        def forward(self, x: Any) -> Any:
            return torch.softmax(x, dim=1)

    program = export(Softmax(), (x,))
    model = tmp_path / "softmax.pte"
    model.write_bytes(program.buffer)
    assert_clean_failure(run(runner, model), "aten::_softmax.out does not take dim order [0, 2, 3, 1] (value ")


def test_mixed_dim_orders_refused_by_an_elementwise_kernel_at_load(runner: Path, tmp_path: Path) -> None:
    a = channels_last(torch.randn(2, 3, 4, 5))
    b = torch.randn(2, 3, 4, 5)

    class Add(nn.Module):
        def forward(self, a: Any, b: Any) -> Any:
            return a + b

    program = export(Add(), (a, b))
    model = tmp_path / "add.pte"
    model.write_bytes(program.buffer)
    assert_clean_failure(run(runner, model), "aten::add.out does not take dim order ")


def test_any_permutation_matches_the_contiguous_program(runner: Path, tmp_path: Path) -> None:
    """Inputs in dim order [2, 0, 1] (ExecuTorch's runtime takes only contiguous or channels-last inputs, so
    its run of the contiguous export is the reference): element-wise ops in that order, then a clone back."""

    class Mix(nn.Module):
        def forward(self, a: Any, b: Any) -> Any:
            return torch.sigmoid(a * b + a).contiguous()

    torch.manual_seed(2)
    a, b = (torch.randn(4, 2, 3).permute(1, 2, 0) for _ in range(2))
    program = export(Mix(), (a, b))
    assert (2, 0, 1) in dim_orders(program)
    contiguous = (a.contiguous(), b.contiguous())
    reference = executorch_outputs(export(Mix(), contiguous).buffer, contiguous)
    assert_close(our_outputs(runner, program.buffer, contiguous, tmp_path), reference)


def test_kernel_keys_name_the_dim_order_as_gen_oplist_does(tmp_path: Path) -> None:
    """A channels-last program's op list: ours, static and traced, equals ExecuTorch's gen_oplist, whose
    kernel keys carry each tensor's dim order (`6;0,2,3,1`)."""
    from bot.selection import trace
    from tests.test_oplist import assert_static_oplist_is_gen_oplist

    program, inputs = cnn_program()
    model, input_files = write_program(program.buffer, inputs, tmp_path)
    theirs = assert_static_oplist_is_gen_oplist(model, tmp_path)
    expected = {op: set(keys) for op, keys in theirs["et_kernel_metadata"].items()}
    assert any(";0,2,3,1" in key for keys in expected.values() for key in keys)
    traced = trace.trace_model(trace.tracer_runner(), model, input_files, "cnn", include_reachable=False)
    for op, keys in traced.et_kernel_metadata.items():
        if op in expected:
            assert set(keys) <= expected[op], op  # every key the run saw is one gen_oplist names
