"""Selective runtimes: built from traced yamls they run their models; built from
root ops alone they refuse, at load, models whose kernels call other ops."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
import yaml

from bot.build import cmake
from bot.build.runner import run_model
from bot.errors import BotError
from bot.selection import oplist, pte, trace
from tests.conftest import ZOO_DIR, ZOO_MODELS, zoo_inputs


@pytest.fixture(scope="session")
def tracer() -> Path:
    return trace.tracer_runner()


@pytest.fixture(scope="session")
def traced(tracer: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Per-model traced yaml for every zoo model."""
    out = tmp_path_factory.mktemp("traced")
    paths = {}
    for name in ZOO_MODELS:
        selection = trace.trace_model(tracer, ZOO_DIR / f"{name}.pte", zoo_inputs(name), name)
        paths[name] = out / f"{name}.yaml"
        oplist.dump(selection, paths[name])
    return paths


def test_trace_records_transitive_ops_with_their_callers(traced: dict[str, Path]) -> None:
    sel = oplist.load(traced["mobilenet_v2"])
    static = oplist.from_program(pte.load(ZOO_DIR / "mobilenet_v2.pte"), "mobilenet_v2")
    transitive = {name: op for name, op in sel.operators.items() if not op.is_root_operator}
    assert transitive, "mobilenet_v2 uses composite kernels, so tracing must find transitive ops"
    assert set(transitive).isdisjoint(static.operators)
    for name, op in transitive.items():
        assert op.callers(), name
        assert all(caller in sel.operators for caller in op.callers())
        # a traced op carries the dtypes it ran with; one no run reached keeps all dtypes
        assert sel.dtypes(name) == ({"Float"} if op.traced else None)
    assert any(op.traced for op in transitive.values())


def test_declared_but_untraced_calls_are_selected_and_marked(traced: dict[str, Path]) -> None:
    """addmm may call mul.Scalar_out (alpha != 1); no zoo input takes that path."""
    sel = oplist.load(traced["gru"])
    op = sel.operators["aten::mul.Scalar_out"]
    assert not op.traced and not op.is_root_operator
    assert op.callers() == ("aten::addmm.out",)


@pytest.mark.parametrize("name", ZOO_MODELS)
def test_runtime_built_from_traced_yaml_matches_all_ops(
    name: str, traced: dict[str, Path], runner: Path, tmp_path: Path
) -> None:
    selective = cmake.runner_path(cmake.build(cmake.selective_flavour(traced[name], dtype_selective=True)))
    model, inputs = ZOO_DIR / f"{name}.pte", zoo_inputs(name)
    ours = run_model(selective, model, inputs, tmp_path / "selective")
    full = run_model(runner, model, inputs, tmp_path / "all")
    assert len(ours.outputs) == len(full.outputs) > 0
    for a, b in zip(ours.outputs, full.outputs, strict=True):
        assert np.array_equal(a, b, equal_nan=True)


def test_root_ops_only_runtime_fails_at_load_naming_op_and_caller(traced: dict[str, Path], tmp_path: Path) -> None:
    model = ZOO_DIR / "mobilenet_v2.pte"
    root_only = tmp_path / "mobilenet_v2.root.yaml"
    oplist.dump(oplist.from_program(pte.load(model), "mobilenet_v2"), root_only)
    runtime = cmake.runner_path(cmake.build(cmake.selective_flavour(root_only)))
    with pytest.raises(BotError) as failure:
        run_model(runtime, model, zoo_inputs("mobilenet_v2"), tmp_path / "out")
    # One line lists them all: "missing operators X (called by K), Y (called by L), … (needed by M)".
    message = failure.value.message
    assert re.search(r"missing operators .* \(needed by mobilenet_v2\)$", message), message
    pairs = re.findall(r"(\S+) \(called by (\S+)\)", message)
    assert len(pairs) >= 2, message
    full = oplist.load(traced["mobilenet_v2"])
    for missing, caller in pairs:
        assert missing in full.operators and not full.operators[missing].is_root_operator
        assert caller in full.operators[missing].callers()


