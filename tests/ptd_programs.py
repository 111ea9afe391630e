"""Programs that keep their weights outside the .pte (ExecuTorch's program-data separation), exported
with ExecuTorch's own exporter, and their reference outputs from ExecuTorch's runtime.

- `portable`: `to_executorch(ExecutorchBackendConfig(external_constants=True))`; every constant goes to
  one .ptd, keyed by its fully qualified name, with its tensor layout.
- `xnnpack`: a linear lowered to XNNPACK whose weights are tagged for a file of their own
  (`delegate_external_constants_pass_unlifted`), and a constant outside the delegate: two .ptd files,
  the delegate's keyed by content hash (no layout), the constant by name.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

DEFAULT_FILE = "_default_external_constant"  # the file ExecuTorch writes external constants to
DELEGATE_FILE = "delegate_weights"  # the tag (file name) the XNNPACK weights are given


@dataclass(frozen=True)
class Separated:
    program: Path
    data: tuple[Path, ...]  # the .ptd files, as ExecuTorch wrote them
    inputs: tuple[Path, ...]
    expected: tuple[np.ndarray, ...]  # ExecuTorch's outputs with every data file


def _modules() -> dict[str, Any]:
    import torch
    from torch import nn

    class Portable(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.l1 = nn.Linear(4, 8)
            self.l2 = nn.Linear(8, 3)
            self.register_buffer("scale", torch.randn(3))

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.l2(torch.relu(self.l1(x))) * self.scale

    class Delegated(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.l1 = nn.Linear(4, 8)
            self.register_buffer("offset", torch.randn(8))

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return torch.cumsum(self.l1(x), 1) * self.offset

    return {"portable": Portable, "xnnpack": Delegated}


def export(out_dir: Path) -> dict[str, Separated]:
    import torch
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
    from executorch.exir import ExecutorchBackendConfig, to_edge, to_edge_transform_and_lower
    from executorch.exir.passes.external_constants_pass import delegate_external_constants_pass_unlifted

    out = {}
    for name, factory in _modules().items():
        torch.manual_seed(0)
        module = factory().eval()
        example = (torch.randn(2, 4),)
        config = ExecutorchBackendConfig(external_constants=True)
        if name == "portable":
            program = to_edge(torch.export.export(module, example)).to_executorch(config)
        else:
            tagged = torch.export.export(module, example).module()
            delegate_external_constants_pass_unlifted(module=tagged, gen_tag_fn=lambda _node: DELEGATE_FILE)
            exported = torch.export.export(tagged, example)
            lowered = to_edge_transform_and_lower(exported, partitioner=[XnnpackPartitioner()])
            program = lowered.to_executorch(config)
        folder = out_dir / name
        folder.mkdir(parents=True, exist_ok=True)
        pte = folder / f"{name}.pte"
        pte.write_bytes(program.buffer)
        program.write_tensor_data_to_file(str(folder))
        data = tuple(sorted(folder.glob("*.ptd")))
        inputs = (folder / f"{name}.input0.npy",)
        np.save(inputs[0], example[0].numpy())
        reference_data = data[0] if len(data) == 1 else merge(data, folder / "merged.ptd.ref")
        out[name] = Separated(pte, data, inputs, tuple(run_executorch(pte, [example[0].numpy()], reference_data)))
    return out


# One entry of a data file: its key, its bytes and its tensor layout (ExecuTorch's TensorLayout, or None).
Entry = tuple[str, bytes, Any]


def entries(path: Path) -> list[Entry]:
    """The entries of a .ptd, in its order, as ExecuTorch's serializer reads them."""
    from executorch.exir._serialize._cord import Cord
    from executorch.extension.flat_tensor.serialize.serialize import FlatTensorSerializer

    payload = FlatTensorSerializer().deserialize(Cord(path.read_bytes()))
    return [(key, bytes(payload.buffers[e.buffer_index]), e.tensor_layout) for key, e in payload.named_data.items()]


def write(data: list[Entry], out: Path) -> Path:
    """A .ptd holding `data`, in that order, written by ExecuTorch's serializer."""
    from executorch.exir._serialize.data_serializer import DataEntry, DataPayload
    from executorch.extension.flat_tensor.serialize.serialize import FlatTensorSerializer

    named = {key: DataEntry(i, 64, layout) for i, (key, _, layout) in enumerate(data)}
    assert len(named) == len(data), "the serializer keeps one entry per key"
    payload = DataPayload(buffers=[blob for _, blob, _ in data], named_data=named)
    out.write_bytes(bytes(FlatTensorSerializer().serialize(payload)))
    return out


def merge(files: tuple[Path, ...], out: Path) -> Path:
    """One .ptd holding every entry of `files`: ExecuTorch's Python runtime takes a single data file."""
    return write([entry for path in files for entry in entries(path)], out)


def run_executorch(program: Path, inputs: list[np.ndarray], data: Path | None, method: str = "forward") -> list:
    """ExecuTorch's outputs of one execute."""
    from executorch.runtime import Runtime

    from models.export import as_et_input

    loaded = Runtime.get().load_program(program, data_path=data)
    outputs = loaded.load_method(method).execute([as_et_input(x) for x in inputs])
    return [o.numpy() for o in outputs]
