"""Dynamic shapes: programs exported with torch.export.Dim run at any shape within their
bounds, matching ExecuTorch's runtime; prim ops run through real programs and are selected
like any op (kernels/prim); a shape past a bound, a build missing several ops, and one
missing a prim op the program calls, each fail with one line."""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pytest

from bot.build import cmake
from bot.build.compare import TOLERANCE, max_error
from bot.build.runner import run_model
from bot.errors import BotError
from bot.selection import kernel_library, oplist, pte
from tests.conftest import REPO_ROOT, ZOO_DIR, zoo_inputs

# (model, input dtype, shapes within the bounds the export gave its Dims)
SHAPES = {
    "cnn_dynamic_batch": ("float32", [(1, 3, 16, 16), (2, 3, 16, 16), (5, 3, 16, 16), (8, 3, 16, 16)]),
    "encoder_dynamic_seq": ("int64", [(1, 2), (1, 3), (1, 8), (1, 17), (1, 32)]),
    "pair_pooler_dynamic": ("float32", [(2, 2, 8), (2, 4, 8), (2, 12, 8), (2, 32, 8)]),
}
PRIM_OPS_USED = {
    "encoder_dynamic_seq": {"aten::sym_size.int", "executorch_prim::et_view.default"},
    "pair_pooler_dynamic": {
        "aten::sym_size.int",
        "executorch_prim::et_view.default",
        "executorch_prim::floordiv.Scalar",
        "executorch_prim::mul.Scalar",
        "executorch_prim::sub.Scalar",
    },
}
PRIM_LIBRARY = kernel_library.load_libraries([REPO_ROOT / "kernels" / "prim" / "functions.yaml"])
DYNAMIC_APP_YAML = REPO_ROOT / "apps" / "dynamic" / "selected_operators.yaml"


