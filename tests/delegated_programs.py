"""Real XNNPACK-delegated programs, exported with executorch's own exporter
(`torch.export`, `to_edge_transform_and_lower` with `XnnpackPartitioner`,
`to_executorch`), and what ExecuTorch's side says they hold.

Each model is tiny and seeded. `export` writes `<name>.pte` files; `expected`
reads a program back with ExecuTorch's deserializer and XNNPACK's own header
parser, for tests to compare with what our runtime hands a backend.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bot.selection.pte import FlatReader

# name: (module factory, example input shapes, extract_delegate_segments)
DATA_LOCATION = {0: "INLINE", 1: "SEGMENT"}


def _models() -> dict[str, tuple[Any, tuple[tuple[int, ...], ...], bool]]:
    import torch

    class Linear(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.linear = torch.nn.Linear(8, 4)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return torch.relu(self.linear(x))

    class ConvCumsum(torch.nn.Module):
        """A delegated conv, then an op XNNPACK does not take (left to our kernels)."""

        def __init__(self) -> None:
            super().__init__()
            self.conv = torch.nn.Conv2d(3, 4, 3)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return torch.cumsum(self.conv(x), 1)

    class TwoDelegates(torch.nn.Module):
        """Two delegated linears with a cumsum between them: two delegates."""

        def __init__(self) -> None:
            super().__init__()
            self.first = torch.nn.Linear(8, 6)
            self.second = torch.nn.Linear(6, 3)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.second(torch.cumsum(self.first(x), 1))

    class MatmulAddCumsum(torch.nn.Module):
        """mm and add for ExecuTorch's demo backend (AddMulPartitionerDemo), then a cumsum left to our kernels."""

        def forward(self, a: torch.Tensor, x: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
            return torch.cumsum(torch.mm(a, x) + b, 1)

    return {
        "demo_backend": (MatmulAddCumsum, ((2, 2), (2, 2), (2, 2)), True),
        "linear": (Linear, ((2, 8),), True),
        "linear_inline": (Linear, ((2, 8),), False),
        "conv_cumsum": (ConvCumsum, ((1, 3, 8, 8),), True),
        "two_delegates": (TwoDelegates, ((2, 8),), True),
    }


MODELS = ("linear", "linear_inline", "conv_cumsum", "two_delegates")  # XNNPACK-delegated
# Delegated to ExecuTorch's own demo backend (executorch.exir.backend.test: BackendWithCompilerDemo), which
# no runtime of ours has: a real program whose backend is missing.
DEMO_BACKEND = "BackendWithCompilerDemo"


# --- node kinds beyond the zoo's ------------------------------------------------------------------------
# Small programs whose delegates hold the node kinds and dtypes the zoo lacks: deconvolutions (fp32, int8
# per channel and per tensor, fp16), dynamically quantized convolutions, bilinear resizes, PReLU, and fp16
# programs (`model.half()`, fp16 inputs).


def _kind_models() -> dict[str, tuple[Any, tuple[tuple[int, ...], ...]]]:
    import torch
    from torch import nn
    from torch.nn import functional as F

    class Deconv(nn.Module):
        """A UNet-like decoder: stride-2 deconvolutions (output padding, groups, dilation), concatenated."""

        def __init__(self) -> None:
            super().__init__()
            self.down = nn.Conv2d(3, 8, 3, stride=2, padding=1)
            self.up2 = nn.ConvTranspose2d(8, 4, 2, stride=2)
            self.up3 = nn.ConvTranspose2d(8, 4, 3, stride=2, padding=1, output_padding=1, groups=2)
            self.dilated = nn.ConvTranspose2d(8, 4, 3, stride=2, padding=2, output_padding=1, dilation=2, bias=False)
            self.head = nn.Conv2d(15, 2, 1)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            y = torch.relu(self.down(x))
            return self.head(torch.cat([x, torch.relu(self.up2(y)), self.up3(y), self.dilated(y)], 1))

    class DynamicConvs(nn.Module):
        """Convolutions (3x3, and a pointwise one XNNPACK runs as a GEMM over pixels), a depthwise one and a
        deconvolution for dynamic quantization (qd8: int8 scales found at run time)."""

        def __init__(self) -> None:
            super().__init__()
            self.conv = nn.Conv2d(3, 8, 3, stride=2, padding=1)
            self.depthwise = nn.Conv2d(8, 8, 3, padding=1, groups=8)
            self.up = nn.ConvTranspose2d(8, 4, 3, stride=2, padding=1, output_padding=1)
            self.smooth = nn.Conv2d(4, 4, 3, padding=1, bias=False)
            self.head = nn.Conv2d(4, 2, 1)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.head(self.smooth(self.up(self.depthwise(self.conv(x)))))

    class Resize(nn.Module):
        """Bilinear resizes up and down, by size and by scale, with and without aligned corners."""

        def __init__(self) -> None:
            super().__init__()
            self.conv = nn.Conv2d(3, 4, 3, padding=1)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            y = self.conv(x)
            up = F.interpolate(y, scale_factor=2.0, mode="bilinear", align_corners=False)
            aligned = F.interpolate(y, size=(2 * x.shape[2], 2 * x.shape[3]), mode="bilinear", align_corners=True)
            down = F.interpolate(up + aligned, size=(5, 7), mode="bilinear", align_corners=False)
            return down

    class PReLUs(nn.Module):
        """PReLU per channel and shared, on images (ExecuTorch's partitioner takes PReLU on images only)."""

        def __init__(self) -> None:
            super().__init__()
            self.conv = nn.Conv2d(3, 6, 3)
            self.per_channel = nn.PReLU(6)
            self.conv2 = nn.Conv2d(6, 4, 3)
            self.shared = nn.PReLU()
            self.linear = nn.Linear(4, 5)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            y = self.shared(self.conv2(self.per_channel(self.conv(x))))
            y = y.mean(dim=(2, 3))
            return self.linear(y)

    class HalfCnn(nn.Module):
        """A small CNN of the common image node kinds, run in fp16."""

        def __init__(self) -> None:
            super().__init__()
            self.stem = nn.Conv2d(3, 8, 3, stride=2, padding=1)
            self.bn = nn.BatchNorm2d(8)
            self.dw = nn.Conv2d(8, 8, 3, padding=1, groups=8)
            self.pw = nn.Conv2d(8, 12, 1)
            self.prelu = nn.PReLU(12)
            self.se = nn.Conv2d(12, 12, 1)
            self.fc = nn.Linear(12, 5)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            y = F.hardswish(self.bn(self.stem(x)))
            y = F.relu6(self.dw(y)) + y
            y = self.prelu(self.pw(y))
            y = F.max_pool2d(y, 2) * torch.sigmoid(self.se(F.avg_pool2d(y, 2)))
            y = F.interpolate(y, scale_factor=2.0, mode="bilinear")
            return self.fc(torch.flatten(F.adaptive_avg_pool2d(y, 1), 1))

    class HalfAttention(nn.Module):
        """Attention over token rows in fp16: linears, batched matmuls, softmax, GELU, slices, concatenation."""

        def __init__(self) -> None:
            super().__init__()
            self.qkv = nn.Linear(16, 48)
            self.out = nn.Linear(16, 16)
            self.mlp = nn.Linear(16, 32)
            self.down = nn.Linear(32, 16, bias=False)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            q, k, v = self.qkv(x).split(16, dim=-1)
            weights = torch.softmax(torch.bmm(q, k.transpose(1, 2)) * 0.25, dim=-1)
            y = self.out(torch.bmm(weights, v)) + x
            y = y + self.down(F.gelu(self.mlp(y)))
            return torch.cat([torch.tanh(y[:, :2]), y[:, 2:] - x[:, 2:]], dim=1)

    class SmallPlanes(nn.Module):
        """Max pools and strided convolutions over small, odd planes (the shapes of a CNN's later layers):
        2x2 and 3x3 windows with and without padding, ceil mode, non-square and stride-1 ones, a 1x1
        output; convolutions of stride 2 with 3x3 and 5x5 filters, padding and dilation, outputs down to
        1x1, channel counts no vector width divides. Each result flattened and concatenated."""

        def __init__(self) -> None:
            super().__init__()
            self.convs = nn.ModuleList(
                [
                    nn.Conv2d(5, 7, 3, stride=2, padding=1),
                    nn.Conv2d(5, 9, 3, stride=2),
                    nn.Conv2d(5, 6, 5, stride=2, padding=2),
                    nn.Conv2d(5, 4, 3, stride=2, padding=1, dilation=2),
                    nn.Conv2d(5, 17, 3, stride=(2, 3), padding=1),
                    nn.Conv2d(5, 3, (3, 5), stride=2, padding=(1, 2)),
                ]
            )
            self.tiny = nn.Conv2d(5, 3, 3, stride=2)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            pools = [
                F.max_pool2d(x, 2),
                F.max_pool2d(x, 2, ceil_mode=True),
                F.max_pool2d(x, 3, 2, 1),
                F.max_pool2d(x, 3, 2),
                F.max_pool2d(x, 3, 2, ceil_mode=True),
                F.max_pool2d(x, (2, 3), 2, (1, 1)),
                F.max_pool2d(x, 3, 1, 1),
                F.max_pool2d(x[:, :, :3, :3], 2),
                F.max_pool2d(torch.relu(x), 2),
            ]
            convs = [conv(x) for conv in self.convs] + [self.tiny(x[:, :, :4, :4])]
            return torch.cat([torch.flatten(y, 1) for y in pools + convs], 1)

    def residual_stage() -> nn.Module:
        """torchvision resnet18's stem and first stage: int8 residual adds, whose rounding XNNPACK does in
        fixed point."""
        from models.architectures import torchvision_models

        net = torchvision_models().resnet18(num_classes=10)
        return nn.Sequential(net.conv1, net.bn1, net.relu, net.maxpool, net.layer1)

    image = ((1, 3, 16, 16),)
    return {
        "deconv_f32": (Deconv, image),
        "deconv_qs8": (Deconv, image),
        "deconv_qs8_pt": (Deconv, image),
        "deconv_f16": (Deconv, image),
        "convs_qd8": (DynamicConvs, image),
        "resize_f32": (Resize, ((1, 3, 6, 9),)),
        "prelu_f32": (PReLUs, image),
        "cnn_f16": (HalfCnn, image),
        "attention_f16": (HalfAttention, ((1, 6, 16),)),
        "small_planes_f32": (SmallPlanes, ((2, 5, 9, 11),)),
        "residual_qs8": (residual_stage, ((1, 3, 64, 64),)),
    }


KIND_PROGRAMS = tuple(_kind_models())
CALIBRATION_SEEDS = (11, 12, 13)


def kind_inputs(name: str) -> tuple[Any, ...]:
    """The seeded inputs a kind program runs at (fp16 for the `_f16` ones)."""
    import torch

    generator = torch.Generator().manual_seed(3)
    inputs = tuple(torch.randn(*shape, generator=generator) for shape in _kind_models()[name][1])
    return tuple(t.half() for t in inputs) if name.endswith("_f16") else inputs


def export_kinds(out_dir: Path) -> dict[str, Path]:
    """Every kind program to out_dir/<name>.pte, each by its recipe (the name's suffix): fp32, PT2E with
    XNNPACKQuantizer (static int8 with per-channel weights, `_pt` per-tensor ones, `_qd8` dynamic int8
    activations), or fp16."""
    import torch
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
    from executorch.backends.xnnpack.quantizer.xnnpack_quantizer import (
        XNNPACKQuantizer,
        get_symmetric_quantization_config,
    )
    from executorch.exir import to_edge_transform_and_lower
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e

    out_dir.mkdir(parents=True, exist_ok=True)
    paths = {}
    for name, (factory, shapes) in _kind_models().items():
        torch.manual_seed(0)
        module = factory().eval()
        example = kind_inputs(name)
        with torch.no_grad():
            if name.endswith("_f16"):
                for m in module.modules():
                    if isinstance(m, torch.nn.BatchNorm2d):  # statistics that make the fold do real work
                        m.running_mean.uniform_(-0.5, 0.5)
                        m.running_var.uniform_(0.5, 2.0)
                module = module.half()
            elif "_qs8" in name or "_qd8" in name:
                config = get_symmetric_quantization_config(
                    is_per_channel=not name.endswith("_pt"), is_dynamic=name.endswith("_qd8")
                )
                prepared = prepare_pt2e(
                    torch.export.export(module, example).module(), XNNPACKQuantizer().set_global(config)
                )
                for seed in CALIBRATION_SEEDS:
                    generator = torch.Generator().manual_seed(seed)
                    prepared(*(torch.randn(*shape, generator=generator) for shape in shapes))
                module = convert_pt2e(prepared)
            exported = torch.export.export(module, example)
            lowered = to_edge_transform_and_lower(exported, partitioner=[XnnpackPartitioner()])
        paths[name] = out_dir / f"{name}.pte"
        paths[name].write_bytes(lowered.to_executorch().buffer)
    return paths


def export(out_dir: Path) -> dict[str, Path]:
    """Exports every model to out_dir/<name>.pte."""
    import torch
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
    from executorch.exir import ExecutorchBackendConfig, to_edge_transform_and_lower

    out_dir.mkdir(parents=True, exist_ok=True)
    paths = {}
    for name, (factory, shapes, extract) in _models().items():
        torch.manual_seed(0)
        module = factory().eval()
        example = tuple(torch.randn(*shape) for shape in shapes)
        exported = torch.export.export(module, example)
        if name == "demo_backend":
            from executorch.exir import to_edge
            from executorch.exir.backend.test.op_partitioner_demo import AddMulPartitionerDemo

            lowered = to_edge(exported).to_backend(AddMulPartitionerDemo())
        else:
            lowered = to_edge_transform_and_lower(exported, partitioner=[XnnpackPartitioner()])
        program = lowered.to_executorch(ExecutorchBackendConfig(extract_delegate_segments=extract))
        paths[name] = out_dir / f"{name}.pte"
        paths[name].write_bytes(program.buffer)
    return paths


@dataclass(frozen=True)
class Delegate:
    backend: str
    location: str  # where the file keeps its payload: INLINE or SEGMENT
    payload: bytes
    header: Any  # XNNPACK's XNNHeader of the payload
    compile_specs: tuple[tuple[str, int], ...]


@dataclass(frozen=True)
class Expected:
    delegates: tuple[Delegate, ...]
    named_data: dict[str, int]  # key: bytes
    operators: tuple[str, ...]
    delegate_calls: tuple[tuple[int, tuple[int, ...]], ...]  # (delegate index, value indices)
    values: tuple[Any, ...]  # ExecuTorch's EValues


def expected(data: bytes) -> Expected:
    """What the program holds, by ExecuTorch's deserializer and XNNPACK's header parser."""
    from executorch.backends.xnnpack.serialization.xnnpack_graph_serialize import XNNHeader
    from executorch.exir import schema
    from executorch.exir._serialize._program import deserialize_pte_binary

    pte = deserialize_pte_binary(data)  # payloads come back inline, wherever the file keeps them
    plan = pte.program.execution_plan[0]
    locations = _payload_locations(data)
    delegates = []
    for index, delegate in enumerate(plan.delegates):
        payload = bytes(pte.program.backend_delegate_data[delegate.processed.index].data)
        delegates.append(
            Delegate(
                delegate.id,
                locations[index],
                payload,
                XNNHeader.from_bytes(payload[: XNNHeader.EXPECTED_LENGTH]),
                tuple((spec.key, len(spec.value)) for spec in delegate.compile_specs),
            )
        )
    named = pte.named_data
    named_data = {key: len(named.buffers[entry.buffer_index]) for key, entry in named.pte_data.items()}
    calls = tuple(
        (ins.instr_args.delegate_index, tuple(ins.instr_args.args))
        for ins in plan.chains[0].instructions
        if isinstance(ins.instr_args, schema.DelegateCall)
    )
    operators = tuple(f"{op.name}.{op.overload}" for op in plan.operators)
    return Expected(tuple(delegates), named_data, operators, calls, tuple(plan.values))


def _payload_locations(data: bytes) -> list[str]:
    """Each delegate's payload location as the file itself says (program.fbs BackendDelegateDataReference)."""
    r = FlatReader(data)
    plan = r.tables(r.root(), 1)[0]
    found = []
    for delegate in r.tables(plan, 7):
        processed = r.table(delegate, 1)
        found.append(DATA_LOCATION[int(r.scalar(processed, 0, "b"))] if processed is not None else "INLINE")
    return found


def field_pos(data: bytes, path: str) -> int:
    """Byte position of a present scalar field, for hand-built corruptions:
    "segment.<i>.size", "segment.<i>.offset", "named.<i>.segment", "delegate.<i>.location",
    "delegate.<i>.index"."""
    r = FlatReader(data)
    root = r.root()
    kind, index, field = path.split(".")
    if kind == "segment":
        table = r.tables(root, 4)[int(index)]
        number = {"offset": 0, "size": 1}[field]
    elif kind == "named":
        table = r.tables(root, 7)[int(index)]
        number = {"segment": 1}[field]
    else:
        plan = r.tables(root, 1)[0]
        table = r.table(r.tables(plan, 7)[int(index)], 1)
        number = {"location": 0, "index": 1}[field]
    pos = r.field_pos(table, number)
    if pos is None:
        raise ValueError(f"{path} is absent (its default) in this program: nothing to patch")
    return pos


def named_key_pos(data: bytes, index: int) -> tuple[int, int]:
    """(position, length) of named data entry `index`'s key string."""
    r = FlatReader(data)
    table = r.tables(r.root(), 7)[index]
    return r.vector(table, 0, 1)


def segments(data: bytes) -> list[tuple[int, int]]:
    """(offset, size) of each segment."""
    r = FlatReader(data)
    return [(int(r.scalar(s, 0, "Q")), int(r.scalar(s, 1, "Q"))) for s in r.tables(r.root(), 4)]
