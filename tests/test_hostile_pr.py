"""A hostile PR: model and op names carrying HTML, an @-mention, backticks and a
javascript: link. The comment it produces renders inert."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from bot import pipeline
from bot.report import comment, escape, model
from bot.selection import oplist
from tests.conftest import ZOO_DIR
from tests.judging import judged
from tests.scenario_repo import clone_of, commit_all

HOSTILE = "<img src=x>`@org/team`](javascript:alert(1))"
MODEL_DIR = "models/@org"
MODEL_NAME = "team<img src=x>`](javascript:alert(1))"
HOSTILE_OP = f"aten::{HOSTILE}.out"


def rendered_html(markdown: str) -> str:
    # CommonMark with raw HTML allowed: what a permissive renderer would show.
    return MarkdownIt("commonmark", {"html": True}).enable("table").render(markdown)


def assert_inert(markdown: str) -> None:
    page = rendered_html(markdown)
    assert "<img" not in page
    assert not re.search(r"<a\b", page)
    assert not re.search(r"href=\"?javascript", page)
    # no mention: every @ is followed by a zero-width space, in text and code alike
    text_only = re.sub(r"<[^>]+>", "", page)
    assert not re.search(r"@[A-Za-z0-9]", text_only.replace("&#64;", "@").replace("&amp;", "&"))


@pytest.fixture
def hostile_report(base_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> model.PrReport:
    monkeypatch.setenv("SB_CACHE_DIR", str(tmp_path / "cache"))
    repo = clone_of(base_repo, tmp_path / "repo")
    (repo / MODEL_DIR).mkdir(parents=True)
    shutil.copy2(ZOO_DIR / "unet.pte", repo / MODEL_DIR / f"{MODEL_NAME}.pte")
    config = repo / ".selective-build.yml"
    config.write_text(
        config.read_text().replace("models/zoo/unet.pte]", f"models/zoo/unet.pte, '{MODEL_DIR}/{MODEL_NAME}.pte']")
    )
    checked_in = repo / "apps" / "seq" / "selected_operators.yaml"
    sel = oplist.load(checked_in)
    sel.operators[HOSTILE_OP] = oplist.Operator(debug_info=(HOSTILE,))
    oplist.dump(sel, checked_in)
    commit_all(repo, f"add {HOSTILE}")
    return pipeline.run_pr(repo, "main~1", None, lambda _: None)


def test_hostile_names_reach_the_report_and_render_inert(hostile_report: model.PrReport) -> None:
    markdown = comment.render(hostile_report, judged(hostile_report))
    cnn = next(t for t in hostile_report.targets if t.name == "cnn")
    seq = next(t for t in hostile_report.targets if t.name == "seq")
    assert cnn.models_without_yaml == (f"{MODEL_DIR}/{MODEL_NAME}.pte",)
    assert HOSTILE_OP in seq.build_error  # the hostile op broke the smoke build; CMake's error names it
    assert "Build failures" in markdown and "<summary>error lines</summary>" in markdown
    assert "img src" in markdown  # present, as text
    assert_inert(markdown)


@pytest.mark.parametrize(
    "value",
    [
        HOSTILE,
        "@org/team",
        "`code` ``x``",
        "](javascript:alert(1))",
        "<script>alert(1)</script>",
        "a|b\nc",
        "[click](https://evil.example) ![i](x.png)",
        "www.evil.example and https://evil.example and a@b.example",
        "**bold** _em_ ~~strike~~",
    ],
)
def test_every_escape_helper_is_inert(value: str) -> None:
    for piece in (escape.text(value), escape.code(value)):
        assert "\n" not in piece
        assert_inert(f"| col |\n|---|\n| {piece} |\n\n- {piece}\n")
        assert not re.search(r"<(strong|em|del|a|img)\b", rendered_html(piece))
        # GitHub's extended autolinks start at these; escaped, they never form.
        assert not re.search(r"(^|[^\\]):/", piece) and "www." not in piece