def test_selection_sources_combine_as_a_union(tmp_path: Path) -> None:
    ops_yaml = tmp_path / "ops.yaml"
    oplist.dump(oplist.from_root_ops(["aten::relu.out"], "test"), ops_yaml)
    flavour = cmake.Flavour("union", {"SELECT_OPS_YAML": str(ops_yaml), "SELECT_OPS_LIST": "aten::add.out"})
    build_dir = cmake.build(flavour, targets=("runtime_size_probe",))
    selected = yaml.safe_load((build_dir / "sb_selected_kernels" / "selected_operators.yaml").read_text())
    assert set(selected["operators"]) == {"aten::relu.out", "aten::add.out"}
    registration = (build_dir / "sb_selected_kernels" / "register_kernels.cpp").read_text()
    assert registration.count("&::sb::kernels::") == 2


def test_unimplemented_selected_op_fails_the_build_naming_it(tmp_path: Path) -> None:
    flavour = cmake.Flavour("bad", {"SELECT_OPS_LIST": "aten::relu.out,aten::frobnicate.out"})
    with pytest.raises(BotError, match=r"no kernel library implements aten::frobnicate\.out"):
        cmake.build(flavour, targets=("runtime_size_probe",), build_dir=tmp_path / "b")


def test_dtype_selection_compiles_out_unused_dtypes(tmp_path: Path) -> None:
    """relu kept for float only is smaller than relu with every dtype it implements."""
    float_only = tmp_path / "relu_float.yaml"
    sel = oplist.from_root_ops(["aten::relu.out"], "test")
    oplist.dump(oplist.SelectedOps(sel.operators, {"aten::relu.out": ("v1/6;0,1|6;0,1|6;0,1",)}), float_only)
    sizes = {}
    for dtype_selective in (True, False):
        flavour = cmake.selective_flavour(float_only, dtype_selective=dtype_selective)
        build_dir = cmake.build(flavour, targets=("runtime_size_probe",))
        sizes[dtype_selective] = text_size(build_dir / "runtime_size_probe")
        header = (build_dir / "sb_selected_kernels" / "selected_dtypes.h").read_text()
        assert ('"aten::relu.out")) return type == ScalarType::kFloat;' in header) == dtype_selective
    assert sizes[True] < sizes[False]


def text_size(binary: Path) -> int:
    from elftools.elf.elffile import ELFFile

    with binary.open("rb") as f:
        return ELFFile(f).get_section_by_name(".text").data_size


def test_traced_only_selection_loads_only_on_a_lenient_build(runner: Path, tmp_path: Path) -> None:
    """config `include: traced`: addmm's untaken mul.Scalar_out call is left out of the selection."""
    model, inputs = ZOO_DIR / "gru.pte", zoo_inputs("gru")
    selection = trace.trace_model(trace.tracer_runner(), model, inputs, "gru", include_reachable=False)
    assert "aten::mul.Scalar_out" not in selection.operators
    traced_only = tmp_path / "gru.traced-only.yaml"
    oplist.dump(selection, traced_only)

    strict = cmake.runner_path(cmake.build(cmake.selective_flavour(traced_only)))
    with pytest.raises(
        BotError, match=r"missing operator aten::mul\.Scalar_out \(needed by gru, called by aten::addmm"
    ):
        run_model(strict, model, inputs, tmp_path / "strict")

    lenient = cmake.runner_path(cmake.build(cmake.selective_flavour(traced_only, lenient_calls=True)))
    ours = run_model(lenient, model, inputs, tmp_path / "lenient")
    full = run_model(runner, model, inputs, tmp_path / "all")
    assert all(np.array_equal(a, b) for a, b in zip(ours.outputs, full.outputs, strict=True))
