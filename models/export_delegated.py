"""Export a zoo of XNNPACK-delegated programs, with inputs, references and a census.

Needs the optional `export` extra (torch + executorch). Run from the repo root:

    python -m models.export_delegated [--out models/delegated] [--only NAME ...]

Each program is a model of the portable zoo (`models.export.build`) lowered
with ExecuTorch's own exporters, the way users ship them:

- `_xnn_f32`: `to_edge_transform_and_lower(..., partitioner=[XnnpackPartitioner()])`;
- `_xnn_qs8`: PT2E static int8 with `XNNPACKQuantizer` (per-channel weights),
  calibrated on a few seeded inputs, then lowered the same way;
- `_xnn_qs8_pt`: the same with per-tensor weights;
- `_xnn_qd8`: dynamic quantization (int8 activations quantized at run time,
  per-channel int8 weights) of a linear-heavy model.

A dynamic zoo model (`models.export.DYNAMIC`) is exported with its dims
dynamic (ExecuTorch writes their upper bounds into the XNNPACK graph), and its
references run at the smaller shape its zoo example runs at.

`to_executorch()` keeps ExecutorchBackendConfig's defaults (delegate payloads
in segments). For every program this writes `<name>.pte`, `<name>.input<i>.npy`
and `<name>.expected<i>.npy` (ExecuTorch's runtime with its XNNPACK backend on
the same `.pte`, as `models.export.reference_outputs`), then `CENSUS.md`: the
XNNPACK nodes inside each delegate with the datatypes of their operands, and the
operators left outside, read from the files themselves.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import torch
from torch import nn

from bot.selection import pte as pte_reader
from bot.selection.pte import FlatReader
from bot.selection.xnnpack import BACKEND_ID, XnnGraph, read_xnn_payload
from models.export import DYNAMIC, all_models, build, run_inputs, save_program, to_delegated_pte

DELEGATED_DIR = Path(__file__).resolve().parent / "delegated"
CALIBRATION_SEEDS = (101, 102, 103, 104)

# program name: (zoo model, recipe)
PROGRAMS: dict[str, tuple[str, str]] = {
    "mobilenet_v2_xnn_f32": ("mobilenet_v2", "f32"),
    "mobilenet_v2_xnn_qs8": ("mobilenet_v2", "qs8"),
    "resnet_xnn_f32": ("resnet", "f32"),
    "resnet_xnn_qs8": ("resnet", "qs8"),
    "squeezenet_xnn_f32": ("squeezenet", "f32"),
    "squeezenet_xnn_qs8": ("squeezenet", "qs8"),
    "tv_mobilenet_v3_xnn_f32": ("tv_mobilenet_v3", "f32"),
    "tv_mobilenet_v3_xnn_qs8_pt": ("tv_mobilenet_v3", "qs8_pt"),
    "lstm_tagger_xnn_f32": ("lstm_tagger", "f32"),
    "lstm_tagger_xnn_qs8": ("lstm_tagger", "qs8"),
    "transformer_xnn_f32": ("transformer", "f32"),
    "transformer_xnn_qs8": ("transformer", "qs8"),
    "transformer_xnn_qd8": ("transformer", "qd8"),
    "mha_block_xnn_qd8": ("mha_block", "qd8"),
    "transformer_xnn_8da4w": ("transformer", "8da4w"),
    "cnn_dynamic_batch_xnn_f32": ("cnn_dynamic_batch", "f32"),
}

RECIPES = {
    "f32": "fp32, XnnpackPartitioner",
    "qs8": "PT2E static int8, per-channel weights",
    "qs8_pt": "PT2E static int8, per-tensor weights",
    "qd8": "PT2E dynamic int8 activations, per-channel weights",
    "8da4w": "torchao 8da4w (export_llama's -qmode 8da4w): dynamic int8 activations, int4 weights per group of 32",
}
GROUP_SIZE = 32


# --- export -----------------------------------------------------------------


def calibration_inputs(zoo_name: str) -> list[tuple[torch.Tensor, ...]]:
    """A few seeded inputs of the model's own kind (images, tokens, ...) for the observers."""
    make_inputs = all_models()[zoo_name][1]
    return [make_inputs(torch.Generator().manual_seed(seed)) for seed in CALIBRATION_SEEDS]


