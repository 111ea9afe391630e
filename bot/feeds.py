"""What a model's runs are given besides its program: its data files (.ptd), the inputs of each of its
methods, and how many steps each method runs. Found by name beside the model, as `forward`'s inputs are:

- `<model>.input<i>.npy`: forward's input i, every step;
- `<model>.<method>.input<i>.npy`: another method's input i;
- `<model>[.<method>].step<k>.input<i>.npy`: input i of step k (steps share one loaded method, so
  mutable state, a KV cache, carries over from step to step);
- `<model>.ptd`, `<model>.<anything>.ptd`: data files (the weights the program keeps outside the .pte);
- `<model>[.<method>][.step<k>].expected<i>.npy`: a reference's output i (of step k), as the zoo keeps
  ExecuTorch's.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

FORWARD = "forward"
MAX_STEPS = 10_000  # the runner's own bound is larger; a config asking for more is a mistake
_NUMBERED = re.compile(
    r"(?:(?P<method>[A-Za-z_][A-Za-z0-9_]*)\.)??(?:step(?P<step>[0-9]{1,5})\.)?(?P<kind>input|expected)(?P<i>[0-9]{1,5})"
)


@dataclass(frozen=True)
class Feeds:
    """A model's runs: data files, each method's inputs (in the runner's order: by step, then by input),
    and the steps each method runs."""

    data: tuple[Path, ...] = ()
    method_inputs: tuple[tuple[str, tuple[Path, ...]], ...] = ()  # methods other than forward
    steps: int = 1

    def inputs_of(self, method: str) -> tuple[Path, ...]:
        return dict(self.method_inputs).get(method, ())

    def under(self, root: Path) -> Feeds:
        """The same feeds with every path taken from `root` (a config's paths are relative to its repo)."""
        return Feeds(
            data=tuple(root / p for p in self.data),
            method_inputs=tuple((m, tuple(root / p for p in paths)) for m, paths in self.method_inputs),
            steps=self.steps,
        )

    def paths(self) -> tuple[Path, ...]:
        """Every file the runs read besides the program and forward's inputs."""
        return self.data + tuple(p for _, inputs in self.method_inputs for p in inputs)


NO_FEEDS = Feeds()


@dataclass(frozen=True)
class Found:
    inputs: dict[str, tuple[Path, ...]]  # by method, forward's included
    steps: int  # 1 + the highest step named, else 1
    data: tuple[Path, ...]
    # by method, each step's reference outputs (one tuple for a method whose outputs are not named by step)
    expected: dict[str, tuple[tuple[Path, ...], ...]] = dataclasses.field(default_factory=dict)


def classify(model_stem: str, files: Iterable[Path]) -> Found:
    """Sorts the files beside a model (`files`, any names) by the naming convention above."""
    numbered: dict[str, list[tuple[int, int, Path]]] = {}
    outputs: dict[str, list[tuple[int, int, Path]]] = {}
    data: list[Path] = []
    steps = 1
    for path in files:
        name = path.name
        if not name.startswith(model_stem + "."):
            continue
        rest = name[len(model_stem) + 1 :]
        if rest.endswith("ptd") and (rest == "ptd" or rest.endswith(".ptd")):
            data.append(path)
            continue
        if not rest.endswith(".npy"):
            continue
        match = _NUMBERED.fullmatch(rest[: -len(".npy")])
        if match is None:
            continue
        step = int(match["step"]) if match["step"] is not None else -1
        entry = (step, int(match["i"]), path)
        if match["kind"] == "input":
            steps = max(steps, step + 1)
            numbered.setdefault(match["method"] or FORWARD, []).append(entry)
        else:
            outputs.setdefault(match["method"] or FORWARD, []).append(entry)
    # A method with inputs per step takes those (step 0's, then step 1's, ...), not any it has for every step.
    inputs = {
        method: tuple(p for step, _, p in sorted(found) if step >= 0 or all(s < 0 for s, _, _ in found))
        for method, found in sorted(numbered.items())
    }
    expected = {method: _by_step(found) for method, found in sorted(outputs.items())}
    return Found(inputs=inputs, steps=steps, data=tuple(sorted(data)), expected=expected)


def _by_step(numbered: list[tuple[int, int, Path]]) -> tuple[tuple[Path, ...], ...]:
    steps = sorted({step for step, _, _ in numbered})
    return tuple(tuple(p for s, _, p in sorted(numbered) if s == step) for step in steps)
