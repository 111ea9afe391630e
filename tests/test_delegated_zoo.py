"""The XNNPACK-delegated zoo (models/delegated, made by `python -m models.export_delegated`).

Every program's references come back from ExecuTorch's runtime (with its XNNPACK
backend) on the saved inputs; every program really holds XnnpackBackend
delegates; the census reader reads each payload as flatc itself does; and
CENSUS.md is what the files hold now.

Needs the `export` extra (torch==2.13.0, executorch==1.5.1); CI installs it.
"""

from __future__ import annotations

import importlib.resources
import json
import re
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from bot.selection import pte

pytest.importorskip("executorch.runtime")

from models import export_delegated as zoo  # imports torch: after the skip

pytestmark = pytest.mark.export

DELEGATED = zoo.DELEGATED_DIR
PROGRAMS = sorted(p.stem for p in DELEGATED.glob("*.pte"))
TOLERANCE = 1e-6


def saved(name: str, kind: str) -> list[np.ndarray]:
    files = sorted(DELEGATED.glob(f"{name}.{kind}*.npy"), key=lambda p: int(p.stem.rsplit(kind, 1)[1]))
    return [np.load(f) for f in files]


def test_the_zoo_is_the_module_s_list() -> None:
    assert sorted(zoo.PROGRAMS) == PROGRAMS
    assert len(PROGRAMS) >= 10
    for name in PROGRAMS:
        assert (DELEGATED / f"{name}.pte").stat().st_size < 3 << 20


@pytest.mark.parametrize("name", PROGRAMS)
def test_references_reproduce_on_executorch(name: str) -> None:
    from executorch.runtime import Runtime

    from models.export import as_et_input

    inputs, expected = saved(name, "input"), saved(name, "expected")
    assert inputs and expected
    method = Runtime.get().load_program(DELEGATED / f"{name}.pte").load_method("forward")
    outputs = method.execute([as_et_input(array) for array in inputs])
    assert len(outputs) == len(expected)
    for out, want in zip(outputs, expected, strict=True):
        got = out.detach().numpy()
        assert got.dtype == want.dtype and got.shape == want.shape
        assert np.isfinite(want).all()
        assert float(np.max(np.abs(got.astype(np.float64) - want), initial=0.0)) <= TOLERANCE


@pytest.mark.parametrize("name", PROGRAMS)
def test_program_holds_xnnpack_delegates(name: str) -> None:
    data = (DELEGATED / f"{name}.pte").read_bytes()
    plan = pte.parse(data).plan("forward")
    assert plan.delegates and set(plan.delegates) == {zoo.BACKEND_ID}
    assert sum(ins.kind == "DelegateCall" for ins in plan.instructions) >= len(plan.delegates)
    assert set(zoo.payload_locations(data)) == {"SEGMENT"}  # ExecutorchBackendConfig's default, as users ship
    payloads = zoo.delegate_payloads(data)
    assert [backend for backend, _ in payloads] == list(plan.delegates)
    for _, payload in payloads:
        graph = zoo.read_xnn_payload(payload)
        assert graph.nodes and graph.input_ids and graph.output_ids
    recipe = zoo.PROGRAMS[name][1]
    datatypes = {v.datatype for _, payload in payloads for v in zoo.read_xnn_payload(payload).values.values()}
    wanted = {"f32": "fp32", "qs8": "qcint8", "qs8_pt": "qint8", "qd8": "qdint8", "8da4w": "qbint4"}[recipe]
    assert wanted in datatypes


def _flatc_json(payload: bytes) -> dict[str, Any]:
    """The payload's XNNGraph decompiled by the flatc that executorch ships, with schema.fbs."""
    import executorch.backends.xnnpack.serialization as serialization
    from executorch.exir._serialize._flatbuffer import _flatc_decompile

    offset, size = int.from_bytes(payload[10:14], "little"), int.from_bytes(payload[14:18], "little")
    with tempfile.TemporaryDirectory() as tmp:
        schema = Path(tmp, "schema.fbs")
        schema.write_bytes(importlib.resources.files(serialization).joinpath("schema.fbs").read_bytes())
        Path(tmp, "graph.bin").write_bytes(payload[offset : offset + size])
        _flatc_decompile(tmp, str(schema), str(Path(tmp, "graph.bin")))
        text = Path(tmp, "graph.json").read_bytes()
    return json.loads(re.sub(rb":\s*(-?inf)\b", rb': "\1"', text))  # flatc writes bare inf


OPERAND = re.compile(r"input\d?_id|query_id|key_id|value_id|scale_id|mask_id")


@pytest.mark.parametrize("name", PROGRAMS)
def test_census_reader_agrees_with_flatc(name: str) -> None:
    for _, payload in zoo.delegate_payloads((DELEGATED / f"{name}.pte").read_bytes()):
        graph, flat = zoo.read_xnn_payload(payload), _flatc_json(payload)
        assert [n.kind for n in graph.nodes] == [n["xnode_union_type"] for n in flat["xnodes"]]
        for node, want in zip(graph.nodes, flat["xnodes"], strict=True):
            body = want["xnode_union"]
            assert list(node.inputs) == [v for k, v in body.items() if OPERAND.fullmatch(k)]
            assert list(node.outputs) == [v for k, v in body.items() if k.startswith("output")]
            assert (node.filter, node.bias, node.flags) == (body.get("filter_id"), body.get("bias_id"), body["flags"])
            bounds = want.get("output_min_max")
            assert node.output_min_max == (
                None if bounds is None else (float(bounds["output_min"]), float(bounds["output_max"]))
            )
        assert len(graph.values) == len(flat["xvalues"])
        for value in flat["xvalues"]:
            body, quant = value["xvalue_union"], "none"
            if value["xvalue_union_type"] == "XNNQuantizedTensorValue":
                body, quant = body["tensor_value"], body["quant_params_type"]
            mine = graph.values[body["id_out"]]
            assert mine.datatype == body["datatype"].removeprefix("xnn_datatype_")
            assert list(mine.dims) == body["dims"]
            assert (mine.constant, mine.quant) == (body["constant_buffer_idx"] != 0, quant)
        assert (list(graph.input_ids), list(graph.output_ids)) == (flat["input_ids"], flat["output_ids"])


def test_census_is_current() -> None:
    census = zoo.census_markdown([zoo.census_of(DELEGATED / f"{name}.pte") for name in PROGRAMS])
    assert census == (DELEGATED / "CENSUS.md").read_text(), "run: python -m models.export_delegated --census-only"