def make_input(dtype: str, shape: tuple[int, ...], seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if dtype == "int64":
        return rng.integers(0, 40, size=shape, dtype=np.int64)
    return rng.standard_normal(shape).astype(np.float32)


def executorch_outputs(model: Path, inputs: list[np.ndarray]) -> list[np.ndarray]:
    from executorch.runtime import Runtime

    from models.export import as_et_input

    method = Runtime.get().load_program(model).load_method("forward")
    return [out.detach().numpy() for out in method.execute([as_et_input(a) for a in inputs])]


def run_error(runner: Path, model: Path, inputs: list[Path], out: Path) -> str:
    with pytest.raises(BotError) as failure:
        run_model(runner, model, inputs, out)
    message = failure.value.message
    assert "\n" not in message
    return message


@pytest.mark.parametrize("name", sorted(PRIM_OPS_USED))
def test_programs_hold_the_prim_ops_they_exercise(name: str) -> None:
    ops = set(pte.load(ZOO_DIR / f"{name}.pte").plan("forward").operators)
    assert PRIM_OPS_USED[name] <= ops
    assert PRIM_OPS_USED[name] <= set(PRIM_LIBRARY)


def test_the_all_ops_runtime_registers_every_prim_op(runner: Path) -> None:
    proc = subprocess.run([str(runner), "--list-kernels"], capture_output=True, text=True, check=True)
    registered = {line.split("\t")[0] for line in proc.stdout.splitlines()}
    assert set(PRIM_LIBRARY) <= registered


@pytest.fixture(scope="module")
def runtime_without_floordiv(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, set[str]]:
    """The dynamic app's selective runtime (its checked-in yaml, which tracing wrote) less one prim op
    that pair_pooler_dynamic calls; encoder_dynamic_seq calls only others. With the prim ops it selects."""
    selection = oplist.load_ops_yaml(DYNAMIC_APP_YAML)
    kept = {op: info for op, info in selection.operators.items() if op != "executorch_prim::floordiv.Scalar"}
    assert len(kept) == len(selection.operators) - 1
    ops_yaml = tmp_path_factory.mktemp("sel") / "dynamic_without_floordiv.yaml"
    oplist.dump(oplist.SelectedOps(kept, {op: selection.et_kernel_metadata[op] for op in kept}), ops_yaml)
    runtime = cmake.runner_path(cmake.build(cmake.selective_flavour(ops_yaml, dtype_selective=False)))
    return runtime, set(kept) & set(PRIM_LIBRARY)


def test_a_selection_registers_just_the_prim_ops_it_lists(runtime_without_floordiv: tuple[Path, set[str]]) -> None:
    runtime, prim_ops = runtime_without_floordiv
    listed = subprocess.run([str(runtime), "--list-kernels"], capture_output=True, text=True, check=True).stdout
    assert {line.split("\t")[0] for line in listed.splitlines()} & set(PRIM_LIBRARY) == prim_ops
    assert prim_ops == PRIM_OPS_USED["pair_pooler_dynamic"] - {"executorch_prim::floordiv.Scalar"}


def test_a_program_calling_a_prim_op_its_runtime_did_not_select_fails_at_load_naming_it(
    runtime_without_floordiv: tuple[Path, set[str]], tmp_path: Path
) -> None:
    runtime, _ = runtime_without_floordiv
    name = "pair_pooler_dynamic"
    message = run_error(runtime, ZOO_DIR / f"{name}.pte", zoo_inputs(name), tmp_path / "out")
    assert message == f"{name}.pte: missing operator executorch_prim::floordiv.Scalar (needed by {name})"


def test_a_program_whose_prim_ops_are_selected_runs_on_that_runtime(
    runtime_without_floordiv: tuple[Path, set[str]], tmp_path: Path
) -> None:
    runtime, _ = runtime_without_floordiv
    name = "encoder_dynamic_seq"
    run_model(runtime, ZOO_DIR / f"{name}.pte", zoo_inputs(name), tmp_path / "out")
    expected = np.load(ZOO_DIR / f"{name}.expected0.npy")
    assert max_error(np.load(tmp_path / "out" / "output0.npy"), expected) <= TOLERANCE


@pytest.mark.export
@pytest.mark.parametrize("name", sorted(SHAPES))
def test_dynamic_model_matches_executorch_at_every_shape_within_its_bounds(
    name: str, runner: Path, tmp_path: Path
) -> None:
    model = ZOO_DIR / f"{name}.pte"
    dtype, shapes = SHAPES[name]
    for k, shape in enumerate(shapes):
        array = make_input(dtype, shape, seed=k)
        path = tmp_path / f"in{k}.npy"
        np.save(path, array)
        ours = run_model(runner, model, [path], tmp_path / f"out{k}").outputs
        theirs = executorch_outputs(model, [array])
        assert len(ours) == len(theirs) > 0
        for a, b in zip(ours, theirs, strict=True):
            assert a.shape == b.shape, (shape, a.shape, b.shape)
            assert max_error(a, b) <= TOLERANCE, shape


def test_one_runtime_runs_several_shapes_in_turn(runner: Path, tmp_path: Path) -> None:
    """Outputs take each run's shape: growing and shrinking again within the bound."""
    model = ZOO_DIR / "pair_pooler_dynamic.pte"
    for k, length in enumerate((4, 32, 2, 10)):
        path = tmp_path / f"in{k}.npy"
        np.save(path, make_input("float32", (2, length, 8), k))
        (out,) = run_model(runner, model, [path], tmp_path / f"out{k}").outputs
        assert out.shape == (2, 16)


def test_a_shape_past_the_bound_is_one_error_line(runner: Path, tmp_path: Path) -> None:
    big = tmp_path / "big.npy"
    np.save(big, make_input("float32", (9, 3, 16, 16), 0))
    message = run_error(runner, ZOO_DIR / "cnn_dynamic_batch.pte", [big], tmp_path / "out")
    bound = 8 * 3 * 16 * 16  # the batch Dim's max, in elements
    assert message == (
        f"cnn_dynamic_batch.pte: input 0 cannot take shape [9, 3, 16, 16]: beyond its bound of {bound} elements"
    )


def test_a_dynamic_input_keeps_its_rank(runner: Path, tmp_path: Path) -> None:
    flat = tmp_path / "flat.npy"
    np.save(flat, make_input("float32", (3, 16, 16), 0))
    message = run_error(runner, ZOO_DIR / "cnn_dynamic_batch.pte", [flat], tmp_path / "out")
    assert message.endswith("input 0 has rank 4, cannot take shape [3, 16, 16] (a resize keeps the rank)")


def test_a_static_input_keeps_its_shape(runner: Path, tmp_path: Path) -> None:
    other = tmp_path / "other.npy"
    np.save(other, make_input("float32", (1, 1, 8, 8), 0))
    message = run_error(runner, ZOO_DIR / "unet.pte", [other], tmp_path / "out")
    assert message == "unet.pte: input 0 has shape [1, 1, 8, 8], the model expects [1, 1, 16, 16]"


def test_a_shape_the_program_cannot_take_fails_in_the_kernel_that_finds_it(runner: Path, tmp_path: Path) -> None:
    """An odd length cannot be split into pairs: within the input bound, refused by a kernel."""
    odd = tmp_path / "odd.npy"
    np.save(odd, make_input("float32", (2, 5, 8), 0))
    message = run_error(runner, ZOO_DIR / "pair_pooler_dynamic.pte", [odd], tmp_path / "out")
    assert message.startswith("pair_pooler_dynamic.pte: ") and "shape" in message


@pytest.fixture(scope="module")
def runtime_without_cat(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, set[str]]:
    """A selective runtime with pair_pooler_dynamic's root ops but aten::cat.out (prim ops selected too)."""
    model = ZOO_DIR / "pair_pooler_dynamic.pte"
    selection = oplist.from_program(pte.load(model), "pair_pooler_dynamic")
    kept = {op: info for op, info in selection.operators.items() if op != "aten::cat.out"}
    ops_yaml = tmp_path_factory.mktemp("sel") / "pair_pooler_without_cat.yaml"
    oplist.dump(oplist.SelectedOps(kept, {op: selection.et_kernel_metadata[op] for op in kept}), ops_yaml)
    return cmake.runner_path(cmake.build(cmake.selective_flavour(ops_yaml, dtype_selective=False))), set(kept)


def test_load_error_lists_every_missing_op(runtime_without_cat: tuple[Path, set[str]], tmp_path: Path) -> None:
    """The root op left out and the ops kernels dispatch to (a root-only selection lacks them),
    in operator-table order, in one line."""
    runtime, _ = runtime_without_cat
    name = "pair_pooler_dynamic"
    message = run_error(runtime, ZOO_DIR / f"{name}.pte", zoo_inputs(name), tmp_path / "out")
    assert message == (
        f"{name}.pte: missing operators aten::mm.out (called by aten::addmm.out),"
        " aten::mul.Scalar_out (called by aten::addmm.out), aten::cat.out,"
        f" aten::div.Scalar_out (called by aten::mean.out) (needed by {name})"
    )


def test_a_long_list_of_missing_ops_is_cut_with_an_ellipsis(
    runtime_without_cat: tuple[Path, set[str]], tmp_path: Path
) -> None:
    runtime, selected = runtime_without_cat
    name = "encoder_dynamic_seq"
    message = run_error(runtime, ZOO_DIR / f"{name}.pte", zoo_inputs(name), tmp_path / "out")
    prefix = f"{name}.pte: missing operators "
    assert message.startswith(prefix) and message.endswith(f", … (needed by {name})")
    listed = message.removeprefix(prefix).removesuffix(f", … (needed by {name})").split(", ")
    program_ops = set(pte.load(ZOO_DIR / f"{name}.pte").plan("forward").operators)
    roots = [entry for entry in listed if " (called by " not in entry]
    assert len(listed) >= 3 and set(roots) <= program_ops - selected
