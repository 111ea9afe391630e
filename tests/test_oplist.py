"""The selected-operators yaml: static extraction, merging, and interop with ExecuTorch's tooling."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from bot.selection import oplist, pte
from tests.conftest import ZOO_DIR, ZOO_MODELS


def gen_oplist(model: Path, out: Path) -> dict:
    subprocess.run(
        [
            sys.executable,
            "-m",
            "executorch.codegen.tools.gen_oplist",
            f"--model_file_path={model}",
            f"--output_path={out}",
        ],
        check=True,
        capture_output=True,
    )
    return yaml.safe_load(out.read_text())


def assert_static_oplist_is_gen_oplist(model: Path, work: Path) -> dict:
    """`model`'s static op list (every method's) names the operators and kernel keys ExecuTorch's gen_oplist
    names; returns gen_oplist's yaml."""
    theirs = gen_oplist(model, work / f"{model.stem}.gen_oplist.yaml")
    ours = oplist.from_program(pte.load(model), str(model))
    assert set(ours.operators) == set(theirs["operators"])
    assert {op: set(keys) for op, keys in ours.et_kernel_metadata.items()} == {
        op: set(keys) for op, keys in theirs["et_kernel_metadata"].items()
    }
    return theirs


@pytest.mark.parametrize("name", ZOO_MODELS)
def test_static_oplist_equals_executorch_gen_oplist(name: str, tmp_path: Path) -> None:
    assert_static_oplist_is_gen_oplist(ZOO_DIR / f"{name}.pte", tmp_path)


def test_our_yaml_is_accepted_by_executorch_merge_tooling(tmp_path: Path) -> None:
    """ExecuTorch's gen_all_oplist (torchgen's SelectiveBuilder, which rejects unknown
    keys and wrong types) merges the per-model yamls we write into the same union as ours."""
    paths = []
    for name in ZOO_MODELS:
        path = tmp_path / f"{name}.yaml"
        oplist.dump(oplist.from_program(pte.load(ZOO_DIR / f"{name}.pte"), name), path)
        paths.append(path)
    listing = tmp_path / "models.txt"
    listing.write_text("\n".join(map(str, paths)))
    out_dir = tmp_path / "merged"
    out_dir.mkdir()
    subprocess.run(
        [
            sys.executable,
            "-m",
            "executorch.codegen.tools.gen_all_oplist",
            f"--model_file_list_path=@{listing}",
            f"--output_dir={out_dir}",
        ],
        check=True,
        capture_output=True,
    )
    theirs = yaml.safe_load((out_dir / "selected_operators.yaml").read_text())
    ours = oplist.merge(oplist.load(p) for p in paths)
    assert set(theirs["operators"]) == set(ours.operators)
    assert {op: set(k) for op, k in theirs["et_kernel_metadata"].items()} == {
        op: set(k) for op, k in ours.et_kernel_metadata.items()
    }
    # and what they wrote loads back into ours unchanged in substance
    assert oplist.load(out_dir / "selected_operators.yaml").names() == ours.names()


def test_executorch_yaml_is_accepted_by_ours(tmp_path: Path) -> None:
    for name in ZOO_MODELS:
        theirs_path = tmp_path / f"{name}.yaml"
        theirs = gen_oplist(ZOO_DIR / f"{name}.pte", theirs_path)
        loaded = oplist.load(theirs_path)
        assert set(loaded.operators) == set(theirs["operators"])
        assert all(op.is_root_operator for op in loaded.operators.values())


def test_merge_is_a_deterministic_union() -> None:
    selections = [oplist.from_program(pte.load(ZOO_DIR / f"{name}.pte"), name) for name in ZOO_MODELS]
    forward = oplist.dumps(oplist.merge(selections))
    backward = oplist.dumps(oplist.merge(reversed(selections)))
    assert forward == backward
    merged = oplist.merge(selections)
    assert merged.names() == set().union(*(s.names() for s in selections))
    for name, op in merged.operators.items():
        users = {s_name for s_name, s in zip(ZOO_MODELS, selections, strict=True) if name in s.operators}
        assert set(op.models()) == users


def test_yaml_round_trips_through_our_loader(tmp_path: Path) -> None:
    sel = oplist.from_program(pte.load(ZOO_DIR / "mha_block.pte"), "mha_block")
    path = tmp_path / "sel.yaml"
    oplist.dump(sel, path)
    assert oplist.load(path) == sel


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("operators: [1, 2]", "'operators' must be a mapping"),
        ("operators:\n  relu: {}", "not of the form namespace::name.overload"),
        ("operators:\n  aten::relu.out:\n    is_root_operator: maybe", "is_root_operator must be true or false"),
        ("frobnicate: true", "unknown top-level key 'frobnicate'"),
        ("operators: {a: [", "not valid YAML at line 1"),
    ],
)
def test_bad_yaml_is_reported_with_its_location(text: str, message: str) -> None:
    with pytest.raises(oplist.OplistError, match=message.replace("(", r"\(").replace(")", r"\)")):
        oplist.loads(text, "sel.yaml")
