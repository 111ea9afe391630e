"""Console progress of the long commands (bot/progress.py as the CLI sets it up):
one line per step and item in a job log, live bars on a terminal, timings at
the end, and PR-quoted labels shown inertly everywhere."""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from rich.console import Console

from bot.commands import output
from bot.feeds import Feeds
from bot.progress import LogProgress, Progress, RichProgress, timing_table
from bot.selection import regenerate
from bot.selection.oplist import Operator, SelectedOps

# A model name as a hostile PR could write it: rich markup, a workflow command after a
# newline, the legacy command form, and a command at the start of the text.
HOSTILE = "models/[bold red]x[/bold red].pte\n::error title=pwned::owned ##[group]g"
HOSTILE_START = "::add-mask::hide-everything"


def log_lines(capsys: pytest.CaptureFixture[str]) -> list[str]:
    out = capsys.readouterr()
    assert out.out == "", "progress must stay off stdout (it carries --json)"
    return out.err.splitlines()


def test_a_job_log_gets_one_line_per_step_and_item(capsys: pytest.CaptureFixture[str]) -> None:
    progress = output.make_progress({"GITHUB_ACTIONS": "true"}, terminal=True)
    assert isinstance(progress, LogProgress)
    with progress, progress.step("tracing models", total=2) as step:
        for name in ("a.pte", "b.pte"):
            step.working_on(name)
            step.advance(name)
    with progress.step("size analysis"):
        pass
    output.print_timings(progress)
    lines = log_lines(capsys)
    assert lines[:4] == ["▶ tracing models (2)", "  [1/2] a.pte", "  [2/2] b.pte", lines[3]]
    assert lines[3].startswith("✓ tracing models in ")
    assert lines[4] == "▶ size analysis"
    assert lines[6] == "timings:"
    assert [line.split("  ")[-1] for line in lines[7:]] == ["tracing models (2)", "size analysis", "total"]


def test_a_step_ended_by_an_error_does_not_read_as_done() -> None:
    lines: list[str] = []
    progress = LogProgress(write=lines.append)
    with pytest.raises(RuntimeError), progress.step("build x86-64"):
        raise RuntimeError("compiler failed")
    assert lines[0] == "▶ build x86-64"
    assert lines[1].startswith("✗ build x86-64: stopped after ")
    assert [t.label for t in progress.timings] == ["build x86-64"]


def test_no_terminal_means_a_job_log_and_a_terminal_means_bars() -> None:
    assert isinstance(output.make_progress({}, terminal=False), LogProgress)
    assert isinstance(output.make_progress({"GITHUB_ACTIONS": "true"}, terminal=True), LogProgress)
    assert isinstance(output.make_progress({}, terminal=True), RichProgress)


def test_an_item_done_without_being_announced_is_logged_when_done() -> None:
    lines: list[str] = []
    progress = LogProgress(write=lines.append)
    with progress.step("builds", total=2) as step:
        step.advance("cnn x86-64")
        step.advance("seq x86-64")
    assert lines[1:3] == ["  [1/2] cnn x86-64", "  [2/2] seq x86-64"]


def test_pr_quoted_labels_are_inert_in_a_job_log(capsys: pytest.CaptureFixture[str]) -> None:
    progress = output.make_progress({"GITHUB_ACTIONS": "true"}, terminal=False)
    with progress, progress.step(f"target {HOSTILE}: build x86-64", total=1) as step:
        step.working_on(HOSTILE)
        step.working_on(HOSTILE_START)
        progress.note(HOSTILE_START)
        step.advance(HOSTILE)
    output.print_timings(progress)
    lines = log_lines(capsys)
    # start, 3 items, note, end, "timings:", step, total: no newline in the text added a line
    assert len(lines) == 9, lines
    for line in lines:
        assert not line.lstrip().startswith("::"), line
        assert "##[" not in line, line
    assert any("[bold red]x[/bold red]" in line for line in lines)  # markup shown as text


def test_pr_quoted_labels_are_inert_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    screen = Console(file=io.StringIO(), force_terminal=True, width=300, record=True, color_system=None)
    monkeypatch.setattr(output, "console", lambda: screen)
    progress = output.make_progress({}, terminal=True)
    assert isinstance(progress, RichProgress)
    with progress, progress.step(f"target {HOSTILE}", total=1) as step:
        step.working_on(HOSTILE)
        progress.note(HOSTILE_START)
        step.advance(HOSTILE)
    output.print_timings(progress)
    text = screen.export_text()
    assert "[bold red]x[/bold red]" in text  # not interpreted as style
    assert "::error" not in "\n".join(line.lstrip()[:7] for line in text.splitlines())
    for line in text.splitlines():
        assert not line.lstrip().startswith("::"), line
    assert "timings" in text and "total" in text


def test_percent_signs_read_as_percent_signs_and_newlines_stay_escaped() -> None:
    assert output.safe("size +0.05% (50%)") == "size +0.05% (50%)"
    assert output.safe("a%\n::error::x") == "a%%0A::error::x"
    assert not output.safe("%\n::error::x").lstrip().startswith("::")


def test_timing_table_ends_with_the_total() -> None:
    progress = Progress()
    with progress.step("one"):
        pass
    with progress.step("two", total=3) as step:
        step.advance()
    rows = timing_table(progress)
    assert [label for label, _ in rows] == ["one", "two (1)", "total"]
    assert all(seconds.endswith(" s") for _, seconds in rows)


@dataclass
class _Model:
    path: Path
    inputs: tuple[Path, ...] = ()
    feeds: Feeds = field(default_factory=Feeds)


@dataclass
class _Target:
    name: str
    yaml: Path
    models: list[_Model] = field(default_factory=list)


@dataclass
class _Config:
    root: Path
    targets: list[_Target]
    include: str = "static"

    def models(self) -> list[_Model]:
        return [m for t in self.targets for m in t.models]

    def per_model_yaml(self, model: _Model) -> Path:
        return Path("oplist") / (model.path.stem + ".yaml")


def test_regenerate_reports_each_model_traced(tmp_path: Path) -> None:
    models = [_Model(Path("models/a.pte")), _Model(Path(HOSTILE))]
    cfg = _Config(tmp_path, [_Target("app", Path("app.yaml"), models)])
    traced: list[str] = []

    def trace_model(
        runner: Path, model: Path, inputs: list[Path], label: str, reachable: bool, feeds: Feeds
    ) -> SelectedOps:
        traced.append(label)
        return SelectedOps(operators={"aten::add.out": Operator(is_root_operator=True, debug_info=(label,))})

    lines: list[str] = []
    progress = LogProgress(sanitize=output.safe, write=lines.append)
    result = regenerate.regenerate(cfg, tmp_path / "runner", trace_model, progress)  # type: ignore[arg-type]
    assert traced == ["models/a.pte", HOSTILE]
    assert set(result.per_target) == {"app"}
    assert lines[0] == "▶ tracing models (2)"
    assert lines[1] == "  [1/2] models/a.pte"
    assert lines[2].startswith("  [2/2] models/[bold red]x[/bold red].pte")
    assert len(lines) == 4
    assert [(t.label, t.count) for t in progress.timings] == [("tracing models", 2)]
