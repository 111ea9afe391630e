"""Scenario PRs in temporary repos, run through the whole local PR pipeline."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from bot import pipeline, report
from tests.conftest import ZOO_DIR
from tests.scenario_repo import clone_of, commit_all, make_kernel_call_another_op


@pytest.fixture
def repo(base_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("SB_CACHE_DIR", str(tmp_path / "cache"))
    return clone_of(base_repo, tmp_path / "repo")


def run(repo: Path) -> pipeline.PrReport:
    """The pipeline for the last commit against the one before it."""
    return pipeline.run_pr(repo, "main~1", None, lambda _: None)


def target(rep: pipeline.PrReport, name: str) -> pipeline.TargetReport:
    return next(t for t in rep.targets if t.name == name)


def test_a_kernel_now_calling_another_op_makes_the_yaml_stale(repo: Path) -> None:
    make_kernel_call_another_op(repo)
    commit_all(repo, "clone via _to_dim_order_copy")

    rep = run(repo)
    cnn, seq = target(rep, "cnn"), target(rep, "seq")
    missing = {m.op: m for m in cnn.diff.missing}
    assert set(missing) == {"dim_order_ops::_to_dim_order_copy.out"}
    assert missing["dim_order_ops::_to_dim_order_copy.out"].callers == ("dim_order_ops::_clone_dim_order.out",)
    assert missing["dim_order_ops::_to_dim_order_copy.out"].models == ("models/zoo/squeezenet.pte",)
    assert [u.op for u in cnn.diff.unused] == ["aten::copy.out"]
    assert [f.model for f in cnn.load_failures] == ["models/zoo/squeezenet.pte"]
    assert "missing operator dim_order_ops::_to_dim_order_copy.out" in cnn.load_failures[0].message
    assert any(c.kind == "kernel" and c.path == "kernels/portable/op_clone_dim_order.cpp" for c in cnn.causes)
    assert not seq.diff.stale and not seq.load_failures
    # the static graph tells the same story from the compiled kernels
    assert [(e.caller, e.callee) for e in rep.graph_added] == [
        ("dim_order_ops::_clone_dim_order.out", "dim_order_ops::_to_dim_order_copy.out")
    ]
    assert [(e.caller, e.callee) for e in rep.graph_removed] == [
        ("dim_order_ops::_clone_dim_order.out", "aten::copy.out")
    ]
    change = next(c for c in cnn.closure_changes if c.model == "models/zoo/squeezenet.pte")
    assert change.lacking == ("dim_order_ops::_to_dim_order_copy.out",)
    text = report.render(rep)
    assert "Op graph changes" in text
    assert "breaks <code>models/zoo/squeezenet.pte</code> at load" in text
    assert "(<code>kernels/portable/op_clone_dim_order.cpp</code>) now calls" in text
    assert "python -m bot regenerate" in text


def test_b_new_model_without_yaml(repo: Path) -> None:
    for src in ZOO_DIR.glob("mha_block.*"):
        shutil.copy2(src, repo / "models" / "zoo" / src.name)
    config = repo / ".selective-build.yml"
    config.write_text(
        config.read_text().replace("models/zoo/unet.pte]", "models/zoo/unet.pte, models/zoo/mha_block.pte]")
    )
    commit_all(repo, "add mha_block to cnn")

    rep = run(repo)
    cnn = target(rep, "cnn")
    assert cnn.models_without_yaml == ("models/zoo/mha_block.pte",)
    assert "models/oplist/mha_block.yaml" in rep.stale_files
    assert {"aten::gelu.out", "aten::native_layer_norm.out"} <= {m.op for m in cnn.diff.missing}
    assert [f.model for f in cnn.load_failures] == ["models/zoo/mha_block.pte"]
    assert any(c.kind == "model" and c.path == "models/zoo/mha_block.pte" for c in cnn.causes)
    assert rep.stale


def test_c_size_only_kernel_change_shows_the_per_op_delta(repo: Path) -> None:
    kernel = repo / "kernels" / "portable" / "op_relu.cpp"
    # relu that maps NaN to 0: more code in the kernel, same ops and dtypes.
    body = "return x < T(0) ? T(0) : x;"
    assert body in kernel.read_text()
    kernel.write_text(kernel.read_text().replace(body, "return (x < T(0) || x != x) ? T(0) : x;"))
    commit_all(repo, "relu propagates NaN")

    rep = run(repo)
    cnn, seq = target(rep, "cnn"), target(rep, "seq")
    assert not rep.stale
    assert cnn.head and cnn.base
    deltas = {op: cnn.head.per_op.get(op, 0) - cnn.base.per_op.get(op, 0) for op in cnn.head.per_op}
    assert deltas["aten::relu.out"] != 0
    assert all(d == 0 for op, d in deltas.items() if op not in ("aten::relu.out",) and not op.startswith("("))
    assert seq.delta == 0  # gru does not use relu
    assert "aten::relu.out" in report.render(rep)


def test_d_nothing_changed(repo: Path) -> None:
    (repo / "NOTES.md").write_text("docs only\n")
    commit_all(repo, "docs")
    rep = run(repo)
    assert not rep.stale
    assert all(t.delta == 0 for t in rep.targets)
    assert "No change" in report.summary_line(rep)
