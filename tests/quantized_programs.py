"""The PT2E programs without a delegate (models/quantized, `python -m models.export_quantized`) and the
bad inputs the quantized kernels must refuse in one line: shared by tests/test_quantized_zoo.py,
tests/test_quantized_bad_input.py and the sanitizer tests."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from tests.conftest import REPO_ROOT

QUANTIZED_DIR = REPO_ROOT / "models" / "quantized"
PROGRAMS = sorted(p.stem for p in QUANTIZED_DIR.glob("*.pte"))
FIXTURES = REPO_ROOT / "tests" / "conformance" / "fixtures"


def inputs(name: str) -> list[Path]:
    return sorted(QUANTIZED_DIR.glob(f"{name}.input*.npy"), key=lambda p: int(p.stem.rsplit("input", 1)[1]))


def expected(name: str) -> list[Path]:
    return sorted(QUANTIZED_DIR.glob(f"{name}.expected*.npy"), key=lambda p: int(p.stem.rsplit("expected", 1)[1]))


@dataclass(frozen=True)
class BadInput:
    """A conformance fixture's program run with input `index` replaced by `value`: the kernel must refuse with
    an error line holding `message`."""

    name: str
    fixture: str
    index: int
    value: np.ndarray
    message: str

    def input_paths(self, work: Path) -> list[Path]:
        """The fixture's inputs, input `index` written to `work` with the bad value."""
        paths = sorted((FIXTURES / self.fixture).glob("input*.npy"), key=lambda p: int(p.stem[len("input") :]))
        bad = work / f"{self.name}.npy"
        np.save(bad, self.value)
        paths[self.index] = bad
        return paths

    def model(self) -> Path:
        return FIXTURES / self.fixture / "model.pte"


Q = "quantized_decomposed."
BAD_INPUTS = [
    BadInput(
        "embedding_index_past_the_table",
        f"{Q}embedding_byte.out-f32_u8_per_row",
        2,
        np.array([[5, 0, 2], [2, 3, 1]], dtype=np.int64),
        "index 5 out of range for 5 rows",
    ),
    BadInput(
        "embedding_negative_index",
        f"{Q}embedding_byte.dtype_out-f16_i8_f32_scales",
        2,
        np.array([[4, 0, 2], [2, -1, 1]], dtype=np.int64),
        "index -1 out of range for 5 rows",
    ),
    # ExecuTorch checks no index of its 2- and 4-bit lookups: it reads past the table.
    BadInput(
        "embedding_4bit_int_index_past_the_table",
        f"{Q}embedding_4bit.out-f32_u8_int_indices",
        2,
        np.array([[4, 0, 2], [2, 3, 1000]], dtype=np.int32),
        "index 1000 out of range for 5 rows",
    ),
    BadInput(
        "embedding_2bit_index_past_the_table",
        f"{Q}embedding_2bit.out-f32_u8_per_row",
        2,
        np.array([[4, 0, 2], [2, 3, 7]], dtype=np.int64),
        "index 7 out of range for 5 rows",
    ),
    BadInput(
        "quantize_zero_scale",
        f"{Q}quantize_per_tensor.Tensor_out-f32_i8_scale_tensor",
        1,
        np.array([0.0], dtype=np.float64),
        "is zero, too small or not finite",
    ),
    BadInput(
        "quantize_per_channel_zero_scale",
        f"{Q}quantize_per_channel.out-f32_u8_axis0",
        1,
        np.array([0.5, 0.0, 0.125], dtype=np.float64),
        "scale 0 (channel 1) is zero",
    ),
    BadInput(
        "quantize_infinite_scale",
        f"{Q}quantize_per_token.out-f16_i8_rows",
        1,
        np.array([[[0.5], [np.inf], [0.125]], [[1.0], [0.0625], [2.0]]], dtype=np.float64),
        "is zero, too small or not finite",
    ),
    BadInput(
        "choose_qparams_nan",
        f"{Q}choose_qparams.Tensor_out-f32_i8_mixed",
        0,
        np.full((4, 5), np.nan, dtype=np.float32),
        "no finite range (NaN)",
    ),
    BadInput(
        "dequantize_char_zero_point_outside_the_range",
        f"{Q}dequantize_per_token.out-i8_f32_rows",
        2,
        np.array([[[-3], [0], [1]], [[2], [-1], [500]]], dtype=np.int64),
        "zero point 500 (channel 5) is outside [-128, 127]",
    ),
]
