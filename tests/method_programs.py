"""Programs beyond one forward call, exported with ExecuTorch's own exporter, with their inputs saved by
the naming convention (bot/feeds.py) and their reference outputs from ExecuTorch's runtime:

- `multi`: three methods (`to_edge({"forward": ..., "encode": ..., "decode": ...})`), each its own ops;
- `state`: mutable buffers updated in place (a running sum with add_, a KV cache written with
  index_put_ at a position input), run for several steps on one loaded method;
- `state_init`: the same, its buffers given an initial state (InitializedMutableBufferPass, which
  export_llama uses for its cache positions): the program carries it in mutable_data_segments.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

STEPS = 4


@dataclass(frozen=True)
class Exported:
    program: Path
    # method -> inputs in the runner's order (by step, then by input) and ExecuTorch's outputs per step
    inputs: dict[str, tuple[Path, ...]]
    expected: dict[str, tuple[tuple[np.ndarray, ...], ...]]
    steps: int


def _modules() -> dict[str, Any]:
    import torch
    from torch import nn

    class Encode(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.proj = nn.Linear(6, 4)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return torch.tanh(self.proj(x))

    class Decode(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.proj = nn.Linear(4, 6)

        def forward(self, z: torch.Tensor) -> torch.Tensor:
            return torch.sigmoid(self.proj(z)).cumsum(1)

    class Forward(nn.Module):
        def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
            return torch.maximum(x, y) - torch.abs(y)

    class State(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.register_buffer("total", torch.arange(6.0).reshape(2, 3))
            self.register_buffer("cache", torch.full((STEPS, 3), 0.25))

        def forward(self, x: torch.Tensor, pos: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            self.total.add_(x)
            self.cache.index_put_((pos,), x[0:1])
            return self.total * 2.0, self.cache.cumsum(0)

    return {"encode": Encode, "decode": Decode, "forward": Forward, "state": State}


def _examples(method: str, step: int) -> tuple[Any, ...]:
    import torch

    generator = torch.Generator().manual_seed(100 * step + len(method))
    if method == "encode":
        return (torch.randn(3, 6, generator=generator),)
    if method == "decode":
        return (torch.randn(3, 4, generator=generator),)
    if method == "forward":
        return (torch.randn(2, 5, generator=generator), torch.randn(2, 5, generator=generator))
    return (torch.randn(2, 3, generator=generator), torch.tensor([step]))


def export(out_dir: Path) -> dict[str, Exported]:
    import torch
    from executorch.exir import ExecutorchBackendConfig, to_edge
    from executorch.exir.passes.init_mutable_pass import InitializedMutableBufferPass

    out_dir.mkdir(parents=True, exist_ok=True)
    modules = _modules()
    torch.manual_seed(0)
    multi = {m: torch.export.export(modules[m]().eval(), _examples(m, 0)) for m in ("forward", "encode", "decode")}
    state = {"forward": torch.export.export(modules["state"](), _examples("state", 0))}
    result = {}
    initialized = ExecutorchBackendConfig(passes=[InitializedMutableBufferPass(["total", "cache"])])
    for name, methods, steps, config in (
        ("multi", multi, 1, None),
        ("state", state, STEPS, None),
        ("state_init", state, STEPS, initialized),
    ):
        program = out_dir / f"{name}.pte"
        program.write_bytes(to_edge(methods).to_executorch(config).buffer)
        inputs: dict[str, tuple[Path, ...]] = {}
        feeds: dict[str, list[list[np.ndarray]]] = {}
        for method in methods:
            module_key = "state" if name.startswith("state") else method
            where = "" if method == "forward" else f".{method}"
            per_step = [[t.numpy() for t in _examples(module_key, k)] for k in range(steps)]
            paths = []
            for k, arrays in enumerate(per_step):
                for i, array in enumerate(arrays):
                    step = f".step{k}" if steps > 1 else ""
                    path = out_dir / f"{name}{where}{step}.input{i}.npy"
                    np.save(path, array)
                    paths.append(path)
            inputs[method] = tuple(paths)
            feeds[method] = per_step
        expected = {m: run_executorch(program, m, feeds[m]) for m in methods}
        result[name] = Exported(program, inputs, expected, steps)
    return result


def run_executorch(program: Path, method: str, steps: list[list[np.ndarray]], data: Path | None = None) -> tuple:
    """ExecuTorch's outputs of each step, executed in turn on one loaded method."""
    from executorch.runtime import Runtime

    from models.export import as_et_input

    loaded = Runtime.get().load_program(program, data_path=data).load_method(method)
    return tuple(tuple(o.numpy().copy() for o in loaded.execute([as_et_input(x) for x in inputs])) for inputs in steps)
