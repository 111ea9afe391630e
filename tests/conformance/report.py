"""Writes OPS.md: the op x dtype matrices of ExecuTorch's portable and quantized libraries against our runtime.

    python -m tests.conformance.report [--out OPS.md] [--runner PATH]

Rows are the 209 entries of ExecuTorch's portable `functions.yaml` (shipped in
the executorch wheel), then the 19 of its quantized library's `quantized.yaml`; a
cell sums up the conformance fixtures of that op and dtype, run now on the all-ops
runtime (built if needed): pass / not supported by ExecuTorch either / fails (with
the reason) / no kernel yet / no case yet.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from collections import Counter, defaultdict
from pathlib import Path

from tests.conformance import check
from tests.conformance.layout import COMPLEX_DTYPES, DTYPE_NAMES, DTYPES, REPO_ROOT, Fixture, fixtures

OUT = REPO_ROOT / "OPS.md"
REASON_CHARS = 160
# The ops whose ExecuTorch portable kernel takes complex tensors (a ComplexH switch in
# kernels/portable/cpu/op_<name>.cpp); the complex columns of every other op read "—".
COMPLEX_OPS = frozenset(
    f"aten::{name}"
    for name in ("_conj_physical.out", "abs.out", "add.out", "bmm.out", "cat.out", "div.out", "mul.out",
                 "sum.IntList_out", "view_as_real_copy.out")
) | {"dim_order_ops::_to_dim_order_copy.out"}  # fmt: skip
CELL_REASON_CHARS = 90


def executorch_yaml(relative: str = "kernels/portable/functions.yaml") -> Path:
    """A kernel library's yaml in the installed executorch wheel (its portable or quantized library)."""
    spec = importlib.util.find_spec("executorch")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit(f"error: the executorch package is not installed (its {relative} lists the ops)")
    for root in spec.submodule_search_locations:
        path = Path(root) / relative
        if path.is_file():
            return path
    raise SystemExit(f"error: executorch/{relative} not found in the executorch package")


QUANTIZED_YAML = "kernels/quantized/quantized.yaml"
# The quantized library's columns: its ops take no complex or bool tensors.
QUANTIZED_DTYPES = tuple(d for d in DTYPES if d not in COMPLEX_DTYPES and d != "b")


def yaml_ops(path: Path) -> list[str]:
    """Op names of a functions.yaml, namespaced as programs name them (aten::add.out)."""
    import yaml

    ops = []
    for entry in yaml.safe_load(path.read_text()) or []:
        if "op" in entry:
            ops.append(f"aten::{entry['op']}")
        elif "func" in entry:
            name = entry["func"].split("(", 1)[0].strip()
            ops.append(name if "::" in name else f"aten::{name}")
    return ops


def cell_text(text: str) -> str:
    """One table cell: no line breaks, pipes escaped, capped."""
    return text.replace("\n", " ").replace("|", "\\|")[:REASON_CHARS]


def _cell(results: list[tuple[Fixture, check.Result]]) -> tuple[str, str]:
    """(cell text, status class) for one op and dtype."""
    no_program = [r for _, r in results if r.status == check.NO_PROGRAM]
    if len(no_program) == len(results):
        return cell_text(f"no program: {no_program[0].message}")[:CELL_REASON_CHARS], "no program"
    results = [(f, r) for f, r in results if r.status != check.NO_PROGRAM]
    statuses = Counter(r.status for _, r in results)
    n = len(results)
    failing = [(f, r) for f, r in results if not r.passed]
    if failing:
        return f"**fail** {len(failing)}/{n}", "fail"
    if statuses[check.BOTH_REFUSE] == n:
        return "ET n/a", "both refuse"
    notes = [f"{label} {statuses[status]}" for status, label in ((check.OURS_ONLY, "ours only"), (check.ATEN, "ATen"))]
    notes = [note for note in notes if not note.endswith(" 0")]
    return f"pass {n}" + (f" ({', '.join(notes)})" if notes else ""), "pass"


def _rows(
    ops: list[str],
    kernels: set[str],
    by_cell: dict[tuple[str, str], list[tuple[Fixture, check.Result]]],
    dtypes: tuple[str, ...],
    cell_counts: Counter[str],
    failures: list[str],
    no_case: str = "no case",
) -> list[str]:
    """The table rows of `ops` over `dtypes`, counting cells into `cell_counts` and failing cases into `failures`;
    a cell without a case reads `no_case`."""
    rows = []
    for op in sorted(ops):
        cells = []
        for dtype in dtypes:
            entries = by_cell.get((op, dtype))
            if dtype in COMPLEX_DTYPES and op not in COMPLEX_OPS and not entries:
                cells.append("—")  # no complex dtype for this op in ExecuTorch: not a cell
                continue
            if op not in kernels:
                text, kind = "no kernel", "no kernel"
            elif not entries:
                text, kind = no_case, "no case"
            else:
                text, kind = _cell(entries)
                for fixture, result in entries:
                    if not result.passed:
                        failures.append(f"| `{fixture.id}` | {result.status} | {cell_text(result.message)} |")
            cell_counts[kind] += 1
            cells.append(text)
        rows.append(f"| `{op}` | " + " | ".join(cells) + " |")
    return rows


