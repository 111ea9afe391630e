"""Every zoo model runs on the native runtime and matches ExecuTorch's own runtime."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from bot.build.compare import TOLERANCE, max_error
from bot.build.runner import run_model
from tests.conftest import ZOO_DIR, ZOO_MODELS, zoo_expected, zoo_inputs


def test_zoo_has_at_least_eight_small_models() -> None:
    assert len(ZOO_MODELS) >= 8
    for name in ZOO_MODELS:
        assert (ZOO_DIR / f"{name}.pte").stat().st_size < 1_000_000
        assert zoo_inputs(name) and zoo_expected(name), name


@pytest.mark.parametrize("name", ZOO_MODELS)
def test_model_matches_executorch(name: str, runner: Path, tmp_path: Path) -> None:
    result = run_model(runner, ZOO_DIR / f"{name}.pte", zoo_inputs(name), tmp_path)
    expected = [np.load(p) for p in zoo_expected(name)]
    assert len(result.outputs) == len(expected)
    for actual, want in zip(result.outputs, expected, strict=True):
        assert actual.shape == want.shape
        assert actual.dtype == want.dtype
        assert max_error(actual, want) <= TOLERANCE


@pytest.mark.parametrize("name", ZOO_MODELS)
def test_generated_inputs_are_deterministic(name: str, runner: Path, tmp_path: Path) -> None:
    first = run_model(runner, ZOO_DIR / f"{name}.pte", [], tmp_path / "a")
    second = run_model(runner, ZOO_DIR / f"{name}.pte", [], tmp_path / "b")
    for a, b in zip(first.outputs, second.outputs, strict=True):
        assert np.array_equal(a, b, equal_nan=True)
