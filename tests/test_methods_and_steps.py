"""Every method and every step (tests/method_programs.py): each method of a multi-method program, and
each step of a program whose mutable buffers carry over between executes of one loaded method, match
ExecuTorch's runtime; tracing covers every method and step; execute stays off the heap across steps;
inputs are found by name as bot/feeds.py has it, from the config too."""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pytest

from bot import config as config_module
from bot.build import runner as runner_module
from bot.feeds import Feeds, classify
from bot.selection import pte, trace
from tests import method_programs as mp
from tests.test_oplist import assert_static_oplist_is_gen_oplist


@pytest.fixture(scope="module")
def programs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, mp.Exported]:
    return mp.export(tmp_path_factory.mktemp("methods"))


def _close(ours: list[np.ndarray], theirs: tuple[np.ndarray, ...]) -> None:
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs, strict=True):
        np.testing.assert_allclose(a, b, atol=1e-4, rtol=1e-4)


@pytest.mark.parametrize("method", ["forward", "encode", "decode"])
def test_every_method_equals_executorch(
    method: str, programs: dict[str, mp.Exported], runner: Path, tmp_path: Path
) -> None:
    program = programs["multi"]
    result = runner_module.run_model(runner, program.program, list(program.inputs[method]), tmp_path, method=method)
    _close(result.outputs, program.expected[method][0])


@pytest.mark.parametrize("name", ["state", "state_init"])
def test_every_step_equals_executorch(
    name: str, programs: dict[str, mp.Exported], runner: Path, tmp_path: Path
) -> None:
    program = programs[name]
    assert program.steps >= 3
    result = runner_module.run_model(
        runner, program.program, list(program.inputs["forward"]), tmp_path, steps=program.steps
    )
    assert len(result.step_outputs) == program.steps
    for ours, theirs in zip(result.step_outputs, program.expected["forward"], strict=True):
        _close(ours, theirs)
    # The state moved: a runtime that reset its buffers would repeat step 0's running sum.
    assert not np.allclose(result.step_outputs[0][0], result.step_outputs[-1][0])


def test_wrong_number_of_step_inputs_is_one_line(programs: dict[str, mp.Exported], runner: Path) -> None:
    program = programs["state"]
    proc = subprocess.run(
        [str(runner), "--model", str(program.program), "--steps", "3", "--input", str(program.inputs["forward"][0])],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 1
    assert proc.stderr.strip().splitlines() == [
        "error: state takes 2 inputs: give 2 (every step's) or 6 (each step's), not 1"
    ]


def test_execute_does_not_allocate_across_steps_and_methods(
    programs: dict[str, mp.Exported], all_ops_build: Path
) -> None:
    specs = []
    for name in ("state", "state_init"):
        state = programs[name]
        paths = [str(p) for p in state.inputs["forward"]]
        specs.append(f"{state.program}=" + ";".join(",".join(paths[k : k + 2]) for k in range(0, len(paths), 2)))
    multi = programs["multi"]
    specs += [f"{multi.program}#{m}=" + ",".join(map(str, multi.inputs[m])) for m in ("forward", "encode", "decode")]
    proc = subprocess.run([str(all_ops_build / "execute_alloc_test"), *specs], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert [line.rsplit("=", 1)[1] for line in proc.stdout.splitlines()] == ["0"] * len(specs)


@pytest.mark.parametrize("name", ["multi", "state"])
def test_static_oplist_of_every_method_equals_gen_oplist(
    name: str, programs: dict[str, mp.Exported], tmp_path: Path
) -> None:
    assert_static_oplist_is_gen_oplist(programs[name].program, tmp_path)


def test_tracing_runs_every_method_and_step(programs: dict[str, mp.Exported]) -> None:
    tracer = trace.tracer_runner()
    multi = programs["multi"]
    feeds = Feeds(method_inputs=tuple((m, multi.inputs[m]) for m in ("encode", "decode")))
    traced = trace.trace_model(tracer, multi.program, list(multi.inputs["forward"]), "multi", feeds=feeds)
    plans = pte.load(multi.program).plans
    assert {p.name for p in plans} == {"forward", "encode", "decode"}
    # Every method's ops ran (root ops seen by the tracer), not only forward's.
    for plan in plans:
        for op in plan.operators:
            assert traced.operators[op].is_root_operator, (plan.name, op)
    state = programs["state"]
    stepped = trace.trace_model(
        tracer, state.program, list(state.inputs["forward"]), "state", feeds=Feeds(steps=state.steps)
    )
    assert "aten::index_put.out" in stepped.operators


def test_inputs_data_and_steps_are_found_by_name(programs: dict[str, mp.Exported], tmp_path: Path) -> None:
    folder = programs["multi"].program.parent
    found = classify("multi", folder.iterdir())
    assert found.inputs["forward"] == programs["multi"].inputs["forward"]
    assert found.inputs["encode"] == programs["multi"].inputs["encode"]
    assert found.steps == 1
    stepped = classify("state", folder.iterdir())
    assert stepped.steps == mp.STEPS
    assert stepped.inputs["forward"] == programs["state"].inputs["forward"]
    data = classify("m", [Path("m.ptd"), Path("m.weights.ptd"), Path("mm.ptd"), Path("m.xptd")]).data
    assert data == (Path("m.ptd"), Path("m.weights.ptd"))


def test_config_model_entry_names_data_methods_and_steps(tmp_path: Path) -> None:
    models = tmp_path / "models"
    models.mkdir()
    for name in ("lm.pte", "lm.step0.input0.npy", "lm.step1.input0.npy", "lm.ptd", "lm.encode.input0.npy", "w.ptd"):
        (models / name).write_bytes(b"x")
    data = {
        "version": 1,
        "targets": {
            "app": {
                "yaml": "app.yaml",
                "models": ["models/lm.pte", {"path": "models/lm.pte", "data": ["models/w.ptd"], "steps": 5}],
            }
        },
    }
    cfg = config_module.from_dict(data, tmp_path)
    found, explicit = cfg.targets[0].models
    assert found.inputs == (Path("models/lm.step0.input0.npy"), Path("models/lm.step1.input0.npy"))
    assert found.feeds == Feeds(
        data=(Path("models/lm.ptd"),), method_inputs=(("encode", (Path("models/lm.encode.input0.npy"),)),), steps=2
    )
    assert explicit.feeds.data == (Path("models/w.ptd"),)
    assert explicit.feeds.steps == 5
