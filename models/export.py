"""Export the model zoo as ExecuTorch programs, with inputs and reference outputs.

Needs the optional `export` extra (torch + executorch). Run from the repo root:

    python -m models.export [--out models/zoo] [--only NAME ...]

For every model this writes `<name>.pte`, `<name>.input<i>.npy` and
`<name>.expected<i>.npy`. The expected outputs come from ExecuTorch's own
Python runtime on the same `.pte`, so the native runtime is compared against
ExecuTorch rather than against eager PyTorch.

Models in DYNAMIC are exported with `torch.export.Dim` dimensions (their
tensors are DYNAMIC_BOUND, sized in the program by the dims' maxima); their
saved inputs have a shape other than the example the export traced.
"""

from __future__ import annotations

import argparse
import glob
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import torch
from torch import nn

ZOO_DIR = Path(__file__).resolve().parent / "zoo"


class ConvBnAct(nn.Sequential):
    def __init__(self, cin: int, cout: int, k: int, stride: int = 1, groups: int = 1, act: nn.Module | None = None):
        super().__init__(
            nn.Conv2d(cin, cout, k, stride, k // 2, groups=groups, bias=False),
            nn.BatchNorm2d(cout),
            act if act is not None else nn.Identity(),
        )


class InvertedResidual(nn.Module):
    """MobileNet-v2 block: expand, depthwise, project, with a skip when shapes allow."""

    def __init__(self, cin: int, cout: int, stride: int, expand: int):
        super().__init__()
        hidden = cin * expand
        self.use_skip = stride == 1 and cin == cout
        self.block = nn.Sequential(
            ConvBnAct(cin, hidden, 1, act=nn.ReLU6()),
            ConvBnAct(hidden, hidden, 3, stride, groups=hidden, act=nn.ReLU6()),
            ConvBnAct(hidden, cout, 1),
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.block(x)
        return x + y if self.use_skip else y


class MobileNetV2Like(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.stem = ConvBnAct(3, 16, 3, 2, act=nn.ReLU6())
        self.blocks = nn.Sequential(
            InvertedResidual(16, 16, 1, 2),
            InvertedResidual(16, 24, 2, 3),
            InvertedResidual(24, 24, 1, 3),
        )
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.head = nn.Linear(24, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.pool(self.blocks(self.stem(x)))
        return self.head(torch.flatten(x, 1))


class SqueezeExcite(nn.Module):
    def __init__(self, ch: int):
        super().__init__()
        self.fc1 = nn.Conv2d(ch, ch // 4, 1)
        self.fc2 = nn.Conv2d(ch // 4, ch, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        s = x.mean((2, 3), keepdim=True)
        s = nn.functional.hardsigmoid(self.fc2(nn.functional.relu(self.fc1(s))))
        return x * s


class MobileNetV3Like(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.stem = ConvBnAct(3, 16, 3, 2, act=nn.Hardswish())
        self.dw = ConvBnAct(16, 16, 3, 2, groups=16, act=nn.ReLU())
        self.se = SqueezeExcite(16)
        self.project = ConvBnAct(16, 24, 1, act=nn.Hardswish())
        self.head = nn.Sequential(nn.Linear(24, 32), nn.Hardswish(), nn.Dropout(0.2), nn.Linear(32, 10))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.project(self.se(self.dw(self.stem(x))))
        return self.head(x.mean((2, 3)))


class BasicBlock(nn.Module):
    def __init__(self, cin: int, cout: int, stride: int):
        super().__init__()
        self.body = nn.Sequential(ConvBnAct(cin, cout, 3, stride, act=nn.ReLU()), ConvBnAct(cout, cout, 3))
        self.down = ConvBnAct(cin, cout, 1, stride) if stride != 1 or cin != cout else nn.Identity()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.body(x) + self.down(x))


class ResNetLike(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.stem = nn.Sequential(ConvBnAct(3, 16, 3, 1, act=nn.ReLU()), nn.MaxPool2d(3, 2, 1))
        self.layers = nn.Sequential(BasicBlock(16, 16, 1), BasicBlock(16, 32, 2))
        self.pool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(32, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.pool(self.layers(self.stem(x)))
        return torch.log_softmax(self.fc(torch.flatten(x, 1)), dim=1)


class Fire(nn.Module):
    def __init__(self, cin: int, squeeze: int, expand: int):
        super().__init__()
        self.squeeze = nn.Conv2d(cin, squeeze, 1)
        self.e1 = nn.Conv2d(squeeze, expand, 1)
        self.e3 = nn.Conv2d(squeeze, expand, 3, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        s = torch.relu(self.squeeze(x))
        return torch.cat([torch.relu(self.e1(s)), torch.relu(self.e3(s))], 1)


class SqueezeNetLike(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 16, 3, 2),
            nn.ReLU(),
            nn.MaxPool2d(3, 2, ceil_mode=True),
            Fire(16, 8, 16),
            Fire(32, 8, 16),
            nn.MaxPool2d(3, 2, ceil_mode=True),
        )
        self.classifier = nn.Sequential(nn.Dropout(0.5), nn.Conv2d(32, 10, 1), nn.ReLU(), nn.AvgPool2d(3))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.flatten(self.classifier(self.features(x)), 1)


def channel_shuffle(x: torch.Tensor, groups: int) -> torch.Tensor:
    n, c, h, w = x.shape
    x = x.view(n, groups, c // groups, h, w).transpose(1, 2).contiguous()
    return x.view(n, c, h, w)


class ShuffleUnit(nn.Module):
    def __init__(self, ch: int):
        super().__init__()
        half = ch // 2
        self.branch = nn.Sequential(
            ConvBnAct(half, half, 1, act=nn.ReLU()),
            ConvBnAct(half, half, 3, groups=half),
            ConvBnAct(half, half, 1, act=nn.ReLU()),
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        a, b = x.chunk(2, dim=1)
        return channel_shuffle(torch.cat([a, self.branch(b)], 1), 2)


class ShuffleNetLike(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.stem = ConvBnAct(3, 24, 3, 2, act=nn.ReLU())
        self.pool = nn.MaxPool2d(2)
        self.units = nn.Sequential(ShuffleUnit(24), ShuffleUnit(24))
        self.fc = nn.Linear(24, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.units(self.pool(self.stem(x)))
        return torch.softmax(self.fc(x.mean((2, 3))), dim=-1)


class TinyTransformer(nn.Module):
    """Token classifier: embedding, a causal-masked encoder layer, LayerNorm, GELU."""

    def __init__(self) -> None:
        super().__init__()
        self.embed = nn.Embedding(50, 32)
        self.pos = nn.Parameter(torch.randn(1, 12, 32) * 0.1)
        self.layer = nn.TransformerEncoderLayer(32, 4, 64, dropout=0.0, activation="gelu", batch_first=True)
        self.norm = nn.LayerNorm(32)
        self.out = nn.Linear(32, 5)
        self.register_buffer("mask", torch.triu(torch.full((12, 12), float("-inf")), diagonal=1))

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        x = self.embed(tokens) + self.pos
        x = self.layer(x, src_mask=self.mask)
        return self.out(self.norm(x))


class MhaBlock(nn.Module):
    """Attention with an explicit boolean padding mask and a residual."""

    def __init__(self) -> None:
        super().__init__()
        self.attn = nn.MultiheadAttention(16, 2, batch_first=True)
        self.ln = nn.LayerNorm(16)
        self.ff = nn.Sequential(nn.Linear(16, 32), nn.GELU(approximate="tanh"), nn.Linear(32, 16))

    def forward(self, x: torch.Tensor, pad: torch.Tensor) -> torch.Tensor:
        a, _ = self.attn(x, x, x, key_padding_mask=pad, need_weights=False)
        x = self.ln(x + a)
        return x + self.ff(x)


class GruClassifier(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.gru = nn.GRU(8, 16, num_layers=1, batch_first=True)
        self.fc = nn.Linear(16, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out, _ = self.gru(x)
        return torch.sigmoid(self.fc(out[:, -1]))


class LstmTagger(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.embed = nn.Embedding(30, 12)
        self.lstm = nn.LSTM(12, 16, batch_first=True)
        self.fc = nn.Linear(16, 6)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        out, _ = self.lstm(self.embed(tokens))
        return torch.tanh(self.fc(out))


class TinyUNet(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.enc1 = nn.Conv2d(1, 8, 3, padding=1)
        self.enc2 = nn.Conv2d(8, 16, 3, padding=1)
        self.pool = nn.MaxPool2d(2)
        self.up = nn.Upsample(scale_factor=2, mode="nearest")
        self.dec = nn.Conv2d(24, 8, 3, padding=1)
        self.out = nn.Conv2d(8, 1, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        e1 = nn.functional.leaky_relu(self.enc1(x), 0.1)
        e2 = nn.functional.elu(self.enc2(self.pool(e1)))
        d = nn.functional.leaky_relu(self.dec(torch.cat([self.up(e2), e1], 1)), 0.1)
        return torch.clamp(self.out(d), -1.0, 1.0)


class DynamicBatchCnn(nn.Module):
    """Conv, batch norm, pooling and a linear head over a batch of any size."""

    def __init__(self) -> None:
        super().__init__()
        self.features = nn.Sequential(
            ConvBnAct(3, 12, 3, act=nn.ReLU()),
            nn.MaxPool2d(2),
            ConvBnAct(12, 16, 3, 2, act=nn.Hardtanh(-2.0, 2.0)),
        )
        self.head = nn.Linear(16, 5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.features(x).mean((2, 3)))


class DynamicSeqEncoder(nn.Module):
    """A transformer encoder over a sequence of any length (sym_size and et_view in the program)."""

    def __init__(self) -> None:
        super().__init__()
        self.embed = nn.Embedding(40, 16)
        self.layer = nn.TransformerEncoderLayer(16, 2, 32, dropout=0.0, batch_first=True)
        self.norm = nn.LayerNorm(16)
        self.head = nn.Linear(16, 6)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        return self.head(self.norm(self.layer(self.embed(tokens))))


class PairPooler(nn.Module):
    """Sizes computed from a dynamic length (executorch_prim floordiv, sub, mul in the program):
    pairs of steps are joined, all but the last pair summed, the last added back."""

    def __init__(self) -> None:
        super().__init__()
        self.proj = nn.Linear(8, 8)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, n, d = x.shape
        pairs = self.proj(x).reshape(b, n // 2, 2 * d)
        head = pairs[:, : n // 2 - 1]
        return torch.cat([head, pairs[:, -1:]], 1).sum(1) + pairs.mean(1) * 0.5


def image(shape: tuple[int, ...]) -> Callable[[torch.Generator], tuple[torch.Tensor, ...]]:
    return lambda g: (torch.randn(shape, generator=g),)


def tokens(vocab: int, shape: tuple[int, ...]) -> Callable[[torch.Generator], tuple[torch.Tensor, ...]]:
    return lambda g: (torch.randint(0, vocab, shape, generator=g),)


def sequence_with_padding(g: torch.Generator) -> tuple[torch.Tensor, ...]:
    pad = torch.zeros(2, 6, dtype=torch.bool)
    pad[1, 4:] = True
    return torch.randn(2, 6, 16, generator=g), pad


ZOO: dict[str, tuple[Callable[[], nn.Module], Callable[[torch.Generator], tuple[torch.Tensor, ...]]]] = {
    "mobilenet_v2": (MobileNetV2Like, image((1, 3, 32, 32))),
    "mobilenet_v3": (MobileNetV3Like, image((1, 3, 32, 32))),
    "resnet": (ResNetLike, image((1, 3, 32, 32))),
    "squeezenet": (SqueezeNetLike, image((1, 3, 48, 48))),
    "shufflenet": (ShuffleNetLike, image((1, 3, 32, 32))),
    "transformer": (TinyTransformer, tokens(50, (1, 12))),
    "mha_block": (MhaBlock, sequence_with_padding),
    "gru": (GruClassifier, image((2, 7, 8))),
    "lstm_tagger": (LstmTagger, tokens(30, (2, 9))),
    "unet": (TinyUNet, image((1, 1, 16, 16))),
    "cnn_dynamic_batch": (DynamicBatchCnn, image((2, 3, 16, 16))),
    "encoder_dynamic_seq": (DynamicSeqEncoder, tokens(40, (1, 8))),
    "pair_pooler_dynamic": (PairPooler, image((2, 6, 8))),
}

Dims = Callable[[], tuple[dict[int, object], ...]]
# Dynamic models: their dims (per input, as torch.export takes them) and the
# inputs their saved example runs at, of a shape other than the traced one.
DYNAMIC: dict[str, tuple[Dims, Callable[[torch.Generator], tuple[torch.Tensor, ...]]]] = {
    "cnn_dynamic_batch": (lambda: ({0: torch.export.Dim("batch", min=1, max=8)},), image((3, 3, 16, 16))),
    "encoder_dynamic_seq": (lambda: ({1: torch.export.Dim("seq", min=2, max=32)},), tokens(40, (1, 5))),
    "pair_pooler_dynamic": (lambda: ({1: 2 * torch.export.Dim("pairs", min=1, max=16)},), image((2, 10, 8))),
}


def all_models() -> dict[str, tuple[Callable[[], nn.Module], Callable[[torch.Generator], tuple[torch.Tensor, ...]]]]:
    """The hand-written zoo and the real torchvision/transformers architectures."""
    from models.architectures import ARCHITECTURES

    return {**ZOO, **ARCHITECTURES}


def build(name: str) -> tuple[nn.Module, tuple[torch.Tensor, ...]]:
    """The model in eval mode with seeded weights (BatchNorm stats randomised so BN does real work)."""
    make_model, make_inputs = all_models()[name]
    torch.manual_seed(sum(map(ord, name)))
    model = make_model().eval()
    for module in model.modules():
        if isinstance(module, nn.BatchNorm2d):
            module.running_mean.uniform_(-0.5, 0.5)
            module.running_var.uniform_(0.5, 1.5)
            module.weight.data.uniform_(0.5, 1.5)
            module.bias.data.uniform_(-0.2, 0.2)
    return model, make_inputs(torch.Generator().manual_seed(1234))


def to_pte(model: nn.Module, inputs: tuple[torch.Tensor, ...], dynamic_shapes: object = None) -> bytes:
    from executorch.exir import to_edge

    with torch.no_grad():
        exported = torch.export.export(model, inputs, dynamic_shapes=dynamic_shapes)
    return to_edge(exported).to_executorch().buffer


def to_delegated_pte(model: nn.Module, inputs: tuple[torch.Tensor, ...], dynamic_shapes: object = None) -> bytes:
    """The same export, lowered to the XNNPACK backend (a program with DelegateCalls)."""
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
    from executorch.exir import to_edge_transform_and_lower

    with torch.no_grad():
        exported = torch.export.export(model, inputs, dynamic_shapes=dynamic_shapes)
    return to_edge_transform_and_lower(exported, partitioner=[XnnpackPartitioner()]).to_executorch().buffer


Runs = dict[str, list[tuple[np.ndarray, ...]]]  # method -> each step's arrays (inputs or outputs)


def as_et_input(array: np.ndarray) -> torch.Tensor:
    """`array` as a tensor with torch's own contiguous strides: numpy gives an empty array strides of 0,
    which ExecuTorch's runtime refuses (it aborts the process) for a tensor with a dimension of size 0."""
    return torch.from_numpy(array).clone(memory_format=torch.contiguous_format)


def reference_runs(pte: Path, runs: dict[str, list[tuple[np.ndarray, ...]]], data: Path | None = None) -> Runs:
    """ExecuTorch's outputs of each method of `runs`, its steps executed in turn on one loaded method (so
    mutable state carries over), with ExecuTorch's quantized and LLM op libraries registered and the
    program's data file (ExecuTorch's Python runtime takes one)."""
    import executorch.kernels.quantized  # noqa: F401  (the imports register the ops in its runtime)
    from executorch.extension.llm.custom_ops import custom_ops  # noqa: F401
    from executorch.runtime import Runtime

    program = Runtime.get().load_program(pte, data_path=data)
    outputs = {}
    for method, steps in runs.items():
        loaded = program.load_method(method)
        outputs[method] = [
            tuple(o.detach().numpy().copy() for o in loaded.execute([as_et_input(x) for x in step])) for step in steps
        ]
    return outputs


def save_runs(pte: Path, runs: Runs, data: Path | None = None) -> Path:
    """Beside `pte`: each method's inputs of each step and ExecuTorch's outputs for them, named as the bot
    finds them (bot/feeds.py): `<name>[.<method>][.step<k>].input<i>.npy` and `....expected<i>.npy`, the
    method left out for forward and the step for a method run once."""
    stem = pte.with_suffix("")
    for stale in pte.parent.glob(f"{glob.escape(stem.name)}.*.npy"):
        stale.unlink()
    references = reference_runs(pte, runs, data)
    for method, inputs in runs.items():
        where = "" if method == "forward" else f".{method}"
        for k, (step_inputs, step_outputs) in enumerate(zip(inputs, references[method], strict=True)):
            step = f".step{k}" if len(inputs) > 1 else ""
            for kind, arrays in (("input", step_inputs), ("expected", step_outputs)):
                for i, array in enumerate(arrays):
                    np.save(f"{stem}{where}{step}.{kind}{i}.npy", array)
    return pte


def reference_outputs(pte: Path, inputs: tuple[torch.Tensor, ...]) -> list[np.ndarray]:
    """ExecuTorch's outputs of one forward call."""
    return list(reference_runs(pte, {"forward": [tuple(t.numpy() for t in inputs)]})["forward"][0])


def run_inputs(name: str) -> tuple[torch.Tensor, ...]:
    """The inputs a dynamic model's saved example runs at."""
    return DYNAMIC[name][1](torch.Generator().manual_seed(4321))


def save_program(out_dir: Path, name: str, program: bytes, inputs: tuple[torch.Tensor, ...]) -> Path:
    """out_dir/<name>.pte, with the inputs it runs at (<name>.input<i>.npy) and ExecuTorch's outputs for them
    (<name>.expected<i>.npy) beside it: what every exporter of the zoo writes for a one-call program."""
    out_dir.mkdir(parents=True, exist_ok=True)
    pte = out_dir / f"{name}.pte"
    pte.write_bytes(program)
    return save_runs(pte, {"forward": [tuple(t.numpy() for t in inputs)]})


def export(name: str, out_dir: Path) -> Path:
    model, inputs = build(name)
    if name in DYNAMIC:
        return save_program(out_dir, name, to_pte(model, inputs, DYNAMIC[name][0]()), run_inputs(name))
    return save_program(out_dir, name, to_pte(model, inputs), inputs)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ZOO_DIR)
    names = sorted(all_models())
    parser.add_argument("--only", nargs="*", choices=names, help="export just these models")
    args = parser.parse_args(argv)
    for name in args.only or names:
        pte = export(name, args.out)
        print(f"{pte}  {pte.stat().st_size} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
