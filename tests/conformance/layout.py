"""Where the conformance fixtures live and what each one holds (no torch needed).

    fixtures/<case id>/case.json      op, name, family, dtype, tags, input and output dtypes
    fixtures/<case id>/model.pte      the single-op program, exported with the real executorch package
    fixtures/<case id>/input<i>.npy   the inputs
    fixtures/<case id>/expected<i>.npy  ExecuTorch's runtime's outputs
    fixtures/<case id>/refused.txt    instead of expected*.npy: ExecuTorch's runtime refused, its one-line reason
    fixtures/<case id>/aten<i>.npy    only where eager PyTorch (ATen) disagrees with ExecuTorch's runtime
    fixtures/<case id>/unexpressible.txt  instead of model.pte and outputs: why torch.export / to_edge
                                          cannot express the case (no program holds the op in that dtype)

dtypes in .npy: Half as `<f2`, bool as `|b1`, integers as themselves; NumPy has no
bfloat16, so BFloat16 tensors are stored as float32 holding exactly representable
values (the runner converts inputs exactly and writes BFloat16 outputs as float32).
ComplexFloat and ComplexDouble are `<c8` and `<c16`; NumPy has no complex32, so ComplexHalf
tensors are stored as float16 (re, im) pairs in an added last dim of 2 (the same bytes; the
runner reads and writes them so).
case.json keeps the real dtypes.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
FIXTURES_DIR = HERE / "fixtures"
CASES_DIR = HERE / "cases"
REPO_ROOT = HERE.parent.parent

# Column order of OPS.md and the short names cases use as name prefixes (spec.SHORT).
DTYPES = ("f32", "f64", "f16", "bf16", "u8", "i8", "i16", "i32", "i64", "b", "c32", "c64", "c128")
DTYPE_NAMES = {
    "f32": "Float", "f64": "Double", "f16": "Half", "bf16": "BFloat16", "u8": "Byte", "i8": "Char",
    "i16": "Short", "i32": "Int", "i64": "Long", "b": "Bool",
    "c32": "ComplexHalf", "c64": "ComplexFloat", "c128": "ComplexDouble",
}  # fmt: skip
# The complex columns: only the few ops that take complex tensors have cells in them (OPS.md).
COMPLEX_DTYPES = ("c32", "c64", "c128")


@dataclass(frozen=True)
class Fixture:
    path: Path
    meta: dict[str, Any]

    @property
    def id(self) -> str:
        return self.path.name

    @property
    def op(self) -> str:
        return str(self.meta["op"])

    @property
    def dtype(self) -> str:
        return str(self.meta["dtype"])

    @property
    def refused(self) -> str | None:
        """ExecuTorch's runtime's reason for refusing this case, or None when it computed it."""
        path = self.path / "refused.txt"
        return path.read_text().strip() if path.is_file() else None

    @property
    def unexpressible(self) -> str | None:
        """Why no ExecuTorch program holds this case (torch.export / to_edge cannot express it), or None."""
        path = self.path / "unexpressible.txt"
        return path.read_text().strip() if path.is_file() else None

    def inputs(self) -> list[Path]:
        return [self.path / f"input{i}.npy" for i in range(len(self.meta["inputs"]))]

    def expected(self) -> list[Path]:
        return [self.path / f"expected{i}.npy" for i in range(len(self.meta["outputs"]))]

    def aten(self) -> list[Path]:
        """ATen's outputs where they differ from ExecuTorch's runtime's (else empty)."""
        paths = [self.path / f"aten{i}.npy" for i in range(len(self.meta["outputs"]))]
        return paths if paths and all(p.is_file() for p in paths) else []


def fixtures(root: Path = FIXTURES_DIR) -> list[Fixture]:
    """Every exported fixture, sorted by id."""
    found = []
    for meta_path in sorted(root.glob("*/case.json")):
        found.append(Fixture(meta_path.parent, json.loads(meta_path.read_text())))
    return found


def families(root: Path = CASES_DIR) -> list[str]:
    """The case families: the modules of cases/ (each defines CASES)."""
    return sorted(p.stem for p in root.glob("*.py") if not p.stem.startswith("_"))
