"""The PR comment as a reviewer sees it: rendered like GitHub does (GitHub-flavoured
markdown sanitized with GitHub's schema, mermaid from npm) in headless Chromium.

The comments come from real pipeline runs (tests/render/scenarios.py): a PR
that changes nothing, one where a kernel grows, and one whose model changed
without its yaml being regenerated (its diff, and the command that applies the
patch of the regenerated yamls). Screenshots (full page, every <details>
open) are saved to tests/output/render/<scenario>.png for people to look at;
CI uploads that folder.
"""

from __future__ import annotations

import html
import itertools
import json
import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from bot.report import escape, model, verdict
from tests.conftest import REPO_ROOT
from tests.render import scenarios

OUTPUT = REPO_ROOT / "tests" / "output" / "render"
RENDER_JS = Path(__file__).with_name("render.mjs")
NODE_MODULES = REPO_ROOT / "tests" / "node" / "node_modules"
CHROMIUM = Path(os.environ.get("SB_CHROMIUM", "/usr/bin/chromium"))  # render.mjs reads the same variable

DELIMITER_ROW = re.compile(r"^\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$")
# What markdown or HTML source looks like when it failed to render.
RAW_SYNTAX = ("|---", "|:--", "--:|", "<details", "<summary", "</", "<br", "&amp;", "&lt;", "&gt;", "&nbsp;", "```")
# A markdown backslash escape shown as typed: escaped text inside raw HTML (a <summary>), which
# markdown leaves alone, so "app\-0" reaches the reader with its backslash.
RAW_TABLE_ROW = re.compile(r"^ *\|.*\| *$", re.MULTILINE)
BACKSLASH_ESCAPE = re.compile(r"\\[!-/:-@\[-`{-~]")


def raw_syntax(text: str) -> list[str]:
    """Markdown or HTML source visible in a page's text (a rendered table's rows are tab-separated)."""
    return [token for token in RAW_SYNTAX if token in text] + RAW_TABLE_ROW.findall(text)


@dataclass
class Rendered:
    report: model.PrReport
    verdict: verdict.Verdict
    markdown: str
    page: dict[str, Any]  # what render.mjs saw
    screenshot: Path


def _require_tools() -> None:
    missing = [str(p) for p in (CHROMIUM, NODE_MODULES / "playwright-core", NODE_MODULES / "mermaid") if not p.exists()]
    if shutil.which("node") is None:
        missing.append("node")
    assert not missing, f"render test tools missing ({', '.join(missing)}): run scripts/setup.sh"


