"""Fresh exports with the real executorch package run on the native runtime.

Needs the `export` extra (torch==2.13.0, executorch==1.5.1); CI installs it.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from bot.build.compare import TOLERANCE, max_error
from bot.build.runner import run_model
from models import export

pytestmark = pytest.mark.export


# One real architecture per library: the export path through torchvision's and transformers' own classes.
FRESH = (*sorted(export.ZOO), "tv_regnet", "hf_bert")


@pytest.mark.parametrize("name", FRESH)
def test_fresh_export_runs_and_matches_executorch(name: str, runner: Path, tmp_path: Path) -> None:
    pte = export.export(name, tmp_path)
    inputs = sorted(tmp_path.glob(f"{name}.input*.npy"))
    expected = sorted(tmp_path.glob(f"{name}.expected*.npy"))
    result = run_model(runner, pte, inputs, tmp_path / "out")
    assert len(result.outputs) == len(expected) > 0
    for actual, want in zip(result.outputs, expected, strict=True):
        assert max_error(actual, np.load(want)) <= TOLERANCE


def test_fresh_delegated_export_runs_and_matches_executorch(runner: Path, tmp_path: Path) -> None:
    """The all-ops runtime registers XnnpackBackend (its selection holds the xnnpack:: node kinds): a
    program exported today with the XNNPACK partitioner runs and matches ExecuTorch with XNNPACK."""
    model, inputs = export.build("mobilenet_v3")
    pte = tmp_path / "delegated.pte"
    pte.write_bytes(export.to_delegated_pte(model, inputs))
    for i, tensor in enumerate(inputs):
        np.save(tmp_path / f"input{i}.npy", tensor.numpy())
    result = run_model(runner, pte, sorted(tmp_path.glob("input*.npy")), tmp_path / "out")
    want = export.reference_outputs(pte, inputs)
    assert len(result.outputs) == len(want) > 0
    for actual, expected in zip(result.outputs, want, strict=True):
        assert max_error(actual, expected) <= TOLERANCE
