"""Small XNNPACK-delegated programs with dynamic dims, exported with ExecuTorch's own exporter
(`torch.export.export(..., dynamic_shapes=...)`, `to_edge_transform_and_lower` with `XnnpackPartitioner`,
`to_executorch`), fp32 and PT2E-quantized (static int8 per channel, and dynamically quantized linears).

Between them their delegates hold every node kind a dynamic shape flows through in practice:
convolutions, deconvolutions, poolings, PReLU and bilinear resizes over a dynamic batch or image size,
fully connected layers, batch matrix multiplies, softmax, element-wise nodes with broadcasting,
concatenation, padding, transposes and reshapes over a dynamic sequence, and the converts around
quantized ones (static int8; dynamically quantized linears and convolutions, pointwise ones quantized
pixel by pixel), fp32 and fp16.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Dynamic:
    make: Callable[[], Any]  # the module, seeded by the caller
    example: tuple[int, ...]  # the traced input's shape
    dims: Callable[[], dict[int, Any]]  # its dynamic dims, as torch.export takes them
    # f32; qs8 (PT2E static int8, per-channel weights); qd8 (dynamically quantized linears and convolutions);
    # f16 (the module in half precision, fp16 inputs)
    recipe: str
    sizes: tuple[tuple[int, ...], ...]  # input shapes within the bounds the tests run at
    past_bound: tuple[int, ...]  # one shape beyond a bound


def _modules() -> dict[str, Callable[[], Any]]:
    import torch
    from torch import nn
    from torch.nn import functional

    from models.export import DynamicBatchCnn

    class Attention(nn.Module):
        """Single-head attention and a feed-forward block over a sequence of any length."""

        def __init__(self) -> None:
            super().__init__()
            self.q, self.k, self.v = nn.Linear(16, 16), nn.Linear(16, 16), nn.Linear(16, 16)
            self.ff = nn.Sequential(nn.Linear(16, 32), nn.GELU(), nn.Linear(32, 16))

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            weights = torch.softmax(self.q(x) @ self.k(x).transpose(-1, -2) * 0.25, dim=-1)
            h = x + weights @ self.v(x)
            return h + self.ff(h)

    class Mix(nn.Module):
        """Concatenation, padding, a 1-d convolution between transposes, and broadcasting element-wise nodes."""

        def __init__(self) -> None:
            super().__init__()
            self.linear = nn.Linear(32, 16)
            self.conv = nn.Conv1d(16, 16, 3, padding=1)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            z = torch.relu(self.linear(torch.cat([x, torch.tanh(x)], -1)))
            z = functional.pad(z[:, 1:, :], (0, 0, 1, 0))
            w = self.conv(z.transpose(1, 2)).transpose(1, 2)
            return torch.sigmoid(w) * z + torch.clamp(z, -1.0, 1.0)

    class Spatial(nn.Module):
        """Convolutions, average and global pooling over an image of any height and width."""

        def __init__(self) -> None:
            super().__init__()
            self.conv = nn.Conv2d(3, 8, 3, padding=1)
            self.depthwise = nn.Conv2d(8, 8, 3, stride=2, padding=1, groups=8)
            self.pool = nn.AvgPool2d(2)
            self.gap = nn.AdaptiveAvgPool2d(1)
            self.fc = nn.Linear(8, 4)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            y = self.pool(torch.relu(self.depthwise(torch.relu(self.conv(x)))))
            return self.fc(torch.flatten(self.gap(y), 1))

    class Mlp(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.layers = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 8))

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.layers(x)

    class Pairs(nn.Module):
        """Joins neighbouring steps into pairs: a reshape whose inferred dim must divide the sequence."""

        def __init__(self) -> None:
            super().__init__()
            self.linear = nn.Linear(16, 4)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return torch.relu(self.linear(x.reshape(2, -1, 16)))

    class Decoder(nn.Module):
        """A strided convolution, a PReLU per channel, a deconvolution back up and a bilinear resize to a
        fixed size, over a batch of any size."""

        def __init__(self) -> None:
            super().__init__()
            self.down = nn.Conv2d(3, 8, 3, stride=2, padding=1)
            self.prelu = nn.PReLU(8)
            self.up = nn.ConvTranspose2d(8, 4, 2, stride=2)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            y = self.up(self.prelu(self.down(x)))
            return functional.interpolate(y, size=(12, 20), mode="bilinear", align_corners=False)

    class QuantizedConvs(nn.Module):
        """Convolutions for dynamic quantization: a 3x3 one, a pointwise one (XNNPACK quantizes its pixels one
        by one), a depthwise one and a deconvolution."""

        def __init__(self) -> None:
            super().__init__()
            self.conv = nn.Conv2d(3, 8, 3, padding=1)
            self.pointwise = nn.Conv2d(8, 8, 1)
            self.depthwise = nn.Conv2d(8, 8, 3, padding=1, groups=8)
            self.up = nn.ConvTranspose2d(8, 4, 2, stride=2)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.up(self.depthwise(self.pointwise(self.conv(x))))

    return {
        "cnn": DynamicBatchCnn,
        "attention": Attention,
        "mix": Mix,
        "spatial": Spatial,
        "mlp": Mlp,
        "pairs": Pairs,
        "decoder": Decoder,
        "quantized_convs": QuantizedConvs,
    }


def programs() -> dict[str, Dynamic]:
    import torch

    modules = _modules()

    def batch() -> dict[int, Any]:
        return {0: torch.export.Dim("batch", min=1, max=8)}

    def seq(low: int) -> Callable[[], dict[int, Any]]:
        return lambda: {1: torch.export.Dim("seq", min=low, max=24)}

    def image() -> dict[int, Any]:
        # Multiples of 4: the strided convolution and the pooling then divide them evenly.
        return {2: 4 * torch.export.Dim("h", min=2, max=8), 3: 4 * torch.export.Dim("w", min=2, max=8)}

    def cnn_image(side: int) -> tuple[tuple[int, ...], ...]:
        return tuple((n, 3, side, side) for n in (1, 3, 8, 2))

    cnn_sizes = cnn_image(16)
    image_sizes = ((1, 3, 8, 12), (1, 3, 32, 32), (1, 3, 20, 8), (1, 3, 16, 16))
    return {
        "cnn_f32": Dynamic(modules["cnn"], (2, 3, 16, 16), batch, "f32", cnn_sizes, (9, 3, 16, 16)),
        "cnn_qs8": Dynamic(modules["cnn"], (2, 3, 16, 16), batch, "qs8", cnn_sizes, (9, 3, 16, 16)),
        "spatial_f32": Dynamic(modules["spatial"], (1, 3, 16, 16), image, "f32", image_sizes, (1, 3, 36, 16)),
        "spatial_qs8": Dynamic(modules["spatial"], (1, 3, 16, 16), image, "qs8", image_sizes, (1, 3, 36, 16)),
        "attention_f32": Dynamic(
            modules["attention"], (1, 8, 16), seq(2), "f32", ((1, 2, 16), (1, 9, 16), (1, 24, 16)), (1, 25, 16)
        ),
        "mix_f32": Dynamic(
            modules["mix"], (1, 8, 16), seq(3), "f32", ((1, 3, 16), (1, 17, 16), (1, 24, 16)), (1, 25, 16)
        ),
        "pairs_f32": Dynamic(
            modules["pairs"],
            (2, 8, 8),
            lambda: {1: 2 * torch.export.Dim("pairs", min=1, max=12)},
            "f32",
            ((2, 2, 8), (2, 10, 8), (2, 24, 8)),
            (2, 26, 8),
        ),
        "mlp_qd8": Dynamic(
            modules["mlp"], (2, 8, 16), seq(2), "qd8", ((2, 2, 16), (2, 11, 16), (2, 24, 16)), (2, 25, 16)
        ),
        "mlp_f16": Dynamic(
            modules["mlp"], (2, 8, 16), seq(2), "f16", ((2, 2, 16), (2, 11, 16), (2, 24, 16)), (2, 25, 16)
        ),
        "decoder_f32": Dynamic(modules["decoder"], (2, 3, 8, 8), batch, "f32", cnn_image(8), (9, 3, 8, 8)),
        "convs_qd8": Dynamic(modules["quantized_convs"], (2, 3, 8, 8), batch, "qd8", cnn_image(8), (9, 3, 8, 8)),
    }


def export(name: str, program: Dynamic, out_dir: Path) -> Path:
    """Exports one program to out_dir/<name>.pte (quantizers calibrated on its traced shape)."""
    import torch
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
    from executorch.backends.xnnpack.quantizer.xnnpack_quantizer import (
        XNNPACKQuantizer,
        get_symmetric_quantization_config,
    )
    from executorch.exir import to_edge_transform_and_lower
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e

    torch.manual_seed(sum(map(ord, name)))
    module = program.make().eval()
    example = (torch.randn(*program.example, generator=torch.Generator().manual_seed(0)),)
    dims = (program.dims(),)
    with torch.no_grad():
        if program.recipe == "f16":
            module, example = module.half(), (example[0].half(),)
        elif program.recipe != "f32":
            config = get_symmetric_quantization_config(is_per_channel=True, is_dynamic=program.recipe == "qd8")
            quantizer = XNNPACKQuantizer().set_global(config)
            prepared = prepare_pt2e(torch.export.export(module, example, dynamic_shapes=dims).module(), quantizer)
            for seed in range(3):
                prepared(torch.randn(*program.example, generator=torch.Generator().manual_seed(seed)))
            module = convert_pt2e(prepared)
        exported = torch.export.export(module, example, dynamic_shapes=dims)
        lowered = to_edge_transform_and_lower(exported, partitioner=[XnnpackPartitioner()])
        data = lowered.to_executorch().buffer
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"{name}.pte"
    path.write_bytes(data)
    return path


def with_input_bound(data: bytes, dim: int, size: int) -> bytes:
    """The program with its first input's bound in `dim` raised to `size` (ExecuTorch's own serializer):
    the method then takes a shape its delegate was not built for."""
    from executorch.exir._serialize._program import deserialize_pte_binary, serialize_pte_binary

    pte = deserialize_pte_binary(data)
    plan = pte.program.execution_plan[0]
    plan.values[plan.inputs[0]].val.sizes[dim] = size
    return bytes(serialize_pte_binary(pte, extract_delegate_segments=True))