def quantize(zoo_name: str, model: nn.Module, inputs: tuple[torch.Tensor, ...], recipe: str) -> nn.Module:
    """The model through PT2E with XNNPACKQuantizer: prepare, calibrate, convert."""
    from executorch.backends.xnnpack.quantizer.xnnpack_quantizer import (
        XNNPACKQuantizer,
        get_symmetric_quantization_config,
    )
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e

    config = get_symmetric_quantization_config(is_per_channel=recipe != "qs8_pt", is_dynamic=recipe == "qd8")
    quantizer = XNNPACKQuantizer().set_global(config)
    with torch.no_grad():
        prepared = prepare_pt2e(torch.export.export(model, inputs).module(), quantizer)
        for sample in calibration_inputs(zoo_name):
            prepared(*sample)
        return convert_pt2e(prepared)


def quantize_8da4w(model: nn.Module) -> nn.Module:
    """The linears through torchao's Int8DynamicActivationIntxWeightConfig with int4 weights per group, as
    ExecuTorch's export_llama quantizes for -qmode 8da4w (those whose width the group divides)."""
    from torchao.quantization import Int8DynamicActivationIntxWeightConfig, quantize_
    from torchao.quantization.granularity import PerGroup
    from torchao.utils import unwrap_tensor_subclass

    def linear(module: nn.Module, _fqn: str) -> bool:
        # nn.MultiheadAttention reads its out_proj (a Linear subclass) weight directly: left in fp32.
        return type(module) is nn.Linear and module.weight.shape[1] % GROUP_SIZE == 0

    config = Int8DynamicActivationIntxWeightConfig(weight_dtype=torch.int4, weight_granularity=PerGroup(GROUP_SIZE))
    quantize_(model, config, filter_fn=linear)
    return unwrap_tensor_subclass(model)


def program_bytes(name: str) -> tuple[bytes, tuple[torch.Tensor, ...]]:
    """The program's .pte bytes and the inputs its references run at: a dynamic model's (its dims
    exported dynamic, XNNPACK's graph at their bounds) run at a shape other than the traced one."""
    zoo_name, recipe = PROGRAMS[name]
    model, inputs = build(zoo_name)
    if recipe == "8da4w":
        model = quantize_8da4w(model)
    elif recipe != "f32":
        model = quantize(zoo_name, model, inputs, recipe)
    if zoo_name in DYNAMIC:
        return to_delegated_pte(model, inputs, DYNAMIC[zoo_name][0]()), run_inputs(zoo_name)
    return to_delegated_pte(model, inputs), inputs


def export(name: str, out_dir: Path) -> Path:
    data, inputs = program_bytes(name)
    for stale in out_dir.glob(f"{name}.*.npy"):
        stale.unlink()
    return save_program(out_dir, name, data, inputs)


@dataclass(frozen=True)
class ProgramCensus:
    name: str
    size: int
    delegates: tuple[tuple[str, XnnGraph | None], ...]  # (backend id, graph when XNNPACK)
    locations: tuple[str, ...]  # where the file keeps each delegate's payload: INLINE or SEGMENT
    named_data: int  # entries of the program's named data (XNNPACK puts its constants there)
    outside: dict[str, set[str]]  # operator: dtypes of the tensors its calls take


def delegate_payloads(data: bytes) -> list[tuple[str, bytes]]:
    """(backend id, processed payload) of each delegate of each method, by ExecuTorch's deserializer."""
    from executorch.exir._serialize._program import deserialize_pte_binary

    program = deserialize_pte_binary(data).program  # payloads come back inline, wherever the file keeps them
    return [
        (delegate.id, bytes(program.backend_delegate_data[delegate.processed.index].data))
        for plan in program.execution_plan
        for delegate in plan.delegates
    ]


def payload_locations(data: bytes) -> tuple[str, ...]:
    """Each delegate's payload location as the file says (program.fbs: Program.execution_plan,
    ExecutionPlan.delegates, BackendDelegate.processed, BackendDelegateDataReference.location)."""
    r = FlatReader(data)
    found = []
    for plan in r.tables(r.root(), 1):
        for delegate in r.tables(plan, 7):
            processed = r.table(delegate, 1)
            found.append(("INLINE", "SEGMENT")[int(r.scalar(processed, 0, "b"))] if processed else "INLINE")
    return tuple(found)


