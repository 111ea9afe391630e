"""Progress of the long commands (`pr`, `regenerate`, `build`): steps with a
count, their timings, and a summary at the end.

The pipeline only speaks to the `Progress` interface: `step` opens a timed
step (optionally with a total it advances through), `note` says one thing. A
terminal gets live `rich` progress bars; a job log (no terminal) gets one line
when each step starts and one when it ends; tests get nothing.

Labels and details may quote the PR (model and target names), so every text
goes through `sanitize` (redaction, one line, never a workflow command) and is
shown as plain text, never as rich markup.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console
    from rich.progress import Progress as RichBars
    from rich.progress import TaskID


def _unchanged(text: str) -> str:
    return text


@dataclass
class Timing:
    label: str
    seconds: float
    count: int | None = None  # items done, for steps with a total


@dataclass
class Step:
    """One running step; `advance` moves it by one item and names what is being done now."""

    label: str
    total: int | None
    _on_advance: Callable[[Step, str, bool], None]
    done: int = 0
    detail: str = ""  # the item named last (sanitized)

    def advance(self, detail: str = "") -> None:
        self.done += 1
        self._on_advance(self, detail, True)

    def working_on(self, detail: str) -> None:
        """Names the current item without counting it as done."""
        self._on_advance(self, detail, False)


@dataclass
class Progress:
    """Records step timings; subclasses show them. This base class shows nothing."""

    sanitize: Callable[[str], str] = _unchanged
    timings: list[Timing] = field(default_factory=list)

    @contextmanager
    def step(self, label: str, total: int | None = None) -> Iterator[Step]:
        label = self.sanitize(label)
        current = Step(label, total, self._advanced)
        self._started(current)
        start = time.monotonic()
        failed = True
        try:
            yield current
            failed = False
        finally:
            elapsed = time.monotonic() - start
            self.timings.append(Timing(label, elapsed, current.done if total is not None else None))
            if failed:
                self._failed(current, elapsed)
            else:
                self._finished(current, elapsed)

    def __enter__(self) -> Progress:
        """Shows live output (if any) until the command ends; `with` works on every kind."""
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def note(self, message: str) -> None:
        self._noted(self.sanitize(message))

    def __call__(self, message: str) -> None:
        """Progress is also the plain one-message callback older callers pass around."""
        self.note(message)

    def total_seconds(self) -> float:
        return sum(t.seconds for t in self.timings)

    def _advanced(self, step: Step, detail: str, counted: bool) -> None:
        detail = self.sanitize(detail) if detail else ""
        repeat = counted and detail == step.detail  # the item working_on already named, now done
        step.detail = detail
        self._show_item(step, detail, counted, repeat)

    # What subclasses show; texts arrive sanitized.
    def _started(self, step: Step) -> None: ...
    def _show_item(self, step: Step, detail: str, counted: bool, repeat: bool) -> None: ...
    def _finished(self, step: Step, seconds: float) -> None: ...
    def _noted(self, message: str) -> None: ...

    def _failed(self, step: Step, seconds: float) -> None:
        """The step ended with an error (the command reports it); shown as ended, not as done."""
        self._finished(step, seconds)


def _count(step: Step) -> str:
    return f"{step.done}/{step.total}" if step.total is not None else ""


def _seconds(value: float) -> str:
    return f"{value:.1f} s" if value < 120 else f"{int(value // 60)} min {int(value % 60)} s"


@dataclass
class LogProgress(Progress):
    """For a job log: a line when a step starts and one with its time when it ends."""

    write: Callable[[str], None] = print

    def _started(self, step: Step) -> None:
        suffix = f" ({step.total})" if step.total is not None else ""
        self.write(f"▶ {step.label}{suffix}")

    def _show_item(self, step: Step, detail: str, counted: bool, repeat: bool) -> None:
        # One line per item: when it starts (working_on) or, if it was not announced, when it is done.
        if detail and not repeat:
            number = step.done + (0 if counted else 1)
            count = f"[{number}/{step.total}] " if step.total is not None else ""
            self.write(f"  {count}{detail}")

    def _finished(self, step: Step, seconds: float) -> None:
        self.write(f"✓ {step.label} in {_seconds(seconds)}")

    def _failed(self, step: Step, seconds: float) -> None:
        self.write(f"✗ {step.label}: stopped after {_seconds(seconds)}")

    def _noted(self, message: str) -> None:
        self.write(f"  {message}")


@dataclass
class RichProgress(Progress):
    """Live bars on a terminal (rich): a spinner, the count, the current item and the elapsed time."""

    console: Console | None = None
    _bars: RichBars | None = None
    _tasks: dict[int, TaskID] = field(default_factory=dict)

    def __enter__(self) -> RichProgress:
        from rich.progress import BarColumn, SpinnerColumn, TextColumn, TimeElapsedColumn
        from rich.progress import Progress as Bars
        from rich.table import Column

        self._bars = Bars(
            SpinnerColumn(finished_text="[green]✓[/green]"),
            TextColumn("{task.description}", markup=False),
            BarColumn(bar_width=24),
            TextColumn("{task.fields[count]}", markup=False),  # "3/12" for steps with a total, else nothing
            # a fixed width, so bars do not shift as items come and go; long names end in "…"
            TextColumn(
                "{task.fields[detail]}",
                markup=False,
                style="dim",
                table_column=Column(width=32, no_wrap=True, overflow="ellipsis"),
            ),
            TimeElapsedColumn(),
            console=self.console,
            transient=False,
        )
        self._bars.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._bars is not None:
            self._bars.stop()
            self._bars = None

    def _started(self, step: Step) -> None:
        if self._bars is not None:
            self._tasks[id(step)] = self._bars.add_task(step.label, total=step.total, detail="", count=_count(step))

    def _show_item(self, step: Step, detail: str, counted: bool, repeat: bool) -> None:
        task = self._tasks.get(id(step))
        if self._bars is not None and task is not None:
            self._bars.update(task, completed=step.done, detail=detail, count=_count(step))

    def _finished(self, step: Step, seconds: float) -> None:
        task = self._tasks.pop(id(step), None)
        if self._bars is not None and task is not None:
            total = step.total if step.total is not None else 1
            self._bars.update(task, total=total, completed=total, detail="", count=_count(step))

    def _failed(self, step: Step, seconds: float) -> None:
        task = self._tasks.pop(id(step), None)
        if self._bars is not None and task is not None:
            self._bars.update(task, description=f"{step.label} (stopped)", detail="")
            self._bars.stop_task(task)

    def _noted(self, message: str) -> None:
        if self._bars is not None:
            self._bars.console.print(message, markup=False, highlight=False)


def timing_table(progress: Progress) -> list[tuple[str, str]]:
    """(step, time) rows for the end of a command, with the total last."""
    rows = [(t.label + (f" ({t.count})" if t.count is not None else ""), _seconds(t.seconds)) for t in progress.timings]
    rows.append(("total", _seconds(progress.total_seconds())))
    return rows
