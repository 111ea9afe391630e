"""Export PT2E-quantized programs without a delegate, with inputs and references.

Needs the optional `export` extra (torch + executorch). Run from the repo root:

    python -m models.export_quantized [--out models/quantized] [--only NAME ...]

Each program is a model of the portable zoo (`models.export.build`) quantized as users do it for a
portable runtime: `prepare_pt2e` with `XNNPACKQuantizer`, calibration on a few seeded inputs,
`convert_pt2e` (`models.export_delegated.quantize`), then plain `to_edge(...).to_executorch()`: no
partitioner, so the program holds ExecuTorch's `quantized_decomposed::*` quantize / dequantize ops
around portable float ops, and runs on ExecuTorch's quantized kernel library (kernels/quantized).

- `_q8_pt`: static int8, per-tensor weights (`quantize_per_tensor` / `dequantize_per_tensor`);
- `_q8`: static int8, per-channel weights (`dequantize_per_channel` too).

For every program this writes `<name>.pte`, `<name>.input<i>.npy` and `<name>.expected<i>.npy`,
the outputs of ExecuTorch's runtime with `executorch.kernels.quantized` loaded on the same `.pte`.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from models.export import build, save_program, to_pte
from models.export_delegated import quantize

QUANTIZED_DIR = Path(__file__).resolve().parent / "quantized"

# program name: (zoo model, recipe of models.export_delegated.quantize)
PROGRAMS: dict[str, tuple[str, str]] = {
    "mobilenet_v2_q8_pt": ("mobilenet_v2", "qs8_pt"),
    "squeezenet_q8": ("squeezenet", "qs8"),
    "transformer_q8": ("transformer", "qs8"),
}


def export(name: str, out_dir: Path) -> Path:
    import executorch.kernels.quantized  # noqa: F401  (its kernels, in the reference runtime)

    zoo_name, recipe = PROGRAMS[name]
    model, inputs = build(zoo_name)
    program = to_pte(quantize(zoo_name, model, inputs, recipe), inputs)
    for stale in out_dir.glob(f"{name}.*.npy"):
        stale.unlink()
    return save_program(out_dir, name, program, inputs)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=QUANTIZED_DIR)
    parser.add_argument("--only", nargs="*", choices=sorted(PROGRAMS), help="export just these programs")
    args = parser.parse_args(argv)
    for name in args.only or sorted(PROGRAMS):
        pte = export(name, args.out)
        print(f"{pte}  {pte.stat().st_size} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
