"""Exports the consumer fixture's custom-op model, `fancy_mlp.pte`, with its input and reference output.

Run from the repo root: `python tests/consumer/models/export_fancy_mlp.py`.

The model calls the app's own operator `my_ops::fancy_gelu` (defined here with torch.library, with the
`.out` variant ExecuTorch's out-variant pass needs), so the program holds `my_ops::fancy_gelu.out`, whose
kernel lives in `tests/consumer/my_kernels/`. ExecuTorch's runtime has no kernel for this op, so the
reference output (`fancy_mlp.eager_output0.npy`) comes from eager PyTorch, not from ExecuTorch's runtime.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import torch
from torch import nn
from torch.library import Library, impl

HERE = Path(__file__).resolve().parent
SLOPE = 1.702  # x * sigmoid(1.702 x): the sigmoid approximation of GELU

_LIBRARY = Library("my_ops", "DEF")
_LIBRARY.define("fancy_gelu(Tensor x) -> Tensor")
_LIBRARY.define("fancy_gelu.out(Tensor x, *, Tensor(a!) out) -> Tensor(a!)")


@impl(_LIBRARY, "fancy_gelu", dispatch_key="CompositeExplicitAutograd")
def _fancy_gelu(x: torch.Tensor) -> torch.Tensor:
    return x * torch.sigmoid(SLOPE * x)


@impl(_LIBRARY, "fancy_gelu.out", dispatch_key="CompositeExplicitAutograd")
def _fancy_gelu_out(x: torch.Tensor, *, out: torch.Tensor) -> torch.Tensor:
    out.copy_(x * torch.sigmoid(SLOPE * x))
    return out


class FancyMlp(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc1 = nn.Linear(16, 32)
        self.fc2 = nn.Linear(32, 8)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc2(torch.ops.my_ops.fancy_gelu(self.fc1(x)))


def export(out_dir: Path = HERE) -> Path:
    from executorch.exir import EdgeCompileConfig, to_edge

    torch.manual_seed(0)
    model = FancyMlp().eval()
    x = torch.randn(4, 16)
    with torch.no_grad():
        expected = model(x)
    exported = torch.export.export(model, (x,))
    # Custom ops are not in the edge dialect's core ATen op set: ExecuTorch's own custom-op example
    # (examples/portable/custom_ops) turns the IR validity check off the same way.
    edge = to_edge(exported, compile_config=EdgeCompileConfig(_check_ir_validity=False))
    program = edge.to_executorch()
    path = out_dir / "fancy_mlp.pte"
    path.write_bytes(program.buffer)
    np.save(out_dir / "fancy_mlp.input0.npy", x.numpy())
    np.save(out_dir / "fancy_mlp.eager_output0.npy", expected.numpy())
    return path


if __name__ == "__main__":
    print(export(Path(sys.argv[1]) if len(sys.argv) > 1 else HERE))
