"""The static op graph, read from compiled kernel objects, against temporary kernel edits."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from bot.build import bundle
from bot.selection import depgraph, oplist, pte, trace
from bot.selection.kernel_library import load_libraries
from tests.conftest import REPO_ROOT, ZOO_DIR, ZOO_MODELS, zoo_inputs

# The runtime's own libraries: the portable ops and the XNNPACK node kinds (nodes of the graph like any op).
LIBRARY = load_libraries(bundle.runtime_libraries())


def checkout(path: Path, edits: dict[str, tuple[str, str]] | None = None, extra: dict[str, str] | None = None) -> Path:
    """A copy of the runtime, kernels and bot with text edits {file: (old, new)} and extra files."""
    for part in ("native", "kernels", "bot"):
        shutil.copytree(REPO_ROOT / part, path / part, ignore=shutil.ignore_patterns("__pycache__"))
    for name, (old, new) in (edits or {}).items():
        file = path / name
        text = file.read_text()
        assert old in text, f"{name} no longer contains the text the test edits"
        file.write_text(text.replace(old, new))
    for name, text in (extra or {}).items():
        (path / name).write_text(text)
    return path


def graph(root: Path) -> depgraph.Graph:
    return depgraph.graph_for_checkout(root / "native", LIBRARY)


@pytest.fixture(scope="module")
def head_graph() -> depgraph.Graph:
    return graph(REPO_ROOT)


def test_graph_is_exactly_what_kernels_dispatch_to(head_graph: depgraph.Graph) -> None:
    """Cross-check with the registry's declared calls (which KernelContext::call enforces at run time)."""
    runner = trace.tracer_runner()
    declared = {(op, callee) for op, callees in trace.declared_calls(runner).items() for callee in callees}
    assert head_graph.pairs() == declared
    assert len(head_graph.kernel_sources) == len(LIBRARY)


HARDTANH = "kernels/portable/op_hardtanh.cpp"
HARDTANH_BODY = """  Value* clamp_args[] = {args[0], &lo, &hi, args[3]};
  return ctx.call("aten::clamp.out", clamp_args);"""


def test_kernel_switched_from_addmm_to_mm_plus_add(tmp_path: Path) -> None:
    via_addmm = """  Value* addmm_args[] = {args[0], args[0], args[0], args[1], args[2], args[3]};
  return ctx.call("aten::addmm.out", addmm_args);"""
    via_mm_add = """  Value* mm_args[] = {args[0], args[0], args[3]};
  Error err = ctx.call("aten::mm.out", mm_args);
  if (!err.ok()) return err;
  Value* add_args[] = {args[3], args[0], args[1], args[3]};
  return ctx.call("aten::add.out", add_args);"""
    calls = 'constexpr const char* kCalls[] = {"aten::clamp.out"};'
    base = checkout(tmp_path / "base", {HARDTANH: (HARDTANH_BODY, via_addmm)})
    head = checkout(tmp_path / "head", {HARDTANH: (HARDTANH_BODY, via_mm_add)})
    for root, listed in ((base, '"aten::addmm.out"'), (head, '"aten::mm.out", "aten::add.out"')):
        file = root / HARDTANH
        file.write_text(file.read_text().replace(calls, f"constexpr const char* kCalls[] = {{{listed}}};"))
    change = depgraph.diff(graph(base), graph(head))
    assert {(e.caller, e.callee) for e in change.removed} == {("aten::hardtanh.out", "aten::addmm.out")}
    assert {(e.caller, e.callee) for e in change.added} == {
        ("aten::hardtanh.out", "aten::mm.out"),
        ("aten::hardtanh.out", "aten::add.out"),
    }
    assert all(e.source == "op_hardtanh.cpp" for e in change.added + change.removed)


HELPER_HEADER = """#pragma once
#include "sb/kernel.h"
namespace sb::kernels {
// Shared by relu and sigmoid.
Error after_activation(KernelContext& ctx, Args args);
}  // namespace sb::kernels
"""


def helper_source(body: str) -> str:
    return f"""#include "util/after_activation.h"
namespace sb::kernels {{
Error after_activation(KernelContext& ctx, Args args) {{
{body}
}}
}}  // namespace sb::kernels
"""


