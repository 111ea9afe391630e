"""Export LLMs with ExecuTorch's own LLM exporter at tiny params, with their decode steps' inputs and
ExecuTorch's outputs for them.

Needs the optional `export` extra (torch + executorch). Run from the repo root:

    python -m models.export_llm [--out models/llm] [--only NAME ...]

The recipes are the ones ExecuTorch documents for phones, as `export_llama` flags:

- `llama_kv`: `-kv` (a KV cache in mutable buffers written with index_put; every projection an
  aten::linear.out);
- `llama_sdpa`: `-kv --use_sdpa_with_kv_cache` (llama::update_cache.out and llama::custom_sdpa.out);
- `llama_q8da4w`: `-kv --use_sdpa_with_kv_cache -qmode 8da4w --group_size 32 -X` (int8 dynamically quantized
  activations and int4 weights in groups of 32, the linears delegated to XNNPACK);
- `llama_sdpa_fp16`: `llama_sdpa` in half precision (`-d fp16`), its custom ops on Half;
- `llama_quant_kv`: `-kv --use_sdpa_with_kv_cache --quantize_kv_cache` (int8 caches with a scale and zero point
  per token and head, written with llama::update_cache.out; the query quantized per token with
  quantized_decomposed::choose_qparams_per_token_asymmetric.out and quantize_per_token.out; the attention
  llama::custom_quantized_sdpa.out);
- `llama_q8da4w_ptd`: `llama_q8da4w` with its weights in `<name>.ptd` (`export.foundation_weights_file`, which
  only the config-driven entry point `export_llm` takes; `export_llama` has no flag for it).

export_llama leaves the weights uninitialised without a checkpoint, so each program is fed one: the state
dict of the model class export_llama builds (llama_transformer.construct_transformer), seeded. Its programs
take (tokens int64 [1, seq], input_pos int64 [1]); each of the STEPS decode steps feeds one token at the next
position, on one loaded method, so the cache carries over. Written as the bot finds them (bot/feeds.py):
`<name>.pte`, `<name>.step<k>.input<i>.npy`, `<name>.step<k>.expected<i>.npy`, and `<name>.ptd`.

Two surprises of export_llama 1.5.1 shape the recipes: `-qmode 8da4w` quantizes nothing at dim 64 unless
`--group_size` divides it (the default group is 128: the program comes out identical to the float one); and
without `-X` its linears become aten::linear.out on int8 weights with no dequantize, which ExecuTorch's own
runtime refuses ("Tensors do not match: dtype={Float, Char, Float}"), so the portable form is not a program.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

LLM_DIR = Path(__file__).resolve().parent / "llm"
STEPS = 4
MAX_SEQ_LEN = 32
PARAMS = {
    "dim": 64,
    "n_layers": 2,
    "n_heads": 4,
    "n_kv_heads": 2,  # grouped-query attention: two query heads per kv head
    "vocab_size": 128,
    "multiple_of": 32,
    "norm_eps": 1e-5,
}
EXPORT_SECONDS = 600
EXPORT_LLAMA = "executorch.examples.models.llama.export_llama"  # argparse flags
EXPORT_LLM = "executorch.extension.llm.export.export_llm"  # the same exporter, driven by LlmConfig overrides


@dataclass(frozen=True)
class Recipe:
    entry: str  # EXPORT_LLAMA or EXPORT_LLM
    options: tuple[str, ...]  # beyond the checkpoint, params, lengths and output, in the entry's syntax
    weights_file: bool = False  # the weights go to <name>.ptd


_Q8DA4W = ("-kv", "--use_sdpa_with_kv_cache", "-qmode", "8da4w", "--group_size", "32", "-X")
RECIPES: dict[str, Recipe] = {
    "llama_kv": Recipe(EXPORT_LLAMA, ("-kv",)),
    "llama_sdpa": Recipe(EXPORT_LLAMA, ("-kv", "--use_sdpa_with_kv_cache")),
    "llama_q8da4w": Recipe(EXPORT_LLAMA, _Q8DA4W),
    "llama_sdpa_fp16": Recipe(EXPORT_LLAMA, ("-kv", "--use_sdpa_with_kv_cache", "-d", "fp16")),
    "llama_quant_kv": Recipe(EXPORT_LLAMA, ("-kv", "--use_sdpa_with_kv_cache", "--quantize_kv_cache")),
    "llama_q8da4w_ptd": Recipe(
        EXPORT_LLM,
        (
            "model.use_kv_cache=true",
            "model.use_sdpa_with_kv_cache=true",
            "quantization.qmode=8da4w",
            "quantization.group_size=32",
            "backend.xnnpack.enabled=true",
        ),
        weights_file=True,
    ),
}


def step_inputs(step: int) -> tuple[np.ndarray, np.ndarray]:
    """Decode step `step`: one token (any id below the vocab size) at position `step`."""
    return np.array([[(5 + 7 * step) % PARAMS["vocab_size"]]], dtype=np.int64), np.array([step], dtype=np.int64)


def write_checkpoint(out_dir: Path) -> tuple[Path, Path]:
    """The params JSON and a seeded state dict of export_llama's own model class."""
    import torch
    from executorch.examples.models.llama.llama_transformer import construct_transformer
    from executorch.examples.models.llama.model_args import ModelArgs

    params = out_dir / "params.json"
    params.write_text(json.dumps(PARAMS))
    torch.manual_seed(0)
    model = construct_transformer(ModelArgs(max_seq_len=MAX_SEQ_LEN, max_context_len=MAX_SEQ_LEN, **PARAMS))
    checkpoint = out_dir / "checkpoint.pth"
    torch.save(model.state_dict(), checkpoint)
    return params, checkpoint