def render(pages: list[dict[str, str]], work: Path) -> dict[str, dict[str, Any]]:
    """What render.mjs saw on each page, by name."""
    job = work / "job.json"
    job.write_text(json.dumps({"pages": pages}))
    proc = subprocess.run(["node", str(RENDER_JS), str(job)], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return {page["name"]: page for page in json.loads(proc.stdout)}


@pytest.fixture(scope="module")
def rendered(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Rendered]:
    _require_tools()
    work = tmp_path_factory.mktemp("render")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("SB_CACHE_DIR", str(work / "cache"))  # one cache: base builds and worktrees are reused
        repos = scenarios.make_repos(work / "repos")
        comments = {name: scenarios.comment(repos[name], name) for name in scenarios.SCENARIOS}
    OUTPUT.mkdir(parents=True, exist_ok=True)
    pages = []
    for name, (_, _, markdown) in comments.items():
        (OUTPUT / f"{name}.md").write_text(markdown)
        pages.append({"name": name, "markdown": str(OUTPUT / f"{name}.md"), "screenshot": str(OUTPUT / f"{name}.png")})
    seen = render(pages, work)
    return {
        name: Rendered(report, judged, markdown, seen[name], OUTPUT / f"{name}.png")
        for name, (report, judged, markdown) in comments.items()
    }


def _outside_code(markdown: str) -> list[str]:
    """The markdown's lines outside fenced code blocks."""
    lines, fenced = [], False
    for line in markdown.splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
        elif not fenced:
            lines.append(line)
    return lines


def _cells(row: str) -> list[str]:
    row = row.strip()
    row = row[1:] if row.startswith("|") else row
    row = row[:-1] if row.endswith("|") and not row.endswith("\\|") else row
    return [cell.strip() for cell in re.split(r"(?<!\\)\|", row)]


def _as_text(cell: str) -> str:
    """A header cell's markdown as the text it renders to (code spans, emphasis, tags and entities)."""
    text = re.sub(r"<[^>]+>", "", cell)
    text = re.sub(r"`([^`]*)`", r"\1", text)
    text = re.sub(r"(\*\*|__|\*|_)(\S.*?\S|\S)\1", r"\2", text)
    return html.unescape(re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", text)).strip()


def expected_tables(markdown: str) -> list[list[str]]:
    """Header cells of every table in the markdown (a row followed by a delimiter row)."""
    lines = _outside_code(markdown)
    return [
        [_as_text(c) for c in _cells(line)]
        for line, following in itertools.pairwise(lines)
        if "|" in line and DELIMITER_ROW.match(following.strip()) and "-" in following
    ]


@pytest.mark.parametrize("name", scenarios.SCENARIOS)
def test_the_scenario_is_what_it_claims(rendered: dict[str, Rendered], name: str) -> None:
    report = rendered[name].report
    assert not report.first_build_error(), report.first_build_error()
    assert report.stale == (name == "stale_yaml")
    if name == "no_change":
        assert report.size_delta == 0
    if name in ("size_only", "multi_arch"):
        assert report.size_delta > 0
        assert "relu" in rendered[name].markdown  # the kernel that grew is named
    if name == "kernel_choice":
        sizes = report.targets[0].sizes[0]
        assert sizes.choice_changed and sizes.optimized_cost is not None and sizes.delta
        assert "### Kernel choice" in rendered[name].markdown and "Kernel choice" in rendered[name].page["text"]
    if name == "multi_arch":
        assert [(s.arch, s.delta > 0) for s in report.targets[0].sizes if s.delta] == [
            ("x86-64", True),
            ("aarch64", True),
        ]
    judged, page = rendered[name].verdict, rendered[name].page
    # The warn level (the multi-arch repo's) catches every runtime that grew by more than it, by the report's
    # own figures; the comment lists each, and GitHub renders the list.
    grew_over = [
        s.arch
        for s in report.targets[0].sizes
        if name in scenarios.MULTI_ARCH
        and s.base
        and s.delta
        and s.delta * 100 / s.base.vm_size > scenarios.WARN_PERCENT
    ]
    assert [b.arch for b in judged.breaches] == grew_over and all(b.level == "warn" for b in judged.breaches)
    assert bool(grew_over) == (name == "multi_arch")  # the scenario shows a warn-level finding
    for arch in grew_over:
        assert f"- ⚠️ **warn**: vision on {escape.text(arch)} grew " in rendered[name].markdown
        assert f"⚠️ warn: vision on {arch} grew " in page["text"]
    if grew_over:
        assert judged.passed and judged.conclusion == "neutral" and "Size limits" in page["text"]
    # A size change under the noise floor reads "unchanged" in the headline; the table keeps its bytes.
    headline = rendered[name].markdown.split("\n")[4]
    sizes = report.targets[0].sizes[0]
    if sizes.delta and abs(sizes.delta) < judged.policy.noise_floor:
        assert f"size unchanged (below the {judged.policy.noise_floor}-byte noise floor)" in headline
        assert (
            f"| ▲ {sizes.delta:+,} |" in rendered[name].markdown or f"| ▼ {sizes.delta:+,} |" in rendered[name].markdown
        )


@pytest.mark.parametrize("name", scenarios.SCENARIOS)
def test_the_page_renders_without_errors_or_network(rendered: dict[str, Rendered], name: str) -> None:
    page = rendered[name].page
    assert page["consoleErrors"] == []
    assert page["blocked"] == []  # everything came from loopback
    assert page["width"] <= page["viewport"], "the comment is wider than the page: a horizontal scrollbar"


@pytest.mark.parametrize("name", scenarios.SCENARIOS)
def test_every_table_renders_with_its_header(rendered: dict[str, Rendered], name: str) -> None:
    expected = expected_tables(rendered[name].markdown)
    tables = rendered[name].page["tables"]
    assert [t["headers"] for t in tables] == expected
    assert all(t["rows"] > 0 for t in tables)


@pytest.mark.parametrize("name", scenarios.SCENARIOS)
def test_details_render_and_open(rendered: dict[str, Rendered], name: str) -> None:
    details = rendered[name].page["details"]
    assert details["count"] == rendered[name].markdown.count("<details")
    assert details["open"] == details["count"]
    assert all(details["summaries"]), "a <details> without a visible summary"


@pytest.mark.parametrize("name", scenarios.SCENARIOS)
def test_every_mermaid_chart_becomes_an_svg(rendered: dict[str, Rendered], name: str) -> None:
    page = rendered[name].page
    assert page["mermaidBlocks"] == rendered[name].markdown.count("```mermaid") == len(page["mermaid"])
    for chart in page["mermaid"]:
        assert chart["svg"], f"not rendered: {chart['unrendered'][:200]}"
        assert not chart["errorDrawn"], chart["labels"]
        assert not any("Syntax error" in label for label in chart["labels"]), chart["labels"]
        assert chart["width"] > 100 and chart["height"] > 50
    assert "Syntax error" not in page["text"]


@pytest.mark.parametrize("name", scenarios.SCENARIOS)
def test_no_raw_markdown_or_html_is_visible(rendered: dict[str, Rendered], name: str) -> None:
    text = rendered[name].page["text"]
    assert raw_syntax(text) == [], "visible in the rendered comment"


@pytest.mark.parametrize("name", scenarios.SCENARIOS)
def test_no_markdown_escape_is_shown_as_typed(rendered: dict[str, Rendered], name: str) -> None:
    shown = BACKSLASH_ESCAPE.findall(rendered[name].page["text"])
    assert not shown, f"{shown} visible in the rendered comment"


@pytest.mark.parametrize("name", scenarios.SCENARIOS)
def test_the_comment_reads_well(rendered: dict[str, Rendered], name: str) -> None:
    """What the first screenshots showed a reviewer: an arch column that says x86-64 on every row,
    a chart that repeats a one-row table, "1 target(s)", a headline blaming a stale selection's bytes
    on the code."""
    page, markdown = rendered[name].page, rendered[name].markdown
    headers = [t["headers"] for t in page["tables"]]
    multi = name in scenarios.MULTI_ARCH
    assert any("arch" in h for h in headers) == multi
    charts = page["mermaid"]
    if multi:  # both architectures moved: one chart, a bar for each
        assert len(charts) == 1 and {"vision/x86-64", "vision/aarch64"} <= set(charts[0]["labels"])
    else:  # at most one runtime moved: the size table's row says it all
        assert charts == []
    assert "(s)" not in page["text"]
    headline = markdown.split("\n")[4]
    assert ("selection +" in headline) == (name == "stale_yaml"), headline


@pytest.mark.parametrize("name", scenarios.SCENARIOS)
def test_a_stale_yaml_shows_its_diff_and_the_command_that_applies_the_patch(
    rendered: dict[str, Rendered], name: str
) -> None:
    """The stale yaml's diff renders as one diff block, collapsed under its target, exactly the report's
    hunks; after it, the one command that downloads and applies the patch. Other PRs have neither."""
    page, report = rendered[name].page, rendered[name].report
    blocks = {lang: [b for b in page["codeBlocks"] if b["language"] == lang] for lang in ("diff", "sh")}
    if name != "stale_yaml":
        assert blocks == {"diff": [], "sh": []} and "no toolchain" not in page["text"]
        return
    diff = report.yaml_diff(report.targets[0].yaml)
    assert diff is not None and diff.added and {d.path for d in report.yaml_diffs} == set(report.stale_files)
    (shown,) = blocks["diff"]
    assert shown["inDetails"] and shown["text"].rstrip("\n").split("\n") == diff.hunks.split("\n")
    assert any(s.startswith("the regenerated yaml: +") for s in page["details"]["summaries"])
    assert scenarios.PATCH_SOURCE is not None
    assert [b["text"].strip() for b in blocks["sh"]] == [scenarios.PATCH_SOURCE.command()]
    assert not blocks["sh"][0]["inDetails"]  # the fix is never collapsed
    text = page["text"]
    fix = text.index("Fix, with no toolchain: apply the patch of the")
    assert fix < text.index("gh run download 1589141559") < text.index("Or run python -m bot regenerate")


@pytest.mark.parametrize("name", scenarios.SCENARIOS)
def test_the_screenshot_is_saved(rendered: dict[str, Rendered], name: str) -> None:
    shot = rendered[name].screenshot
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert shot.stat().st_size > 5000


def test_the_table_reader_understands_the_markdown_it_checks() -> None:
    table = "| **op** | `x` &amp; y | Δ \\| app\\-0 |\n|---|:--|--:|\n| 1 | 2 | 3 |\n"
    markdown = f"a\n\n{table}\n```\n| no | table |\n|---|---|\n```\n"
    assert expected_tables(markdown) == [["op", "x & y", "Δ | app-0"]]
    assert BACKSLASH_ESCAPE.findall("app\\-0 on x86\\-64, C:\\dir") == ["\\-", "\\-"]


PROBE = """\
## Probe &amp; check

| a | b |
|---|---|
| 1 | 2 |

- [x] done
- [ ] open

<details><summary>more</summary>

text &lt;here&gt;

</details>

```mermaid
xychart-beta
  x-axis [a, b]
  bar [1, 2]
```

```mermaid
xychart-beta
  x-axis [a, b
```

| not | a table |
|-x-|
"""


def test_the_harness_sees_what_a_reviewer_would(tmp_path: Path) -> None:
    """The checks above can fail: a broken chart and a broken table are caught, the rest renders."""
    _require_tools()
    (tmp_path / "probe.md").write_text(PROBE)
    page = render(
        [{"name": "probe", "markdown": str(tmp_path / "probe.md"), "screenshot": str(tmp_path / "p.png")}], tmp_path
    )["probe"]
    assert [t["headers"] for t in page["tables"]] == [["a", "b"]] == expected_tables(PROBE)
    assert page["details"] == {"count": 1, "open": 1, "summaries": ["more"]}
    good, broken = page["mermaid"]
    assert good["svg"] and not good["errorDrawn"] and "a" in good["labels"]
    assert broken["errorDrawn"] and any("Syntax error" in label for label in broken["labels"])
    assert any("Parse error" in error for error in page["consoleErrors"])
    assert "Probe & check" in page["text"] and "text <here>" in page["text"]  # entities decoded
    assert " done" in page["text"] and "[x]" not in page["text"]  # a task list, not brackets
    assert raw_syntax(page["text"]) == ["| not | a table | |-x-|"]  # a paragraph: its lines joined
