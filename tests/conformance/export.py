"""Export the conformance fixtures: one single-op ExecuTorch program per case, with
inputs and the reference outputs of ExecuTorch's own runtime.

    python -m tests.conformance.export [--only FAMILY_OR_OP_OR_ID ...] [--jobs N]

For every `Case` of `cases/*.py` (or the selected ones): `case.fn` is wrapped in
an `nn.Module`, exported with `torch.export.export` on `case.inputs` and lowered
with the real `executorch` package as `models/export.py` does (`to_edge` then
`to_executorch`: portable, no delegate). The program's operator table must hold
`case.op` and nothing but `case.also` besides; otherwise ExecuTorch decomposed
the call into other ops and the case is reported as mislabelled (nothing is
written for it). ExecuTorch's runtime then runs the program: its outputs become
`expected<i>.npy`, or, when it refuses (its kernel does not take that dtype),
`refused.txt` holds its one-line reason. When the edge dialect's dtype check
rejects a case, the program is lowered without that check so that ExecuTorch's
runtime still decides (case.json records the check's verdict). A case tagged
`may-be-unexpressible` (the dtype sweep, cases/sweep.py) that torch.export, to_edge
or to_executorch cannot lower, or that ExecuTorch lowers into other ops, gets a
fixture without a program: `unexpressible.txt` holds why.

Each computed case is also run by eager PyTorch (ATen). Where ExecuTorch's
runtime and ATen disagree by the suite's own rules, ATen's outputs are kept as
`aten<i>.npy` and case.json says how they differ: the wheel's runtime registers
ExecuTorch's optimized kernels over some portable ones, and those do not always
keep ATen's semantics (its optimized sum.IntList_out accumulates every dtype,
int64 and double included, in float).

Fixture layout and dtype encoding: `layout.py`. Re-exporting an unchanged case
writes identical bytes. Exits non-zero when a case is mislabelled or fails to
export.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import json
import os
import re
import shutil
import sys
import tempfile
import time
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from multiprocessing import get_context
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from tests.conformance.layout import CASES_DIR, DTYPE_NAMES, DTYPES, FIXTURES_DIR, families
from tests.conformance.spec import MAY_BE_UNEXPRESSIBLE, SKIP_DIM_ORDER

MAX_PROGRAM_BYTES = 16 * 1024  # fixtures are committed: a single-op program is ~1-2 KB
MAX_REASON_CHARS = 300


@dataclass(frozen=True)
class Outcome:
    id: str
    family: str
    status: str  # "ok", "refused", "unexpressible", "mislabelled", "error"
    message: str = ""
    bytes: int = 0


def load_family(family: str) -> list[Any]:
    module = importlib.import_module(f"tests.conformance.cases.{family}")
    return list(module.CASES)


def selected_cases(only: list[str] | None) -> list[tuple[str, Any]]:
    """(family, case) for every case matching `only` (a family, an op with or without its
    namespace, an op's base name, or a case id); all cases when `only` is empty."""
    chosen: list[tuple[str, Any]] = []
    seen: dict[str, str] = {}
    for family in families(CASES_DIR):
        for case in load_family(family):
            if case.id in seen:
                raise SystemExit(f"error: duplicate case id {case.id} (in {seen[case.id]} and {family})")
            seen[case.id] = family
            if not only or any(_matches(family, case, key) for key in only):
                chosen.append((family, case))
    return chosen


def _matches(family: str, case: Any, key: str) -> bool:
    op = case.op
    short = op.split("::", 1)[-1]
    return key in (family, op, short, short.split(".", 1)[0], case.id)


def case_dtype(case: Any) -> str:
    """The dtype column of a case: its `<short dtype>_` name prefix (per_dtype), else its first input's."""
    prefix = case.name.split("_", 1)[0]
    if prefix in DTYPES:
        return prefix
    from tests.conformance.spec import SHORT

    for tensor in case.inputs:
        return SHORT.get(tensor.dtype, str(tensor.dtype))
    return "f32"


# --- the work of one case (runs in a worker process) ---

_FAMILY_CASES: dict[str, dict[str, Any]] = {}


@contextlib.contextmanager
def published_fixture(out_root: Path, case_id: str) -> Iterator[Path]:
    """A scratch directory to write one fixture into; when the block ends without an error it replaces
    `out_root/case_id` whole, so an interrupted export never leaves a half-written fixture."""
    work = Path(tempfile.mkdtemp(prefix=f".{case_id}.", dir=out_root))
    try:
        yield work
        final = out_root / case_id
        if final.exists():
            shutil.rmtree(final)
        work.rename(final)
    finally:
        if work.exists():
            shutil.rmtree(work)


def fixture_bytes(out_root: Path, case_id: str) -> int:
    return sum(p.stat().st_size for p in (out_root / case_id).iterdir())


def _case(family: str, case_id: str) -> Any:
    if family not in _FAMILY_CASES:
        _FAMILY_CASES[family] = {c.id: c for c in load_family(family)}
    return _FAMILY_CASES[family][case_id]


@contextlib.contextmanager
def captured_stderr() -> Iterator[list[str]]:
    """Lines the C++ runtime writes to fd 2 meanwhile (ExecuTorch logs its kernels' checks there)."""
    lines: list[str] = []
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as tmp:
        os.dup2(tmp.fileno(), 2)
        try:
            yield lines
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            tmp.seek(0)
            lines.extend(tmp.read().decode(errors="replace").splitlines())


def refusal_reason(log: list[str], exc: BaseException) -> str:
    """The first line of the runtime's log naming why (a kernel's check), else the exception."""
    lines = [line for line in log if line.strip() and "cpuinfo" not in line]
    kernel = [line for line in lines if not line.startswith(("[method.cpp", "[method_meta"))]
    line = (kernel or lines or [f"{type(exc).__name__}: {exc}"])[0]
    line = re.sub(r"^\[([^\]]+)\]\s*", r"\1: ", line.strip())
    return line[:MAX_REASON_CHARS]


def dtype_name(dtype: Any) -> str:
    from tests.conformance.spec import SHORT

    return DTYPE_NAMES.get(SHORT.get(dtype, ""), str(dtype).removeprefix("torch."))


def to_numpy(tensor: torch.Tensor) -> np.ndarray:
    tensor = tensor.detach().contiguous()
    if tensor.dtype == torch.bfloat16:
        return tensor.float().numpy()  # exact: every bfloat16 is a float32
    if tensor.dtype == torch.complex32:
        return torch.view_as_real(tensor).numpy()  # NumPy has no complex32: float16 (re, im) pairs
    return tensor.numpy()


def operator_names(program: Any) -> list[str]:
    names = []
    for plan in program.executorch_program.execution_plan:
        for op in plan.operators:
            names.append(f"{op.name}.{op.overload}" if op.overload else op.name)
    return sorted(set(names))


def aten_outputs(case: Any) -> list[torch.Tensor] | None:
    """The case run by eager PyTorch (ATen), or None when ATen does not run it."""
    try:
        with torch.no_grad():
            result = case.fn(*(t.clone() for t in case.inputs))
    except Exception:
        return None
    return [t for t in torch.utils._pytree.tree_leaves(result) if isinstance(t, torch.Tensor)]


def differences(executorch: list[torch.Tensor], aten: list[torch.Tensor]) -> str:
    """Where ExecuTorch's runtime and ATen disagree by the suite's own rules (check.compare), or ""."""
    from tests.conformance.check import compare

    if len(executorch) != len(aten):
        return f"{len(executorch)} outputs, ATen {len(aten)}"
    for i, (ours, theirs) in enumerate(zip(executorch, aten, strict=True)):
        why = compare(to_numpy(theirs), to_numpy(ours), dtype_name(ours.dtype))
        if why is not None:
            return f"output {i}: ATen {why}"[:MAX_REASON_CHARS]
    return ""


def _outputs_meta(exported: Any) -> list[dict[str, Any]]:
    outputs = []
    for node in exported.graph.nodes:
        if node.op != "output":
            continue
        for arg in torch.utils._pytree.tree_leaves(node.args[0]):
            val = getattr(arg, "meta", {}).get("val")
            if isinstance(val, torch.Tensor):
                shape = [str(s) if isinstance(s, torch.SymInt) else int(s) for s in val.shape]  # u0: data-dependent
                outputs.append({"dtype": dtype_name(val.dtype), "shape": shape})
    return outputs


def export_case(family: str, case_id: str, out_root: str) -> Outcome:
    try:
        return _export_case(family, _case(family, case_id), Path(out_root))
    except Exception as exc:  # one line per broken case; the run goes on
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        return Outcome(case_id, family, "error", f"{type(exc).__name__}: {first}"[:MAX_REASON_CHARS])


class _Call(nn.Module):
    def __init__(self, fn: Any) -> None:
        super().__init__()
        self.fn = fn

    def forward(self, *args: Any) -> Any:
        return self.fn(*args)


def _torch_op(name: str) -> Any:
    """torch.ops.aten.stack.default for "aten.stack.default"."""
    op: Any = torch.ops
    for part in name.split("."):
        op = getattr(op, part)
    return op


# --- dynamic shapes (Case.dynamic) and data-dependent output shapes (CONSTRAINT_SHAPE_EVAL) ---

# Ops a program exported with dynamic shapes holds besides the case's: the sizes read at run time
# (sym_size) and the core's sym-int arithmetic and views (executorch_prim).
SHAPE_OP_PREFIXES = ("aten::sym_size.", "aten::sym_numel.", "aten::sym_stride.", "executorch_prim::")


def export_program(case: Any, inputs: tuple[torch.Tensor, ...]) -> Any:
    """torch.export of the case's call. With `case.dynamic`, its dims become torch.export.Dim (one per
    name) and the example inputs take every Dim's max: the program's DYNAMIC_BOUND tensors are planned
    for the bound, and the runtimes then run `inputs` (within the bounds) by resizing them."""
    if not case.dynamic:
        with torch.no_grad():
            return torch.export.export(_Call(case.fn), inputs)
    dims: dict[str, Any] = {}
    examples: list[torch.Tensor] = []
    specs: list[dict[int, Any] | None] = []
    for i, tensor in enumerate(inputs):
        dynamic = case.dynamic[i] if i < len(case.dynamic) else None
        if not dynamic:
            examples.append(tensor)
            specs.append(None)
            continue
        shape = list(tensor.shape)
        spec = {}
        for d, (name, low, high) in dynamic.items():
            spec[d] = dims.setdefault(name, torch.export.Dim(name, min=low, max=high))
            shape[d] = high
        # The example's values only matter to data-dependent ops, whose cases are not dynamic: zeros
        # are valid indices and masks.
        examples.append(torch.zeros(shape, dtype=tensor.dtype))
        specs.append(spec)
    with torch.no_grad():
        return torch.export.export(_Call(case.fn), tuple(examples), dynamic_shapes=(tuple(specs),))


def backend_config(case: Any) -> Any:
    """to_executorch's config: ConstraintBasedSymShapeEvalPass for data-dependent output sizes (the
    default pass plans each size from the example, which bounds no data-dependent one)."""
    from tests.conformance.spec import CONSTRAINT_SHAPE_EVAL

    if CONSTRAINT_SHAPE_EVAL not in case.tags:
        return None
    from executorch.exir import ExecutorchBackendConfig
    from executorch.exir.passes.sym_shape_eval_pass import ConstraintBasedSymShapeEvalPass

    return ExecutorchBackendConfig(sym_shape_eval_pass=ConstraintBasedSymShapeEvalPass())


def shape_ops(case: Any, ops: list[str]) -> list[str]:
    """The program's size-reading and sym-int ops, allowed besides the case's own when it is dynamic."""
    from tests.conformance.spec import CONSTRAINT_SHAPE_EVAL

    if not case.dynamic and CONSTRAINT_SHAPE_EVAL not in case.tags:
        return []
    return [op for op in ops if op.startswith(SHAPE_OP_PREFIXES)]


def _export_case(family: str, case: Any, out_root: Path) -> Outcome:
    from executorch.exir import EdgeCompileConfig, to_edge
    from executorch.runtime import Runtime

    inputs = tuple(t.clone() for t in case.inputs)
    try:
        with torch.no_grad():
            exported = export_program(case, inputs)
    except Exception as exc:
        if MAY_BE_UNEXPRESSIBLE not in case.tags:
            raise
        return write_unexpressible(family, case, out_root, f"torch.export: {first_line(exc)}")
    keep = [_torch_op(name) for name in case.preserved_ops()]
    # An op kept whole must also be exempt from the core-ATen check, or to_edge refuses it.
    options = {
        "preserve_ops": keep,
        "_core_aten_ops_exception_list": keep,
        "_skip_dim_order": SKIP_DIM_ORDER in case.tags,
    }
    edge_check = "ok"
    try:
        edge = to_edge(exported, compile_config=EdgeCompileConfig(**options))
    except Exception as exc:  # the edge dialect's dtype check; ExecuTorch's runtime decides below
        edge_check = (str(exc).strip().splitlines() or [type(exc).__name__])[0][:MAX_REASON_CHARS]
        try:
            edge = to_edge(exported, compile_config=EdgeCompileConfig(_check_ir_validity=False, **options))
        except Exception as exc:
            if MAY_BE_UNEXPRESSIBLE not in case.tags:
                raise
            return write_unexpressible(family, case, out_root, f"to_edge: {first_line(exc)}")
    try:
        program = edge.to_executorch(backend_config(case))
    except Exception as exc:
        if MAY_BE_UNEXPRESSIBLE not in case.tags:
            raise
        return write_unexpressible(family, case, out_root, f"to_executorch: {first_line(exc)}")
    ops = operator_names(program)
    allowed = {case.op, *case.also, *shape_ops(case, ops)}
    if case.op not in ops or not set(ops) <= allowed:
        holds = f"program holds {', '.join(ops) or 'no operator'}"
        if MAY_BE_UNEXPRESSIBLE in case.tags:
            return write_unexpressible(family, case, out_root, f"ExecuTorch's export lowers it: {holds}")
        return Outcome(case.id, family, "mislabelled", holds)
    buffer = program.buffer
    if len(buffer) > MAX_PROGRAM_BYTES:
        message = f"program is {len(buffer)} bytes (max {MAX_PROGRAM_BYTES}): use smaller inputs"
        return Outcome(case.id, family, "error", message)

    refused = None
    outputs: list[Any] = []
    with captured_stderr() as log:
        try:
            method = Runtime.get().load_program(buffer).load_method("forward")
            outputs = [o for o in method.execute([t.clone() for t in inputs]) if isinstance(o, torch.Tensor)]
        except Exception as exc:
            refused = exc
    aten = aten_outputs(case) if refused is None else None
    aten_differs = ""
    if aten is not None:
        aten_differs = differences(outputs, aten)
    meta = {
        "op": case.op,
        "name": case.name,
        "family": family,
        "dtype": case_dtype(case),
        "tags": list(case.tags),
        "operators": ops,
        "inputs": [{"dtype": dtype_name(t.dtype), "shape": list(t.shape)} for t in inputs],
        "outputs": _outputs_meta(exported),
        "unsupported_by_executorch": case.unsupported_by_executorch,
        "edge_dtype_check": edge_check,
        "aten_differs": aten_differs,
    }

    with published_fixture(out_root, case.id) as work:
        (work / "model.pte").write_bytes(buffer)
        for i, tensor in enumerate(case.inputs):
            np.save(work / f"input{i}.npy", to_numpy(tensor))
        if refused is not None:
            reason = refusal_reason(log, refused)
            (work / "refused.txt").write_text(reason + "\n")
        else:
            meta["outputs"] = [{"dtype": dtype_name(o.dtype), "shape": list(o.shape)} for o in outputs]
            for i, tensor in enumerate(outputs):
                np.save(work / f"expected{i}.npy", to_numpy(tensor))
            if aten is not None and aten_differs and len(aten) == len(outputs):
                for i, tensor in enumerate(aten):
                    np.save(work / f"aten{i}.npy", to_numpy(tensor))
        (work / "case.json").write_text(json.dumps(meta, sort_keys=True) + "\n")
    size = fixture_bytes(out_root, case.id)
    if refused is not None:
        note = "" if case.unsupported_by_executorch else " (not declared unsupported_by_executorch)"
        return Outcome(case.id, family, "refused", reason + note, size)
    note = f" (declared unsupported: {case.unsupported_by_executorch})" if case.unsupported_by_executorch else ""
    return Outcome(case.id, family, "ok", note, size)


def first_line(exc: BaseException) -> str:
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    return f"{type(exc).__name__}: {lines[0] if lines else ''}"[:MAX_REASON_CHARS]


def write_unexpressible(family: str, case: Any, out_root: Path, reason: str) -> Outcome:
    """A fixture without a program: torch.export / to_edge cannot express the case (its reason in
    unexpressible.txt), so no ExecuTorch program holds the op in this dtype."""
    meta = {
        "op": case.op,
        "name": case.name,
        "family": family,
        "dtype": case_dtype(case),
        "tags": list(case.tags),
        "operators": [],
        "inputs": [{"dtype": dtype_name(t.dtype), "shape": list(t.shape)} for t in case.inputs],
        "outputs": [],
        "unsupported_by_executorch": case.unsupported_by_executorch,
    }
    with published_fixture(out_root, case.id) as work:
        for i, tensor in enumerate(case.inputs):
            np.save(work / f"input{i}.npy", to_numpy(tensor))
        (work / "unexpressible.txt").write_text(reason + "\n")
        (work / "case.json").write_text(json.dumps(meta, sort_keys=True) + "\n")
    size = fixture_bytes(out_root, case.id)
    return Outcome(case.id, family, "unexpressible", reason, size)


def _cache_cia_ops() -> None:
    """`to_edge` collects torch's CompositeImplicitAutograd ops anew on every call (most of an
    export's time); the set is fixed once torch and executorch are imported, so it is collected once.
    The programs are byte-identical either way."""
    import functools

    from torch.export import decomp_utils, exported_program

    cached = functools.cache(exported_program._collect_all_valid_cia_ops)
    exported_program._collect_all_valid_cia_ops = cached
    decomp_utils._collect_all_valid_cia_ops = cached


def _worker_setup() -> None:
    """Workers import torch and executorch once; their import-time chatter is not the export's."""
    with captured_stderr():
        import executorch.exir
        import executorch.kernels.quantized  # ExecuTorch's quantized kernels, in its runtime too (cases/quantized.py)
        import executorch.runtime

        del executorch
    _cache_cia_ops()


def prune(chosen: list[tuple[str, Any]], only: list[str] | None, out_root: Path) -> list[str]:
    """Removes fixtures of whole families exported now whose case no longer exists (or failed)."""
    whole = set(families(CASES_DIR)) if not only else {key for key in only if key in families(CASES_DIR)}
    keep = {case.id for _, case in chosen}
    removed = []
    for meta_path in sorted(out_root.glob("*/case.json")):
        family = json.loads(meta_path.read_text()).get("family")
        stale = family not in families(CASES_DIR) if not only else False
        if (family in whole and meta_path.parent.name not in keep) or stale:
            shutil.rmtree(meta_path.parent)
            removed.append(meta_path.parent.name)
    return removed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", help="families, ops (aten::add.out, add.out, add) or case ids")
    parser.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1), help="worker processes")
    parser.add_argument("--out", type=Path, default=FIXTURES_DIR)
    args = parser.parse_args(argv)
    out_root: Path = args.out
    out_root.mkdir(parents=True, exist_ok=True)

    chosen = selected_cases(args.only)
    if not chosen:
        print(f"error: no case matches {' '.join(args.only or [])}", file=sys.stderr)
        return 1
    start = time.monotonic()
    outcomes: list[Outcome] = []
    with ProcessPoolExecutor(args.jobs, mp_context=get_context("spawn"), initializer=_worker_setup) as pool:
        futures = [pool.submit(export_case, family, case.id, str(out_root)) for family, case in chosen]
        for future in futures:
            outcome = future.result()
            outcomes.append(outcome)
            size = f"  {outcome.bytes} bytes" if outcome.bytes else ""
            message = f"  {outcome.message}" if outcome.message else ""
            print(f"{outcome.status:<11} {outcome.id}{size}{message}", flush=True)
            if outcome.status in ("mislabelled", "error") and (out_root / outcome.id).exists():
                shutil.rmtree(out_root / outcome.id)
    for removed in prune(chosen, args.only, out_root):
        print(f"removed     {removed} (no such case any more)")

    statuses = ("ok", "refused", "unexpressible", "mislabelled", "error")
    counts = {s: sum(o.status == s for o in outcomes) for s in statuses}
    total = sum(o.bytes for o in outcomes)
    print(
        f"{len(outcomes)} cases in {time.monotonic() - start:.0f} s: {counts['ok']} computed, "
        f"{counts['refused']} refused by ExecuTorch, {counts['unexpressible']} not expressible as a program, "
        f"{counts['mislabelled']} mislabelled, {counts['error']} errors; "
        f"{total} bytes written"
    )
    return 1 if counts["mislabelled"] or counts["error"] else 0


if __name__ == "__main__":
    sys.exit(main())
