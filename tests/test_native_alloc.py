"""Method::execute performs no heap allocation, for every zoo model (dynamic ones at
input shapes other than their bounds, so their kernels resize outputs)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.conftest import ZOO_DIR, ZOO_MODELS, zoo_inputs


def test_execute_does_not_allocate(all_ops_build: Path) -> None:
    models = [str(ZOO_DIR / f"{name}.pte") for name in ZOO_MODELS]
    # Bare models run on their planned (bound) shapes; with their inputs, dynamic
    # models run smaller, so set_input and every kernel resize on the way.
    with_inputs = [f"{ZOO_DIR / name}.pte=" + ",".join(map(str, zoo_inputs(name))) for name in ZOO_MODELS]
    proc = subprocess.run(
        [str(all_ops_build / "execute_alloc_test"), *models, *with_inputs], capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = [line.rsplit(" allocations_during_execute=", 1) for line in proc.stdout.splitlines()]
    assert [model for model, _ in lines] == models + models
    assert all(count == "0" for _, count in lines), lines
    assert any("dynamic" in model for model in models)
