"""Selective-build figures: stripped runtime sizes (all ops, per model with and
without dtype selection) and op-extraction time against ExecuTorch's gen_oplist."""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from pathlib import Path

from bot import build, oplist, pte, trace
from bot.size import stripped_size

ZOO_DIR = build.REPO_ROOT / "models" / "zoo"
SIZE_BUILD = "MinSizeRel"
EXTRACTION_REPEAT = 5


def _runtime_size(flavour: build.Flavour, work: Path) -> int:
    build_dir = build.build(flavour, targets=("runtime_size_probe",))
    return stripped_size(build_dir / "runtime_size_probe", work)


def sizes(work: Path) -> list[str]:
    core = stripped_size(
        build.build(build.Flavour("core-size", build_type=SIZE_BUILD), ("core_size_probe",)) / "core_size_probe", work
    )
    all_ops = _runtime_size(build.Flavour("all-ops-size", build_type=SIZE_BUILD), work)
    tracer = trace.tracer_runner()
    n_library = len(trace.declared_calls(tracer))
    rows = []
    for model in sorted(ZOO_DIR.glob("*.pte")):
        inputs = sorted(ZOO_DIR.glob(f"{model.stem}.input*.npy"))
        yaml_path = work / f"{model.stem}.yaml"
        oplist.dump(trace.trace_model(tracer, model, inputs, model.stem), yaml_path)
        n_ops = len(oplist.load(yaml_path).operators)
        measured = {}
        for dtype_selective in (False, True):
            flavour = build.selective_flavour(yaml_path, dtype_selective)
            flavour = build.Flavour(flavour.name, flavour.options, build_type=SIZE_BUILD)
            measured[dtype_selective] = _runtime_size(flavour, work)
        saved = measured[False] - measured[True]
        kernels = (measured[True] - core) / (all_ops - core)
        rows.append(
            f"| {model.stem} | {n_ops} | {measured[False]} | {measured[False] / all_ops:.1%} | {measured[True]} | "
            f"{measured[True] / all_ops:.1%} | {saved} ({saved / measured[False]:.1%}) | {kernels:.1%} |"
        )
    return [
        "## Selective runtime sizes",
        "",
        f"Stripped `runtime_size_probe` (loader + executor + registered kernels; `{SIZE_BUILD}`, gc-sections),",
        "built from each model's traced yaml (`python -m bot oplist --trace`), with and without dtype selection.",
        "",
        "| runtime | stripped bytes |",
        "|---|---:|",
        f"| core (no kernels) | {core} |",
        f"| all ops | {all_ops} |",
        "",
        "| model | ops | selective | % of all-ops | + dtype selection | % of all-ops | dtype selection saves |"
        " kernel bytes, % of all-ops kernels |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
        *rows,
        "",
        "The last column leaves out the fixed part every runtime carries (the core and libc glue, the",
        "`core` row) and compares kernel bytes alone, with dtype selection.",
        "",
        "Goal: a selective runtime at most 5% of the all-ops runtime. The all-ops library here holds",
        f"{n_library} ops in every dtype ExecuTorch's portable kernels take; the kernel bytes a model keeps",
        "(last column) are within that goal or near it, while the fixed part (`core` row) keeps whole",
        "selective runtimes above it.",
        "",
    ]


def _time_ours(model: Path) -> float:
    start = time.perf_counter()
    oplist.from_program(pte.load(model), str(model))
    return time.perf_counter() - start


def _time_cli(cmd: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, check=True, capture_output=True)
    return time.perf_counter() - start


def extraction(work: Path) -> list[str]:
    rows = []
    for model in sorted(ZOO_DIR.glob("*.pte")):
        ours_cli = statistics.median(
            _time_cli([sys.executable, "-m", "bot", "oplist", str(model), "-o", str(work / "ours.yaml")])
            for _ in range(EXTRACTION_REPEAT)
        )
        theirs_cli = statistics.median(
            _time_cli(
                [
                    sys.executable,
                    "-m",
                    "executorch.codegen.tools.gen_oplist",
                    f"--model_file_path={model}",
                    f"--output_path={work / 'theirs.yaml'}",
                ]
            )
            for _ in range(EXTRACTION_REPEAT)
        )
        ours_fn = statistics.median(_time_ours(model) for _ in range(EXTRACTION_REPEAT))
        rows.append(
            f"| {model.stem} | {ours_cli * 1000:.0f} | {theirs_cli * 1000:.0f} | {theirs_cli / ours_cli:.1f}x | "
            f"{ours_fn * 1000:.1f} |"
        )
    return [
        "## Op extraction time",
        "",
        f"Median of {EXTRACTION_REPEAT} runs per model, as whole commands (process start included): ours is",
        "`python -m bot oplist M.pte -o out.yaml` (pure Python, no torch); theirs is",
        "`python -m executorch.codegen.tools.gen_oplist --model_file_path=M.pte`. The last column is our",
        "extraction alone, in process (parse + yaml model, no interpreter start).",
        "",
        "| model | ours (ms) | gen_oplist (ms) | speed-up | ours in-process (ms) |",
        "|---|---:|---:|---:|---:|",
        *rows,
        "",
    ]


def section(work: Path) -> list[str]:
    work.mkdir(parents=True, exist_ok=True)
    return sizes(work) + extraction(work)
