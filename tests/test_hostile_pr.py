"""A hostile PR: model and op names carrying HTML, an @-mention, backticks and a
javascript: link. The comment it produces renders inert."""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from bot import pipeline
from bot.report import comment, escape, patch
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


@pytest.fixture(scope="module")
def hostile_run(base_repo: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[pipeline.PrRun, Path]]:
    """The hostile PR's run (its report and the patch of its stale yamls) and its repo: run once, read by
    each test (the last applies the patch)."""
    work = tmp_path_factory.mktemp("hostile")
    repo = clone_of(base_repo, work / "repo")
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
    with pytest.MonkeyPatch.context() as patch_env:
        patch_env.setenv("SB_CACHE_DIR", str(work / "cache"))
        run = pipeline.analyze(repo, "main~1", None, lambda _: None)
    yield run, repo


def test_hostile_names_reach_the_report_and_render_inert(hostile_run: tuple[pipeline.PrRun, Path]) -> None:
    hostile_report = hostile_run[0].report
    markdown = comment.render(hostile_report, judged(hostile_report))
    cnn = next(t for t in hostile_report.targets if t.name == "cnn")
    seq = next(t for t in hostile_report.targets if t.name == "seq")
    assert cnn.models_without_yaml == (f"{MODEL_DIR}/{MODEL_NAME}.pte",)
    assert HOSTILE_OP in seq.build_error  # the hostile op broke the smoke build; CMake's error names it
    assert "Build failures" in markdown and "<summary>error lines</summary>" in markdown
    assert "img src" in markdown  # present, as text
    assert_inert(markdown)


def test_hostile_names_reach_the_patch_which_applies_and_renders_inert(
    hostile_run: tuple[pipeline.PrRun, Path], tmp_path: Path
) -> None:
    """The patch names the hostile per-model yaml as git does and applies in the PR's repo; the comment shows
    the diffs (the hostile op, removed from seq's yaml) only inside code, and the command applies it."""
    run, repo = hostile_run
    report = run.report
    hostile_yaml = f"models/oplist/{MODEL_NAME}.yaml"
    assert {"apps/cnn/selected_operators.yaml", "apps/seq/selected_operators.yaml", hostile_yaml} <= set(
        report.stale_files
    )
    text = patch.join(run.diffs, report.base_sha, report.head_sha)
    found = patch.parse(text, "hostile.patch")
    assert patch.mismatch(found, report, report.head_sha) == ""
    assert f"diff --git a/{hostile_yaml} b/{hostile_yaml}\nnew file mode 100644\n" in text
    seq_diff = report.yaml_diff("apps/seq/selected_operators.yaml")
    assert seq_diff is not None and f"-  {HOSTILE_OP}:" in seq_diff.hunks.split("\n")

    patch_file = tmp_path / "hostile.patch"
    patch_file.write_text(text)
    source = patch.local(patch_file)
    assert source is not None
    markdown = comment.render(report, judged(report), source=source)
    assert_inert(markdown)
    assert f"```sh\n{source.command()}\n```" in markdown and f"- {escape.code(hostile_yaml)} (+" in markdown
    # Outside code blocks the hostile op is never raw; inside the seq diff's block it is shown as it is.
    shown_op = HOSTILE_OP.replace("@", "@\u200b")  # as a code block shows it: never a mention
    assert f"-  {shown_op}:" in markdown
    outside = re.sub(r"^(`{3,})diff\n.*?^\1$", "", markdown, flags=re.MULTILINE | re.DOTALL)
    assert HOSTILE not in outside and "`@org" not in outside

    applied = subprocess.run(source.command(), shell=True, cwd=repo, capture_output=True, text=True)
    assert applied.returncode == 0, applied.stderr
    assert (repo / hostile_yaml).is_file()
    assert HOSTILE_OP not in (repo / "apps/seq/selected_operators.yaml").read_text()


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
