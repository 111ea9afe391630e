"""The zoo's programs beyond one call on inline weights (models/llm, models/data, models/methods): each method,
each decode step, with its data files, as the files beside it name them, runs on our runtime as ExecuTorch ran
it (`bot zoo`'s check), and its static op list is gen_oplist's. `bot zoo` runs every bundled folder and fails
on a mismatch."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from bot.commands import zoo
from bot.feeds import FORWARD, classify
from tests.conftest import REPO_ROOT
from tests.test_oplist import assert_static_oplist_is_gen_oplist

FOLDERS = ("llm", "data", "methods")
MODELS = REPO_ROOT / "models"
PROGRAMS = sorted(p.relative_to(MODELS).as_posix() for f in FOLDERS for p in (MODELS / f).glob("*.pte"))


def test_the_programs_are_the_exporters_lists() -> None:
    from models.export_llm import RECIPES
    from models.export_programs import PROGRAMS as EXPORTED

    exported = [f"llm/{n}.pte" for n in RECIPES] + [f"{d.name}/{n}.pte" for n, (d, _) in EXPORTED.items()]
    assert sorted(PROGRAMS) == sorted(exported)


def test_their_files_name_data_methods_steps_and_references() -> None:
    llm = MODELS / "llm"
    found = classify("llama_q8da4w_ptd", llm.iterdir())
    assert found.data == (llm / "llama_q8da4w_ptd.ptd",) and found.steps == 4
    assert [len(step) for step in found.expected[FORWARD]] == [1, 1, 1, 1]
    assert found.expected[FORWARD][2] == (llm / "llama_q8da4w_ptd.step2.expected0.npy",)
    methods = classify("autoencoder", (MODELS / "methods").iterdir())
    assert sorted(methods.inputs) == sorted(methods.expected) == ["decode", "encode", FORWARD]
    assert methods.steps == 1 and all(len(steps) == 1 for steps in methods.expected.values())


@pytest.mark.parametrize("name", PROGRAMS)
def test_every_method_and_step_equals_executorch(name: str, runner: Path, tmp_path: Path) -> None:
    model = MODELS / name
    checked = zoo.check(runner, model, tmp_path)
    assert checked and all(not c.problem for c in checked), checked
    assert len(checked) == len(classify(model.stem, model.parent.glob(f"{model.stem}.*")).expected)


@pytest.mark.parametrize("name", PROGRAMS)
def test_static_oplist_is_gen_oplist(name: str, tmp_path: Path) -> None:
    assert_static_oplist_is_gen_oplist(MODELS / name, tmp_path)


def test_a_reference_our_runtime_misses_is_a_finding(runner: Path, tmp_path: Path) -> None:
    """One step of one LLM's references moved off what ExecuTorch gave: that step's check fails, by name."""
    folder = tmp_path / "llm"
    folder.mkdir()
    for path in (MODELS / "llm").glob("llama_sdpa.*"):
        shutil.copy2(path, folder / path.name)
    reference = folder / "llama_sdpa.step2.expected0.npy"
    np.save(reference, np.load(reference) + 0.5)
    (checked,) = zoo.check(runner, folder / "llama_sdpa.pte", tmp_path / "out")
    assert checked.problem == "MISMATCH" and checked.worst is not None and checked.worst >= 0.5
    reference.write_bytes(b"not an npy")
    (checked,) = zoo.check(runner, folder / "llama_sdpa.pte", tmp_path / "out")
    assert checked.problem == "llama_sdpa.step2.expected0.npy is not a usable .npy"
    (folder / "llama_sdpa.step1.input0.npy").unlink()
    (checked,) = zoo.check(runner, folder / "llama_sdpa.pte", tmp_path / "out")
    assert checked.worst is None and checked.problem