def render(
    ops: list[str],
    kernels: set[str],
    found: list[Fixture],
    results: dict[str, check.Result],
    quantized_ops: tuple[str, ...] = (),
) -> str:
    by_cell: dict[tuple[str, str], list[tuple[Fixture, check.Result]]] = defaultdict(list)
    for fixture in found:
        by_cell[(fixture.op, fixture.dtype)].append((fixture, results[fixture.id]))
    op_set = set(ops)
    have_kernel = [op for op in ops if op in kernels]
    with_cases = [op for op in ops if any((op, d) in by_cell for d in DTYPES)]
    status_counts = Counter(r.status for r in results.values())

    cell_counts: Counter[str] = Counter()
    failures: list[str] = []
    rows = _rows(ops, kernels, by_cell, DTYPES, cell_counts, failures)
    quantized_counts: Counter[str] = Counter()
    # A quantized op takes one or two dtypes; the other columns are not cells it could have.
    quantized_rows = _rows(quantized_ops, kernels, by_cell, QUANTIZED_DTYPES, quantized_counts, failures, "—")
    quantized_with_cases = [op for op in quantized_ops if any((op, d) in by_cell for d in QUANTIZED_DTYPES)]

    extra = sorted({f.op for f in found} - op_set - set(quantized_ops))
    lines = [
        "# Operator conformance",
        "",
        "Generated by `python -m tests.conformance.report` (do not edit): ExecuTorch's portable",
        "library (`executorch/kernels/portable/functions.yaml` of the installed executorch wheel) against",
        "our runtime, op by op and dtype by dtype. Each case is a single-op program exported with the real",
        "`executorch` package (`tests/conformance/cases/`, fixtures in `tests/conformance/fixtures/`); its",
        "reference outputs come from ExecuTorch's own runtime. Judging rules and tolerances:",
        "`tests/conformance/check.py`.",
        "",
        f"- Ops with a kernel: **{len(have_kernel)}/{len(ops)}**",
        f"- Ops with conformance cases: {len(with_cases)}/{len(ops)}",
        f"- Fixtures: {len(found)}: {status_counts[check.PASS]} pass, "
        f"{status_counts[check.BOTH_REFUSE]} refused by both runtimes, "
        f"{status_counts[check.OURS_ONLY]} computed by ours only (ExecuTorch refuses), "
        f"{status_counts[check.ATEN]} match ATen where ExecuTorch's runtime differs from it, "
        f"{status_counts[check.FAIL]} fail, {status_counts[check.MISSING]} missing operator, "
        f"{status_counts[check.NO_PROGRAM]} no program (torch.export / to_edge cannot express them)",
        f"- Cells (op x dtype): {cell_counts['pass']} pass, {cell_counts['both refuse']} not supported by "
        f"ExecuTorch either, {cell_counts['no program']} no program can hold the op in that dtype, "
        f"{cell_counts['fail']} fail, {cell_counts['no kernel']} no kernel yet, "
        f"{cell_counts['no case']} no case yet",
        "",
        "Legend: `pass N` all N cases match ExecuTorch (`ours only k`: ExecuTorch's runtime refuses k",
        "and ours computes them; `ATen k`: k match eager PyTorch where ExecuTorch's runtime differs from",
        "it, listed below); `ET n/a` ExecuTorch's runtime refuses this dtype and so does ours;",
        "`**fail** k/N` k of N cases fail (reasons below); `no kernel` we have no kernel for the op yet;",
        "`no program: <reason>` torch.export, to_edge or to_executorch cannot express the op in this dtype",
        "(e.g. `elu` of an integer tensor), or ExecuTorch's export lowers it into other ops, so no ExecuTorch",
        "program holds it (reasons in full below); `no case` we have the kernel but no case in this dtype yet.",
        "Cells without a hand-written case are decided by the dtype sweep (`cases/sweep.py`, cases named",
        "`<dtype>_sweep`): an existing case of the op converted to that dtype.",
        "",
        "The complex columns (c32, c64, c128) apply to the few ops whose ExecuTorch kernel takes complex",
        "tensors; `—` elsewhere (not counted as cells). complex32 is stored as float16 (re, im) pairs.",
        "",
        "| op | " + " | ".join(f"{d} ({DTYPE_NAMES[d]})" for d in DTYPES) + " |",
        "|---|" + "---|" * len(DTYPES),
        *rows,
        "",
        "## Notes",
        "",
        "- Dim orders: `cases/dim_order.py` runs channels-last programs (elementwise ops, copies, convolution,",
        "  pooling, upsampling, cat); a kernel whose layout policy does not take a program's dim order is",
        "  refused at load in one line. Dynamic shapes: `cases/dynamic.py` exports with `torch.export.Dim`",
        "  at each bound and runs both runtimes at a smaller shape; data-dependent outputs (`masked_select`,",
        "  `nonzero`) are exported with ExecuTorch's ConstraintBasedSymShapeEvalPass.",
        "- The reference is the runtime of the executorch wheel (`executorch.runtime`), which registers",
        "  ExecuTorch's optimized CPU kernels for some ops in place of the portable ones; the dtypes",
        "  either accepts are what ExecuTorch's runtime accepts.",
        "- When ExecuTorch's edge dialect rejects a dtype for an op, the case is lowered without that check",
        "  so that ExecuTorch's runtime decides (`edge_dtype_check` in the fixture's case.json).",
        "- Mixed-dtype `add`/`sub`/`mul`/`div` programs hold a `_to_dim_order_copy` cast: ExecuTorch's",
        "  `to_edge` inserts it (RemoveMixedTypeOperators), so those kernels only ever see one dtype.",
        "- BFloat16 tensors are stored in the fixtures as float32 holding exact bfloat16 values.",
    ]
    if quantized_ops:
        have = [op for op in quantized_ops if op in kernels]
        lines += [
            "",
            "## ExecuTorch's quantized library",
            "",
            "The `quantized_decomposed` ops of ExecuTorch's quantized kernel library",
            "(`kernels/quantized/quantized.yaml` of the executorch wheel; ours: `kernels/quantized/`), which PT2E",
            "programs without a delegate call for their quantize / dequantize steps. Cases:",
            "`tests/conformance/cases/quantized.py`, referenced by ExecuTorch's runtime with",
            "`executorch.kernels.quantized` loaded; a case's column is its first dtype (the float input of a quantize,",
            "the integer input of a dequantize, the output of an embedding lookup), its name says the rest.",
            "Integer outputs are identical; float ones within the tolerances above.",
            "",
            f"- Ops with a kernel: **{len(have)}/{len(quantized_ops)}**; with conformance cases: "
            f"{len(quantized_with_cases)}/{len(quantized_ops)}",
            f"- Cells (op x dtype): {quantized_counts['pass']} pass, {quantized_counts['both refuse']} not supported "
            f"by ExecuTorch either, {quantized_counts['no program']} no program can hold the op in that dtype, "
            f"{quantized_counts['fail']} fail, {quantized_counts['no kernel']} no kernel yet, "
            f"{quantized_counts['no case']} cells — (the op takes no such tensor there)",
            "",
            "| op | " + " | ".join(f"{d} ({DTYPE_NAMES[d]})" for d in QUANTIZED_DTYPES) + " |",
            "|---|" + "---|" * len(QUANTIZED_DTYPES),
            *quantized_rows,
        ]
    if extra:
        lines += ["", "## Ops with cases outside ExecuTorch's portable list", ""]
        lines += [f"- `{op}`" for op in extra]
    differ = [f for f in found if f.meta.get("aten_differs")]
    if differ:
        lines += ["", "## Where ExecuTorch's runtime differs from ATen", "", "| case | difference |", "|---|---|"]
        lines += [f"| `{f.id}` | {cell_text(f.meta['aten_differs'])} |" for f in differ]
    no_program: dict[tuple[str, str], list[str]] = defaultdict(list)
    for fixture in found:
        if results[fixture.id].status == check.NO_PROGRAM:
            no_program[(fixture.op, results[fixture.id].message)].append(fixture.dtype)
    if no_program:
        lines += ["", "## No program", "", "| op | dtypes | why no ExecuTorch program holds it |", "|---|---|---|"]
        for (op, why), dtypes in sorted(no_program.items()):
            ordered = sorted(set(dtypes), key=lambda d: DTYPES.index(d) if d in DTYPES else len(DTYPES))
            lines.append(f"| `{op}` | {', '.join(ordered)} | {cell_text(why)} |")
    if failures:
        lines += ["", "## Failing cases", "", "| case | status | reason |", "|---|---|---|", *failures]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--runner", type=Path, help="an all-ops executor_runner (default: build it)")
    args = parser.parse_args(argv)
    runner = args.runner
    if runner is None:
        from bot.build import cmake

        runner = cmake.runner_path(cmake.build(cmake.ALL_OPS, targets=("executor_runner",)))
    ops = yaml_ops(executorch_yaml())
    quantized_ops = tuple(yaml_ops(executorch_yaml(QUANTIZED_YAML)))
    kernels = set(yaml_ops(REPO_ROOT / "kernels" / "portable" / "functions.yaml"))
    kernels |= set(yaml_ops(REPO_ROOT / "kernels" / "quantized" / "functions.yaml"))
    found = fixtures()
    results = check.run_all(runner, found)
    args.out.write_text(render(ops, kernels, found, results, quantized_ops))
    counts = Counter(r.status for r in results.values())
    print(f"{args.out}: {len(found)} fixtures, " + ", ".join(f"{n} {s}" for s, n in sorted(counts.items())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