def census_of(pte: Path) -> ProgramCensus:
    data = pte.read_bytes()
    delegates = tuple(
        (backend, read_xnn_payload(payload) if backend == BACKEND_ID else None)
        for backend, payload in delegate_payloads(data)
    )
    r = FlatReader(data)
    named_data = r.vector(r.root(), 7, 4)[1]  # Program.named_data
    outside = pte_reader.parse(data).plan("forward").operator_dtypes()
    return ProgramCensus(pte.stem, len(data), delegates, payload_locations(data), named_data, outside)


# --- the census ---------------------------------------------------------------


def _cell(text: str) -> str:
    return text.replace("|", "\\|") if text else "-"


def _table(header: tuple[str, ...], rows: list[tuple[object, ...]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(_cell(str(cell)) for cell in row) + " |" for row in rows]
    return lines


def census_markdown(programs: list[ProgramCensus]) -> str:
    lines = [
        "# XNNPACK-delegated zoo: census",
        "",
        "Generated by `python -m models.export_delegated` from the `.pte` files beside it; do not edit.",
        "",
        "- Each delegate's payload is read as XNNPACK's flatbuffer (schema.fbs, identifier XN01). Node kinds",
        "  are the XNodeUnion member names; datatypes the XNNDatatype names without `xnn_datatype_` (qint8:",
        "  per-tensor int8; qcint8/qcint32: per-channel; qdint8: int8 quantized at run time, per row).",
        "- `(const)`: the operand is a constant of the delegate (constant_buffer_idx set), not a tensor",
        "  computed at run time.",
        "- Output min/max: the node's OutputMinMax (a fused clamp, or a clamp node's own bounds). Flags: the",
        "  node's raw flags (0x40: XNN_FLAG_KEEP_DIMS; 0x1 on a FullyConnected: XNN_FLAG_TRANSPOSE_WEIGHTS).",
        "- XNNPACK constants: the ConstantDataOffset entries that name a key of the program's named data",
        "  (weights, biases and per-channel scales live there) / that point into the payload's own constant data.",
        "- Operators outside the delegates: the program's KernelCalls, with the dtypes of the tensors they take.",
        "",
        "## Programs",
        "",
    ]
    rows: list[tuple[object, ...]] = []
    for program in programs:
        zoo_name, recipe = PROGRAMS.get(program.name, ("?", "?"))
        graphs = [graph for _, graph in program.delegates if graph is not None]
        rows.append(
            (
                f"`{program.name}`",
                zoo_name,
                RECIPES.get(recipe, recipe),
                f"{program.size:,}",
                len(program.delegates),
                ", ".join(sorted(set(program.locations))),
                sum(len(graph.nodes) for graph in graphs),
                f"{sum(g.named_constants for g in graphs)} named / {sum(g.inline_constants for g in graphs)} inline",
                program.named_data,
                len(program.outside),
            )
        )
    header = ("program", "zoo model", "recipe", "bytes", "delegates", "payloads in", "XNNPACK nodes")
    header += ("XNNPACK constants", "named data entries", "ops outside")
    lines += _table(header, rows)

    totals: Counter[tuple[str, ...]] = Counter()
    seen_in: dict[tuple[str, ...], set[str]] = {}
    for program in programs:
        for _, graph in program.delegates:
            for node in graph.nodes if graph is not None else ():
                signature = graph.signature(node)
                totals[signature] += 1
                seen_in.setdefault(signature, set()).add(program.name)
    lines += ["", "## XNNPACK node kinds x datatypes, over all programs", ""]
    lines += _table(
        ("node kind", "inputs", "filter", "bias", "output", "output min/max, flags", "nodes", "programs"),
        [(*signature, count, len(seen_in[signature])) for signature, count in sorted(totals.items())],
    )

    values: Counter[tuple[str, str, str]] = Counter()
    boundary: Counter[tuple[str, str]] = Counter()
    boundary_in: dict[tuple[str, str], set[str]] = {}
    for program in programs:
        for _, graph in program.delegates:
            if graph is None:
                continue
            for value in graph.values.values():
                values[(value.datatype, value.quant, "yes" if value.constant else "no")] += 1
            for side, ids in (("input", graph.input_ids), ("output", graph.output_ids)):
                for value_id in ids:
                    key = (side, graph.values[value_id].datatype if value_id in graph.values else f"?{value_id}")
                    boundary[key] += 1
                    boundary_in.setdefault(key, set()).add(program.name)
    lines += ["", "## XNNPACK values, over all programs", ""]
    lines += _table(
        ("datatype", "quantization parameters", "constant", "values"),
        [(*key, count) for key, count in sorted(values.items())],
    )
    lines += ["", "## Delegate inputs and outputs (what crosses the delegate boundary), over all programs", ""]
    lines += _table(
        ("side", "datatype", "tensors", "programs"),
        [(*key, count, len(boundary_in[key])) for key, count in sorted(boundary.items())],
    )

    outside_all: dict[str, set[str]] = {}
    outside_in: Counter[str] = Counter()
    for program in programs:
        for op, dtypes in program.outside.items():
            outside_all.setdefault(op, set()).update(dtypes)
            outside_in[op] += 1
    lines += ["", "## Operators outside the delegates, over all programs", ""]
    lines += _table(
        ("operator", "dtypes", "programs"),
        [(f"`{op}`", ", ".join(sorted(outside_all[op])), outside_in[op]) for op in sorted(outside_all)],
    )

    lines += ["", "## Per program"]
    for program in programs:
        lines += ["", f"### `{program.name}`", ""]
        for index, (backend, graph) in enumerate(program.delegates):
            if graph is None:
                lines += [f"Delegate {index}: backend `{backend}` (not read).", ""]
                continue
            ios = ", ".join(
                f"{graph.values[i].datatype}{list(graph.values[i].dims)}" if i in graph.values else f"?{i}"
                for i in graph.input_ids
            )
            outs = ", ".join(
                f"{graph.values[i].datatype}{list(graph.values[i].dims)}" if i in graph.values else f"?{i}"
                for i in graph.output_ids
            )
            lines += [
                f"Delegate {index}: backend `{backend}`, payload in a {program.locations[index]}, "
                f"{len(graph.nodes)} nodes, {len(graph.values)} values, constants {graph.named_constants} by "
                f"named key / {graph.inline_constants} inline ({graph.constant_bytes} bytes in the payload); "
                f"inputs {ios or 'none'}; outputs {outs or 'none'}.",
                "",
            ]
            counts = Counter(graph.signature(node) for node in graph.nodes)
            lines += _table(
                ("node kind", "inputs", "filter", "bias", "output", "output min/max, flags", "nodes"),
                [(*signature, count) for signature, count in sorted(counts.items())],
            )
            lines.append("")
        if program.outside:
            lines += [
                "Outside: " + "; ".join(f"`{op}` ({', '.join(sorted(d))})" for op, d in sorted(program.outside.items()))
            ]
        else:
            lines += ["Outside: nothing (the whole program is delegated)."]
    return "\n".join(lines) + "\n"


def write_census(out_dir: Path) -> Path:
    ptes = sorted(out_dir.glob("*.pte"))
    census = out_dir / "CENSUS.md"
    census.write_text(census_markdown([census_of(pte) for pte in ptes]))
    return census


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DELEGATED_DIR)
    parser.add_argument("--only", nargs="*", choices=sorted(PROGRAMS), help="export just these programs")
    parser.add_argument("--census-only", action="store_true", help="rewrite CENSUS.md from the files as they are")
    args = parser.parse_args(argv)
    failed: list[str] = []
    if not args.census_only:
        for name in args.only or PROGRAMS:
            try:
                pte = export(name, args.out)
            except Exception as exc:  # report and go on: one model's exporter failure is not the zoo's
                failed.append(name)
                print(f"{name}: export failed: {type(exc).__name__}: {exc}", file=sys.stderr)
                continue
            print(f"{pte}  {pte.stat().st_size} bytes")
    print(write_census(args.out))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