def use_helper(op: str, source: str) -> str:
    """`source` (op_<op>.cpp) with its KernelDef pointing at a wrapper that also runs the helper."""
    definition = f"extern const KernelDef {op}_out{{"
    assert source.count(definition) == 1, f"op_{op}.cpp: no single {definition!r} to rewrite"
    wrapper = f"""Error {op}_then_helper(KernelContext& ctx, Args args) {{
  Error err = {op}_out_impl(ctx, args);
  return err.ok() ? after_activation(ctx, args) : err;
}}
"""
    start = source.index(definition)
    end = source.index(";", start)
    rewritten = source[start:end].replace(f"&{op}_out_impl", f"&{op}_then_helper")
    assert rewritten != source[start:end], f"op_{op}.cpp: its KernelDef does not name {op}_out_impl"
    return source[:start] + wrapper + rewritten + source[end:]


def test_helper_that_starts_calling_an_op_is_attributed_to_every_user(tmp_path: Path) -> None:
    include = ('#include "util/unary.h"', '#include "util/unary.h"\n#include "util/after_activation.h"')
    roots = {}
    for name, body in (
        ("base", "  (void)ctx;\n  (void)args;\n  return Error();"),
        ("head", '  Value* log_args[] = {args[1], args[1]};\n  return ctx.call("aten::log.out", log_args);'),
    ):
        extra = {
            "kernels/portable/util/after_activation.h": HELPER_HEADER,
            "kernels/portable/util/after_activation.cpp": helper_source(body),
        }
        root = checkout(tmp_path / name, None, extra)
        for op in ("relu", "sigmoid"):
            file = root / f"kernels/portable/op_{op}.cpp"
            text = file.read_text()
            assert include[0] in text, f"op_{op}.cpp no longer includes {include[0]}"
            file.write_text(use_helper(op, text.replace(*include)))
        roots[name] = root
    change = depgraph.diff(graph(roots["base"]), graph(roots["head"]))
    added = {(e.caller, e.callee): e for e in change.added}
    assert set(added) == {("aten::relu.out", "aten::log.out"), ("aten::sigmoid.out", "aten::log.out")}
    for edge in added.values():
        assert edge.source == "after_activation.cpp"
        assert edge.is_helper(f"op_{edge.caller.split('::')[1].split('.')[0]}.cpp")
    assert not change.removed


ADDMM = "kernels/portable/op_addmm.cpp"
ALPHA_BRANCH = """  if (alpha->scalar_as_double() != 1.0) {
    Value* scale_args[] = {out, alpha, out};
    if (!(err = ctx.call("aten::mul.Scalar_out", scale_args)).ok()) return err;
  }
"""


def test_change_behind_an_input_dependent_branch_is_reported(tmp_path: Path) -> None:
    """addmm only calls mul.Scalar_out when alpha != 1, which no zoo input does."""
    base = checkout(tmp_path / "base", {ADDMM: (ALPHA_BRANCH, "  (void)alpha;\n")})
    change = depgraph.diff(graph(base), graph(REPO_ROOT))
    assert [(e.caller, e.callee) for e in change.added] == [("aten::addmm.out", "aten::mul.Scalar_out")]

    # Tracing gru (which uses addmm) never reaches the branch, yet the op is
    # selected and marked, so the report can say "reachable, not traced".
    tracer = trace.tracer_runner()
    selection = trace.trace_model(tracer, ZOO_DIR / "gru.pte", zoo_inputs("gru"), "gru")
    assert not selection.operators["aten::mul.Scalar_out"].traced


@pytest.mark.parametrize("name", ZOO_MODELS)
def test_static_closure_covers_every_traced_op(name: str, head_graph: depgraph.Graph) -> None:
    roots = pte.load(ZOO_DIR / f"{name}.pte").plan().operators
    traced = oplist.load(REPO_ROOT / "models" / "oplist" / f"{name}.yaml")
    seen = {op for op, info in traced.operators.items() if info.traced}
    assert seen <= head_graph.closure(roots)


def test_checked_in_yamls_are_up_to_date() -> None:
    proc = subprocess.run(
        ["python", "-m", "bot", "regenerate", "--check"], cwd=REPO_ROOT, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
