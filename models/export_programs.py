"""Export the zoo's programs beyond one forward call on weights inside the .pte, with inputs and references.

Needs the optional `export` extra (torch + executorch). Run from the repo root:

    python -m models.export_programs [--only NAME ...]

- models/data: programs that keep their weights in a `.ptd` (ExecuTorch's program-data separation):
  - `mobilenet_v2_ptd`: the zoo's mobilenet_v2, `to_executorch(ExecutorchBackendConfig(external_constants=...))`:
    every constant in the data file, keyed by its fully qualified name, with its tensor layout;
  - `transformer_xnn_ptd`: the zoo's transformer lowered to XNNPACK, the delegate's weights tagged for the
    data file (`delegate_external_constants_pass_unlifted`, as ExecuTorch's LLM exporter does), keyed by
    content hash. (Tagging reaches the weights the graph holds; a convolution's batch norm folded during
    lowering makes new ones, which stay in the .pte: hence a transformer.)
- models/methods: `autoencoder`, a program of three methods (`to_edge({"forward": ..., "encode": ...,
  "decode": ...})`), each with its own inputs.

Files are named as the bot finds them (bot/feeds.py): `<name>.ptd`, `<name>[.<method>].input<i>.npy`, and
ExecuTorch's outputs for them, `<name>[.<method>].expected<i>.npy`.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import torch
from torch import nn

from models.export import build, save_runs

MODELS_DIR = Path(__file__).resolve().parent
DATA_DIR = MODELS_DIR / "data"
METHODS_DIR = MODELS_DIR / "methods"


class Encoder(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.layers = nn.Sequential(
            nn.Conv2d(3, 8, 3, 2, 1), nn.ReLU(), nn.Conv2d(8, 16, 3, 2, 1), nn.ReLU(), nn.Conv2d(16, 4, 1)
        )

    def forward(self, image: torch.Tensor) -> torch.Tensor:
        return self.layers(image)


class Decoder(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.layers = nn.Sequential(
            nn.ConvTranspose2d(4, 16, 4, 2, 1), nn.ReLU(), nn.ConvTranspose2d(16, 3, 4, 2, 1), nn.Sigmoid()
        )

    def forward(self, code: torch.Tensor) -> torch.Tensor:
        return self.layers(code)


class Autoencoder(nn.Module):
    def __init__(self, encoder: Encoder, decoder: Decoder) -> None:
        super().__init__()
        self.encoder, self.decoder = encoder, decoder

    def forward(self, image: torch.Tensor) -> torch.Tensor:
        return self.decoder(self.encoder(image))


def _separated(name: str, zoo_model: str, delegated: bool) -> Path:
    """The zoo's `zoo_model` with its weights in DATA_DIR/<name>.ptd."""
    from executorch.exir import ExecutorchBackendConfig, to_edge, to_edge_transform_and_lower

    model, inputs = build(zoo_model)
    to_data_file: Callable[[torch.fx.Node], str] = lambda _node: name  # noqa: E731  (the data file's name)
    with torch.no_grad():
        if delegated:
            from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
            from executorch.exir.passes.external_constants_pass import delegate_external_constants_pass_unlifted

            tagged = torch.export.export(model, inputs).module()
            delegate_external_constants_pass_unlifted(module=tagged, gen_tag_fn=to_data_file)
            edge = to_edge_transform_and_lower(torch.export.export(tagged, inputs), partitioner=[XnnpackPartitioner()])
        else:
            edge = to_edge(torch.export.export(model, inputs))
    program = edge.to_executorch(ExecutorchBackendConfig(external_constants=to_data_file))
    DATA_DIR.mkdir(parents=True, exist_ok=True)
    pte = DATA_DIR / f"{name}.pte"
    pte.write_bytes(program.buffer)
    with tempfile.TemporaryDirectory() as work:
        program.write_tensor_data_to_file(work)
        written = sorted(Path(work).glob("*.ptd"))
        if [p.name for p in written] != [f"{name}.ptd"]:
            raise RuntimeError(f"{name}: expected one data file {name}.ptd, ExecuTorch wrote {written}")
        data = DATA_DIR / f"{name}.ptd"
        data.write_bytes(written[0].read_bytes())
    return save_runs(pte, {"forward": [tuple(t.numpy() for t in inputs)]}, data)


def _autoencoder(name: str) -> Path:
    from executorch.exir import to_edge

    torch.manual_seed(0)
    encoder, decoder = Encoder().eval(), Decoder().eval()
    generator = torch.Generator().manual_seed(1234)
    image, code = torch.rand(1, 3, 32, 32, generator=generator), torch.randn(1, 4, 8, 8, generator=generator)
    modules = {"forward": (Autoencoder(encoder, decoder), image), "encode": (encoder, image), "decode": (decoder, code)}
    with torch.no_grad():
        methods = {method: torch.export.export(module, (x,)) for method, (module, x) in modules.items()}
    METHODS_DIR.mkdir(parents=True, exist_ok=True)
    pte = METHODS_DIR / f"{name}.pte"
    pte.write_bytes(to_edge(methods).to_executorch().buffer)
    return save_runs(pte, {method: [(x.numpy(),)] for method, (_, x) in modules.items()})


# name -> (its folder, its export)
PROGRAMS: dict[str, tuple[Path, Callable[[], Path]]] = {
    "mobilenet_v2_ptd": (DATA_DIR, lambda: _separated("mobilenet_v2_ptd", "mobilenet_v2", delegated=False)),
    "transformer_xnn_ptd": (DATA_DIR, lambda: _separated("transformer_xnn_ptd", "transformer", delegated=True)),
    "autoencoder": (METHODS_DIR, lambda: _autoencoder("autoencoder")),
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", choices=sorted(PROGRAMS), help="export just these programs")
    args = parser.parse_args(argv)
    for name in args.only or sorted(PROGRAMS):
        pte = PROGRAMS[name][1]()
        print(f"{pte}  {pte.stat().st_size} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
