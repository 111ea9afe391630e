"""How the runtime is compared with ExecuTorch: 1e-4 max abs error for outputs of
magnitude <= 1, relative error otherwise."""

from __future__ import annotations

import numpy as np

TOLERANCE = 1e-4


def max_error(actual: np.ndarray, expected: np.ndarray) -> float:
    if actual.dtype == np.bool_ or expected.dtype == np.bool_:
        return float(np.count_nonzero(actual != expected))
    a = actual.astype(np.float64)
    e = expected.astype(np.float64)
    scale = np.maximum(np.abs(e), 1.0)  # abs error where |e| <= 1, relative beyond
    return float(np.max(np.abs(a - e) / scale)) if e.size else 0.0
