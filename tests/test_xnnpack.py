"""bot/selection/xnnpack.py: the node kinds inside XNNPACK delegates, read statically from the
payloads of real delegated programs (models/delegated, ExecuTorch's exporter), named as the runtime's
backend names them, and carried in a selection yaml ExecuTorch's own tooling still accepts."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from bot.build import cmake
from bot.selection import oplist, pte, trace, xnnpack
from tests.test_oplist import gen_oplist

DELEGATED = cmake.REPO_ROOT / "models" / "delegated"
PROGRAMS = sorted(p.stem for p in DELEGATED.glob("*.pte"))
GRAPH_SOURCES = [cmake.REPO_ROOT / "native" / "backends" / "xnnpack" / f"graph.{ext}" for ext in ("h", "cpp")]


def cpp_table(name: str) -> tuple[str, ...]:
    """The string array `name` of the backend's graph.h or graph.cpp (nullptr entries left out)."""
    text = "".join(path.read_text() for path in GRAPH_SOURCES)
    body = re.search(rf"{name}\[[^\]]*\] = \{{(.*?)\}};", text, re.S)
    assert body is not None, name
    return tuple(re.findall(r'"([a-z0-9_]+)"', body.group(1)))


def test_names_agree_with_the_runtime() -> None:
    assert cpp_table("kNodeTypeNames") == xnnpack.NODE_KIND_NAMES
    assert cpp_table("kDatatypeNames") == xnnpack.SHORT_DATATYPES
    assert len(xnnpack.NODE_KIND_NAMES) == len(xnnpack.NODE_LAYOUTS)


@pytest.mark.parametrize("name", PROGRAMS)
def test_oplist_is_gen_oplist_plus_the_node_kinds(name: str, tmp_path: Path) -> None:
    """Outside the delegate, `bot oplist` lists what ExecuTorch's gen_oplist lists; inside it, each node
    kind and dtype the payload holds."""
    model = DELEGATED / f"{name}.pte"
    theirs = gen_oplist(model, tmp_path / "theirs.yaml")
    ours = oplist.from_model(model, name)
    outside = {op for op in ours.operators if not op.startswith("xnnpack::")}
    assert outside == set(theirs["operators"] or {})
    kinds = {op for op in ours.operators if op.startswith("xnnpack::")}
    assert kinds and kinds == set(xnnpack.program_node_kinds(model))
    graphs = [xnnpack.read_xnn_payload(p) for b, p in xnnpack.delegate_payloads(model) if b == xnnpack.BACKEND_ID]
    assert {node.kind for g in graphs for node in g.nodes} == {
        xnnpack.NODE_LAYOUTS[xnnpack.NODE_KIND_NAMES.index(k.split("::")[1].split(".")[0])][0] for k in kinds
    }


def test_executorch_tooling_accepts_node_kinds(tmp_path: Path) -> None:
    """torchgen's SelectiveBuilder (under ExecuTorch's gen_all_oplist) refuses unknown keys: node kinds
    are operators, so a yaml holding them merges as any other."""
    paths = []
    for name in PROGRAMS:
        path = tmp_path / f"{name}.yaml"
        oplist.dump(oplist.from_model(DELEGATED / f"{name}.pte", name), path)
        paths.append(path)
    listing = tmp_path / "models.txt"
    listing.write_text("\n".join(map(str, paths)))
    out_dir = tmp_path / "merged"
    out_dir.mkdir()
    subprocess.run(
        [sys.executable, "-m", "executorch.codegen.tools.gen_all_oplist", f"--model_file_list_path=@{listing}",
         f"--output_dir={out_dir}"],
        check=True,
        capture_output=True,
    )  # fmt: skip
    theirs = yaml.safe_load((out_dir / "selected_operators.yaml").read_text())
    ours = oplist.merge(oplist.load(p) for p in paths)
    assert set(theirs["operators"]) == set(ours.operators)
    assert any(op.startswith("xnnpack::") for op in theirs["operators"])


def test_static_node_kinds_are_what_runs(tmp_path: Path) -> None:
    """The tracer records, for a program our runtime runs, exactly the node kinds read statically."""
    name = "tv_mobilenet_v3_xnn_f32"
    model = DELEGATED / f"{name}.pte"
    inputs = sorted(DELEGATED.glob(f"{name}.input*.npy"))
    traced = trace.trace_model(trace.tracer_runner(), model, inputs, name)
    ran = {op for op in traced.operators if op.startswith("xnnpack::")}
    assert ran == set(xnnpack.program_node_kinds(model))


def test_bad_payloads_are_one_line(tmp_path: Path) -> None:
    data = bytearray((DELEGATED / "resnet_xnn_f32.pte").read_bytes())
    (_, payload), *_ = xnnpack.delegate_payloads(DELEGATED / "resnet_xnn_f32.pte")
    at = bytes(data).find(payload)
    data[at + 4 : at + 8] = b"NOPE"  # the header's magic: the payload is no XNNPACK payload
    bad = tmp_path / "bad.pte"
    bad.write_bytes(bytes(data))
    with pytest.raises(pte.PteError, match=r"^the XnnpackBackend delegate's payload: not an XNNPACK payload"):
        oplist.from_model(bad, "bad")
    truncated = tmp_path / "truncated.pte"
    truncated.write_bytes(bytes(data[: at + 10]))
    with pytest.raises(pte.PteError, match="segment lies past the end of the file"):
        xnnpack.program_node_kinds(truncated)
