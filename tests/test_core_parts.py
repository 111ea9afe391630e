"""The core's optional parts (native/core/src/features.h): the .ptd reader, dynamic int lists,
non-contiguous dim orders, control flow, constants inside the flatbuffer and stored mutable data. A
runtime built without one refuses a program that needs it in one line saying what it lacks, and runs
programs that need none of them as before; bot/selection/features.py reads which parts a program needs,
and the bot builds a target's runtime with just the parts its programs need."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from bot import config
from bot.build import cmake, runner
from bot.build.compare import TOLERANCE, max_error
from bot.errors import BotError
from bot.selection import features, pte
from tests import method_programs as mp
from tests.conftest import REPO_ROOT

DATA_DIR = REPO_ROOT / "models" / "data"
ZOO_DIR = REPO_ROOT / "models" / "zoo"
NO_EXTERNAL_DATA = "this runtime was built without external data (.ptd) support"
NO_DYNAMIC_LISTS = "this runtime was built without dynamic list support"
NO_DIM_ORDERS = "this runtime was built without dim order (channels-last) support"
NO_CONTROL_FLOW = "this runtime was built without control flow support"
NO_INLINE_CONSTANTS = "this runtime was built without inline constant support"
NO_MUTABLE_DATA = "this runtime was built without mutable data support"


@pytest.fixture(scope="module")
def bare() -> Path:
    """Every op, no optional part of the core: the kernels' objects are the all-ops build's."""
    options = {option: "OFF" for option in features.CMAKE_OPTIONS.values()}
    return cmake.runner_path(cmake.build(cmake.with_options(cmake.ALL_OPS, options), targets=("executor_runner",)))


@pytest.fixture(scope="module")
def state_programs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, mp.Exported]:
    return mp.export(tmp_path_factory.mktemp("state"))


def load_error(binary: Path, model: Path, inputs: list[Path], out: Path, data: tuple[Path, ...] = ()) -> str:
    with pytest.raises(BotError) as raised:
        runner.run_model(binary, model, inputs, out, data=data)
    message = raised.value.message
    assert "\n" not in message
    return message


def run_output(binary: Path, folder: Path, name: str, out: Path, data: tuple[Path, ...] = ()) -> np.ndarray:
    runner.run_model(binary, folder / f"{name}.pte", [folder / f"{name}.input0.npy"], out, data=data)
    return np.load(out / "output0.npy")


def test_the_parts_each_program_needs() -> None:
    assert features.needed_by([ZOO_DIR / "mobilenet_v2.pte", DATA_DIR / "mobilenet_v2_ptd.pte"]) == frozenset()
    for name in ("encoder_dynamic_seq", "pair_pooler_dynamic"):
        assert features.needed_by([ZOO_DIR / f"{name}.pte"]) == {features.DYNAMIC_LISTS}
    with pytest.raises(pte.PteError, match="not an ExecuTorch program"):
        features.needed(b"\0" * 64)


def test_a_program_with_external_weights_is_refused_at_load(bare: Path, tmp_path: Path) -> None:
    name = "mobilenet_v2_ptd"
    message = load_error(bare, DATA_DIR / f"{name}.pte", [DATA_DIR / f"{name}.input0.npy"], tmp_path)
    assert message.startswith(f"{name}.pte: tensor value ") and message.endswith(NO_EXTERNAL_DATA)


def test_its_data_file_is_refused_rather_than_ignored(bare: Path, tmp_path: Path) -> None:
    name = "mobilenet_v2_ptd"
    data = (DATA_DIR / f"{name}.ptd",)
    message = load_error(bare, DATA_DIR / f"{name}.pte", [DATA_DIR / f"{name}.input0.npy"], tmp_path, data)
    assert f"{name}.ptd" in message and message.endswith(NO_EXTERNAL_DATA)


def test_the_same_program_runs_where_the_reader_is_built_in(runner: Path, tmp_path: Path) -> None:
    name = "mobilenet_v2_ptd"
    result = run_output(runner, DATA_DIR, name, tmp_path, (DATA_DIR / f"{name}.ptd",))
    assert max_error(result, np.load(DATA_DIR / f"{name}.expected0.npy")) <= TOLERANCE


def test_a_program_with_dynamic_lists_is_refused_at_load(bare: Path, tmp_path: Path) -> None:
    name = "encoder_dynamic_seq"
    message = load_error(bare, ZOO_DIR / f"{name}.pte", [ZOO_DIR / f"{name}.input0.npy"], tmp_path)
    assert message.startswith(f"{name}.pte: ") and message.endswith(NO_DYNAMIC_LISTS)


def test_a_program_needing_no_part_runs_without_them(bare: Path, tmp_path: Path) -> None:
    result = run_output(bare, ZOO_DIR, "mobilenet_v2", tmp_path)
    assert max_error(result, np.load(ZOO_DIR / "mobilenet_v2.expected0.npy")) <= TOLERANCE


def test_stored_mutable_state_is_refused_and_state_without_it_runs(
    bare: Path, state_programs: dict[str, mp.Exported], tmp_path: Path
) -> None:
    initialized, plain = state_programs["state_init"], state_programs["state"]
    assert features.needed_by([initialized.program]) == {features.MUTABLE_DATA}
    assert features.needed_by([plain.program]) == frozenset()
    message = load_error(bare, initialized.program, list(initialized.inputs["forward"]), tmp_path / "init")
    assert message.startswith("state_init.pte: tensor value ") and message.endswith(NO_MUTABLE_DATA)
    result = runner.run_model(bare, plain.program, list(plain.inputs["forward"]), tmp_path / "plain", steps=plain.steps)
    for ours, theirs in zip(result.step_outputs, plain.expected["forward"], strict=True):
        for a, b in zip(ours, theirs, strict=True):
            np.testing.assert_allclose(a, b, atol=1e-4, rtol=1e-4)


def test_the_bot_keeps_just_the_parts_a_targets_programs_need() -> None:
    cfg = config.load(REPO_ROOT)
    targets = {t.name: t for t in cfg.targets}
    assert targets["multi-app"].external_data and not targets["dynamic-app"].external_data
    assert features.DYNAMIC_LISTS in features.needed_by(REPO_ROOT / m.path for m in targets["dynamic-app"].models)
    flavour = cmake.selective_flavour(targets["dynamic-app"].yaml, core_parts=frozenset({features.DYNAMIC_LISTS}))
    assert flavour.options["SB_EXTERNAL_DATA"] == flavour.options["SB_MUTABLE_DATA"] == "OFF"
    assert "SB_DYNAMIC_LISTS" not in flavour.options
    assert "SB_EXTERNAL_DATA" not in cmake.selective_flavour(targets["dynamic-app"].yaml).options


def test_a_channels_last_program_is_refused_and_its_contiguous_twin_runs(bare: Path, tmp_path: Path) -> None:
    pytest.importorskip("executorch")
    from tests import test_dim_order as dim_order

    program, inputs = dim_order.cnn_program()
    assert features.needed(program.buffer) == {features.DIM_ORDERS}
    (tmp_path / "last").mkdir()
    (tmp_path / "twin").mkdir()
    model, paths = dim_order.write_program(program.buffer, inputs, tmp_path / "last")
    message = load_error(bare, model, paths, tmp_path / "last" / "out")
    assert message.startswith("model.pte: tensor value ") and "dim order [0, 2, 3, 1]" in message
    assert message.endswith(NO_DIM_ORDERS)
    contiguous = tuple(t.contiguous() for t in inputs)
    twin = dim_order.export(dim_order.SmallCNN().eval(), contiguous)
    assert features.needed(twin.buffer) == frozenset()
    reference = dim_order.executorch_outputs(twin.buffer, contiguous)
    dim_order.assert_close(dim_order.our_outputs(bare, twin.buffer, contiguous, tmp_path / "twin"), reference)


def test_a_program_with_control_flow_is_refused_at_load(bare: Path, tmp_path: Path) -> None:
    pytest.importorskip("executorch")
    from tests import crafted_programs

    model = tmp_path / "looping.pte"
    model.write_bytes(crafted_programs.looping_jump())
    assert features.needed(model.read_bytes()) == {features.CONTROL_FLOW}
    assert features.needed((ZOO_DIR / "mha_block.pte").read_bytes()) == frozenset()
    message = load_error(bare, model, [ZOO_DIR / "mha_block.input0.npy"], tmp_path / "out")
    assert message == f"looping.pte: instruction 0 jumps: {NO_CONTROL_FLOW}"


def test_constants_inside_the_flatbuffer_are_refused_and_run_where_built_in(
    bare: Path, runner: Path, tmp_path: Path
) -> None:
    """gru written as older exports wrote programs: its constants inside the flatbuffer (constant_buffer),
    no constant segment."""
    pytest.importorskip("executorch")
    from executorch.exir._serialize import _program

    from tests import crafted_programs

    model = tmp_path / "gru_inline.pte"
    model.write_bytes(bytes(_program._program_to_flatbuffer(crafted_programs.zoo_program("gru").program).data))
    assert features.needed(model.read_bytes()) == {features.INLINE_CONSTANTS}
    inputs = [ZOO_DIR / "gru.input0.npy"]
    message = load_error(bare, model, inputs, tmp_path / "bare")
    assert message.startswith("gru_inline.pte: constant ") and message.endswith(NO_INLINE_CONSTANTS)
    runner_result = runner_output(runner, model, inputs, tmp_path / "all")
    assert max_error(runner_result, np.load(ZOO_DIR / "gru.expected0.npy")) <= TOLERANCE


def runner_output(binary: Path, model: Path, inputs: list[Path], out: Path) -> np.ndarray:
    runner.run_model(binary, model, inputs, out)
    return np.load(out / "output0.npy")
