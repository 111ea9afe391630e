"""Every conformance fixture runs on our all-ops runtime and matches ExecuTorch's runtime.

One item per fixture (tests/conformance/fixtures/<case id>); the fixtures of the
items selected in a session run together, several at a time, and each item
asserts its own result. Judging rules and tolerances: check.py. Regenerate the
fixtures with `python -m tests.conformance.export`, the matrix with
`python -m tests.conformance.report`.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from tests.conformance import check
from tests.conformance.layout import FIXTURES_DIR, fixtures

FIXTURES = fixtures()
BY_ID = {f.id: f for f in FIXTURES}
MAX_FIXTURE_BYTES = 32 * 1024  # all fixtures are committed


@pytest.fixture(scope="session")
def conformance_results(request: pytest.FixtureRequest, runner: Path) -> dict[str, check.Result]:
    """Results of the fixtures this session selected, run together."""
    selected = []
    for item in request.session.items:
        callspec = getattr(item, "callspec", None)
        if item.name.startswith("test_fixture_matches_executorch") and callspec is not None:
            selected.append(BY_ID[callspec.params["fixture_id"]])
    return check.run_all(runner, selected)


@pytest.mark.parametrize("fixture_id", sorted(BY_ID))
def test_fixture_matches_executorch(
    fixture_id: str, conformance_results: dict[str, check.Result], record_property: pytest.RecordProperty
) -> None:
    result = conformance_results[fixture_id]
    if result.status == check.NO_PROGRAM:
        pytest.skip(f"no program: {result.message}")
    if result.status != check.PASS:
        record_property(result.status, result.message)
    assert result.passed, f"{fixture_id}: {result.status}: {result.message}"


def test_fixtures_are_complete_and_small() -> None:
    assert FIXTURES, f"no fixtures in {FIXTURES_DIR}: run python -m tests.conformance.export"
    for fixture in FIXTURES:
        files = {p.name for p in fixture.path.iterdir()}
        assert {p.name for p in fixture.inputs()} <= files, fixture.id
        if fixture.unexpressible is not None:  # no program: only the reason, the case and its inputs
            assert fixture.unexpressible and not files & {"model.pte", "refused.txt"}, fixture.id
            continue
        assert "model.pte" in files, fixture.id
        assert fixture.refused is not None or {p.name for p in fixture.expected()} <= files, fixture.id
        assert sum(p.stat().st_size for p in fixture.path.iterdir()) < MAX_FIXTURE_BYTES, fixture.id
        assert fixture.path.name == fixture.meta["op"].replace("::", ".") + "-" + fixture.meta["name"]


def identical(a: np.ndarray, b: np.ndarray) -> bool:
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def test_fixtures_are_up_to_date_with_the_cases() -> None:
    """Every case has its fixture, exported from the same inputs, and every fixture still has its case
    (else: python -m tests.conformance.export --only <family>)."""
    pytest.importorskip("torch")
    from tests.conformance.export import selected_cases, to_numpy

    problems: list[tuple[str, str]] = []  # (family, what)
    case_ids = set()
    for family, case in selected_cases(None):
        case_ids.add(case.id)
        fixture = BY_ID.get(case.id)
        if fixture is None:
            problems.append((family, f"{case.id}: no fixture"))
            continue
        saved = [np.load(p) for p in fixture.inputs()]
        now = [to_numpy(t) for t in case.inputs]
        same = len(saved) == len(now) and all(map(identical, saved, now))
        if not same or fixture.op != case.op:
            problems.append((family, f"{case.id}: fixture exported from other inputs"))
    for fid in sorted(set(BY_ID) - case_ids):
        problems.append((BY_ID[fid].meta["family"], f"{fid}: fixture without a case"))
    by_family = Counter(family for family, _ in problems)
    summary = ", ".join(f"{family} {n}" for family, n in sorted(by_family.items()))
    assert not problems, f"stale fixtures ({summary}): " + "; ".join(what for _, what in problems[:10])


def test_bfloat16_fixtures_hold_exact_bfloat16_values() -> None:
    """The .npy convention: BFloat16 stored as float32 whose low 16 bits are zero."""
    for fixture in FIXTURES:
        tensors = list(zip(fixture.inputs(), fixture.meta["inputs"], strict=True))
        if fixture.refused is None:
            tensors += list(zip(fixture.expected(), fixture.meta["outputs"], strict=True))
        for path, meta in tensors:
            if meta["dtype"] == "BFloat16":
                array = np.load(path)
                assert array.dtype == np.float32, path
                assert not (array.reshape(-1).view(np.uint32) & 0xFFFF).any(), path


def test_compare_rules() -> None:
    f32 = np.array([1.0, np.nan, np.inf, -2.0], dtype=np.float32)
    assert check.compare(f32, f32.copy(), "Float") is None
    assert check.compare(f32 + np.float32(5e-6), f32, "Float") is None
    assert "outside" in (check.compare(f32 * np.float32(1.001), f32, "Float") or "")
    assert "NaN" in (check.compare(np.nan_to_num(f32, nan=0.0), f32, "Float") or "")
    flipped = f32.copy()
    flipped[2] = -np.inf
    assert "infinities" in (check.compare(flipped, f32, "Float") or "")
    ints = np.array([1, 2, 3], dtype=np.int8)
    assert "differ" in (check.compare(ints + np.int8(1), ints, "Char") or "")
    assert "shape" in (check.compare(ints[:2], ints, "Char") or "")
    assert "dtype" in (check.compare(ints.astype(np.int16), ints, "Char") or "")
    inexact = np.array([1.0 + 2**-20], dtype=np.float32)
    assert "bfloat16" in (check.compare(inexact, np.array([1.0], dtype=np.float32), "BFloat16") or "")


def test_case_files_match_fixture_meta() -> None:
    for fixture in FIXTURES:
        meta = json.loads((fixture.path / "case.json").read_text())
        assert fixture.op in meta["operators"] or fixture.unexpressible, fixture.id