def _command(recipe: Recipe, program: Path, params: Path, checkpoint: Path) -> list[str]:
    # The program's path in full: the exporter takes an output name ending in .pte as the path, whatever
    # the output directory, and writes the data file to the output directory.
    if recipe.entry == EXPORT_LLAMA:
        common = ["-c", str(checkpoint), "-p", str(params), "--max_seq_length", str(MAX_SEQ_LEN)]
        common += ["--max_context_length", str(MAX_SEQ_LEN), "-o", str(program.parent), "--output_name", str(program)]
    else:
        common = [f"base.checkpoint={checkpoint}", f"base.params={params}", f"export.max_seq_length={MAX_SEQ_LEN}"]
        common += [f"export.max_context_length={MAX_SEQ_LEN}", f"export.output_dir={program.parent}"]
        common += [f"export.output_name={program}"]
        if recipe.weights_file:
            common.append(f"export.foundation_weights_file={program.with_suffix('.ptd').name}")
    return [sys.executable, "-m", recipe.entry, *common, *recipe.options]


def export_program(name: str, out_dir: Path, params: Path, checkpoint: Path) -> tuple[Path, Path | None]:
    """Runs ExecuTorch's exporter with recipe `name`: the program, and its data file if the recipe makes one."""
    recipe = RECIPES[name]
    out_dir.mkdir(parents=True, exist_ok=True)
    program = out_dir / f"{name}.pte"
    data = program.with_suffix(".ptd") if recipe.weights_file else None
    command = _command(recipe, program, params, checkpoint)
    # cwd: export_llm writes its hydra logs to ./outputs, beside the checkpoint in a temporary directory
    proc = subprocess.run(command, capture_output=True, text=True, timeout=EXPORT_SECONDS, cwd=checkpoint.parent)
    if proc.returncode != 0 or not program.is_file() or (data is not None and not data.is_file()):
        raise RuntimeError(f"{recipe.entry} {name} failed:\n{proc.stderr[-3000:]}")
    return program, data


def export(names: tuple[str, ...], out_dir: Path) -> list[Path]:
    """Every program of `names` in out_dir, with its steps' inputs and ExecuTorch's outputs beside it."""
    from models.export import save_runs

    with tempfile.TemporaryDirectory() as work:
        params, checkpoint = write_checkpoint(Path(work))
        programs = []
        for name in names:
            program, data = export_program(name, out_dir, params, checkpoint)
            runs = {"forward": [step_inputs(k) for k in range(STEPS)]}
            programs.append(save_runs(program, runs, data))
    return programs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=LLM_DIR)
    parser.add_argument("--only", nargs="*", choices=sorted(RECIPES), help="export just these programs")
    args = parser.parse_args(argv)
    for pte in export(tuple(args.only or sorted(RECIPES)), args.out):
        data = pte.with_suffix(".ptd")
        extra = f" + {data.name} {data.stat().st_size} bytes" if data.is_file() else ""
        print(f"{pte}  {pte.stat().st_size} bytes{extra}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
