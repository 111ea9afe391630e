"""Method::execute performs no heap allocation, for every zoo model."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.conftest import ZOO_DIR, ZOO_MODELS


def test_execute_does_not_allocate(all_ops_build: Path) -> None:
    models = [str(ZOO_DIR / f"{name}.pte") for name in ZOO_MODELS]
    proc = subprocess.run([str(all_ops_build / "execute_alloc_test"), *models], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    counts = dict(line.rsplit(" allocations_during_execute=", 1) for line in proc.stdout.splitlines())
    assert len(counts) == len(models)
    assert all(count == "0" for count in counts.values()), counts
