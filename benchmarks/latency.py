"""BENCHMARKS.md's latency and runtime-size section (issue 13): ours portable, ours optimized, ExecuTorch's
C++ runtime with its optimized kernels and with XNNPACK, on every zoo model (benchmarks/etcpp.py measures);
the ratios, their geometric means over the CNNs and over every model, and the verdicts on the goal and
the first gate, all computed from the figures; the stripped sizes of our selective runtimes and of the
wheel's libraries; the build flags read from the builds themselves.

The rendering functions (`latency_lines`, `size_lines`, `verdict_lines`) are pure: figures in, markdown out.
"""

from __future__ import annotations

import math
import shlex
import shutil
import subprocess
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from benchmarks import etcpp
from bot.build import cmake, size
from bot.build.compare import TOLERANCE
from bot.errors import BotError
from bot.selection import pte

ZOO_DIR = cmake.REPO_ROOT / "models" / "zoo"
OPLIST_DIR = cmake.REPO_ROOT / "models" / "oplist"
CONVOLUTION = "aten::convolution.out"
GOAL_XNNPACK = 1.0  # goal: geomean ours optimized / XNNPACK over every zoo model
GATE_CNN_XNNPACK = 2.0  # first gate: geomean ours optimized / XNNPACK over the CNNs
GATE_ET_OPTIMIZED = 1.0  # first gate: geomean ours optimized / ET optimized kernels over every model
SIZE_GOAL_FRACTION = 10  # goal: selective runtime under 1/10 of libexecutorch_backend_xnnpack.so
XNNPACK_LIB = "libexecutorch_backend_xnnpack.so"
ET_CORE_LIB = "libexecutorch.so"
ET_OPTIMIZED_LIBS = ("libexecutorch.so", "libexecutorch_kernels_optimized.so", "libexecutorch_threadpool.so")
ET_XNNPACK_LIBS = (*ET_OPTIMIZED_LIBS, XNNPACK_LIB)

# (column title, numerator variant, denominator variant)
RATIOS = (
    ("ours opt / XNNPACK", "optimized", "et-xnnpack"),
    ("ours opt / ET opt", "optimized", "et-optimized"),
    ("ours portable / ET opt", "portable", "et-optimized"),
)
SCALED = ("optimized", "et-xnnpack")  # the variants the scaling and GFLOP/s tables compare
PEAK_PROBE = "fma_peak_probe"
LABELS = {
    "portable": "ours portable",
    "optimized": "ours optimized",
    "et-optimized": "ET optimized kernels",
    "et-xnnpack": "ET XNNPACK",
}


# ---------------------------------------------------------------- figures (pure data)


@dataclass
class ModelRow:
    """One zoo model's latency figures: median µs per variant, reasons for the missing ones."""

    name: str
    cnn: bool
    us: dict[str, float] = field(default_factory=dict)
    notes: dict[str, str] = field(default_factory=dict)
    errors: dict[str, float] = field(default_factory=dict)  # largest output error against the reference

    def ratio(self, num: str, den: str) -> float | None:
        if num in self.us and den in self.us and self.us[den] > 0:
            return self.us[num] / self.us[den]
        return None


@dataclass
class SizeRow:
    """One zoo model's selective runtimes: stripped VM bytes (None and a reason when a build failed)."""

    name: str
    ops: int
    portable: int | None
    optimized: int | None
    note: str = ""


@dataclass
class LibSize:
    name: str
    vm_size: int
    file_size: int


def geomean(values: Iterable[float]) -> float | None:
    values = list(values)
    if not values:
        return None
    return math.exp(sum(math.log(v) for v in values) / len(values))


@dataclass
class Summary:
    """A geometric mean of one ratio over a set of models, and the models that had no figure."""

    value: float | None
    measured: list[str]
    missing: list[str]
    above: list[str]  # measured models whose own ratio exceeds the bound it is judged by

    @staticmethod
    def of(rows: Sequence[ModelRow], num: str, den: str, bound: float = 1.0) -> Summary:
        measured, missing, above, ratios = [], [], [], []
        for row in rows:
            r = row.ratio(num, den)
            if r is None:
                missing.append(row.name)
            else:
                measured.append(row.name)
                ratios.append(r)
                if r > bound:
                    above.append(row.name)
        return Summary(geomean(ratios), measured, missing, above)


def _fmt_ratio(r: float | None) -> str:
    if r is None:
        return "n/a"
    return f"{r:.2f}" if r >= 0.1 else f"{r:.2g}"  # two significant digits below 0.1, never a bare 0.00


def _fmt_us(row: ModelRow, variant: str) -> str:
    if variant in row.us:
        wrong = row.errors.get(variant, 0.0) > TOLERANCE
        return f"{row.us[variant]:,.1f}" + (" †" if wrong else "")
    return f"n/a ({row.notes[variant]})" if variant in row.notes else "n/a"


# ---------------------------------------------------------------- rendering (pure)


def verdict(label: str, summary: Summary, bound: float, over: str) -> str:
    """One verdict line: met / not met / not determined, from the summary's figures."""
    if summary.value is None:
        return f"- **{label}: not determined** — no figures over {over}."
    within = summary.value <= bound
    status = "met" if within and not summary.missing else ("not met" if not within else "met on the measured models")
    line = (
        f"- **{label}: {status}** — geometric mean {_fmt_ratio(summary.value)} (bound {bound:.1f}) over "
        f"{len(summary.measured)} model{'s' if len(summary.measured) != 1 else ''} ({over})"
    )
    if summary.above:
        line += f"; above {bound:.1f} on its own: {', '.join(summary.above)}"
    if summary.missing:
        line += f"; without a figure: {', '.join(summary.missing)}"
    return line + "."


def verdict_lines(rows: Sequence[ModelRow]) -> list[str]:
    cnns = [r for r in rows if r.cnn]
    goal = Summary.of(rows, "optimized", "et-xnnpack", GOAL_XNNPACK)
    gate_cnn = Summary.of(cnns, "optimized", "et-xnnpack", GATE_CNN_XNNPACK)
    gate_et = Summary.of(rows, "optimized", "et-optimized", GATE_ET_OPTIMIZED)
    gate_met = (
        gate_cnn.value is not None
        and gate_et.value is not None
        and gate_cnn.value <= GATE_CNN_XNNPACK
        and gate_et.value <= GATE_ET_OPTIMIZED
    )
    gate_complete = not gate_cnn.missing and not gate_et.missing
    return [
        verdict("Goal, latency (ours optimized / XNNPACK ≤ 1.0)", goal, GOAL_XNNPACK, "every model in this run"),
        verdict("First gate, CNNs (ours optimized / XNNPACK ≤ 2.0)", gate_cnn, GATE_CNN_XNNPACK, "the CNNs"),
        verdict(
            "First gate, every model (ours optimized / ET optimized kernels ≤ 1.0)",
            gate_et,
            GATE_ET_OPTIMIZED,
            "every model in this run",
        ),
        f"- **First gate as a whole: {'passed' if gate_met and gate_complete else 'not passed'}**"
        + ("" if gate_complete or not gate_met else " (figures missing for some models)")
        + ".",
    ]


def latency_lines(
    rows: Sequence[ModelRow], sizes: Sequence[SizeRow] = (), xnnpack_bytes: int | None = None
) -> list[str]:
    """The per-model table (four latencies, three ratios and, when `sizes` are given, ours optimized
    selective runtime's bytes and their fraction of `xnnpack_bytes`) and the geometric-mean rows."""
    by_model = {r.name: r for r in sizes}
    size_titles = ["ours opt selective (bytes)", "÷ XNNPACK .so"] if sizes else []

    def size_cells(name: str) -> list[str]:
        if not sizes:
            return []
        found = by_model.get(name)
        if found is None or found.optimized is None:
            return ["n/a", "n/a"]
        frac = f"{found.optimized / xnnpack_bytes:.3f}" if xnnpack_bytes else "n/a"
        return [f"{found.optimized:,}", frac]

    def line(cells: Iterable[str]) -> str:
        return "| " + " | ".join(cells) + " |"

    titles = [f"{LABELS[v]} (µs)" for v in etcpp.VARIANTS] + [title for title, _, _ in RATIOS] + size_titles
    head = [line(["model", "CNN", *titles]), "|---|:-:|" + "---:|" * len(titles)]
    body = [
        line(
            [
                r.name,
                "yes" if r.cnn else "",
                *(_fmt_us(r, v) for v in etcpp.VARIANTS),
                *(_fmt_ratio(r.ratio(num, den)) for _, num, den in RATIOS),
                *size_cells(r.name),
            ]
        )
        for r in rows
    ]
    means = []
    for label, subset in (("CNNs", [r for r in rows if r.cnn]), ("every model", list(rows))):
        cells = []
        for _, num, den in RATIOS:
            summary = Summary.of(subset, num, den)
            cell = _fmt_ratio(summary.value)
            if summary.value is not None:
                cell = f"**{cell}**" + (f" ({len(summary.measured)} of {len(subset)})" if summary.missing else "")
            cells.append(cell)
        blank = [""] * len(etcpp.VARIANTS)
        means.append(line([f"geometric mean, {label} ({len(subset)})", "", *blank, *cells, *([""] * len(size_titles))]))
    return [*head, *body, *means, "", *error_lines(rows)]


def error_lines(rows: Sequence[ModelRow]) -> list[str]:
    """What the outputs of the timed programs were checked against, and what differed (marked †)."""
    worst: dict[str, float] = {}
    for r in rows:
        for variant, err in r.errors.items():
            if variant in r.us:
                worst[variant] = max(worst.get(variant, 0.0), err)
    lines = [
        "Outputs checked: each variant's outputs, from one untimed run, against ExecuTorch's reference",
        f"(`models/zoo/<name>.expected*.npy`; bot/build/compare.py's measure, tolerance {TOLERANCE:g}). Largest error: "
        + (", ".join(f"{LABELS[v]} {worst[v]:.1e}" for v in etcpp.VARIANTS if v in worst) or "none checked")
        + ".",
    ]
    wrong = [
        f"{r.name} {LABELS[v]} ({r.errors[v]:.1e})"
        for r in rows
        for v in etcpp.VARIANTS
        if v in r.us and r.errors.get(v, 0.0) > TOLERANCE
    ]
    if wrong:
        lines.append(f"† outputs beyond the tolerance: {', '.join(wrong)}.")
    return lines


def size_lines(rows: Sequence[SizeRow], libs: Sequence[LibSize]) -> list[str]:
    """The wheel's libraries, then each model's selective runtimes against the XNNPACK backend library."""
    by_name = {lib.name: lib for lib in libs}
    lines = ["| ExecuTorch wheel library (prebuilt) | stripped VM bytes | stripped file bytes |", "|---|---:|---:|"]
    lines += [f"| `{lib.name}` | {lib.vm_size:,} | {lib.file_size:,} |" for lib in libs]
    for label, names in (
        ("ET runtime with optimized kernels (the libraries above it loads)", ET_OPTIMIZED_LIBS),
        ("ET runtime with XNNPACK", ET_XNNPACK_LIBS),
    ):
        if all(n in by_name for n in names):
            vm = sum(by_name[n].vm_size for n in names)
            fs = sum(by_name[n].file_size for n in names)
            lines.append(f"| {label}: {' + '.join(f'`{n}`' for n in names)} | {vm:,} | {fs:,} |")
    xnn = by_name.get(XNNPACK_LIB)
    limit = xnn.vm_size / SIZE_GOAL_FRACTION if xnn else None
    lines += [
        "",
        "| model | ops | ours portable selective | ours optimized selective | optimized / portable |"
        f" optimized / `{XNNPACK_LIB}` | under 1/{SIZE_GOAL_FRACTION} |",
        "|---|---:|---:|---:|---:|---:|:-:|",
    ]
    for r in rows:
        port = f"{r.portable:,}" if r.portable is not None else f"n/a ({r.note})"
        opt = f"{r.optimized:,}" if r.optimized is not None else f"n/a ({r.note})"
        grow = f"{r.optimized / r.portable:.2f}" if r.portable and r.optimized is not None else "n/a"
        frac = f"{r.optimized / xnn.vm_size:.3f}" if xnn and r.optimized is not None else "n/a"
        under = "n/a" if limit is None or r.optimized is None else ("yes" if r.optimized < limit else "**no**")
        lines.append(f"| {r.name} | {r.ops} | {port} | {opt} | {grow} | {frac} | {under} |")
    lines.append("")
    measured = [r for r in rows if r.optimized is not None]
    if limit is None:
        lines.append(f"- **Goal, size: not determined** — `{XNNPACK_LIB}` was not measured.")
    elif not measured:
        lines.append("- **Goal, size: not determined** — no optimized selective runtime was measured.")
    else:
        assert xnn is not None
        over = [r.name for r in measured if r.optimized is not None and r.optimized >= limit]
        largest = max(measured, key=lambda r: r.optimized or 0)
        missing = [r.name for r in rows if r.optimized is None]
        status = "not met" if over else ("met" if not missing else "met on the measured models")
        line = (
            f"- **Goal, size (ours optimized selective < 1/{SIZE_GOAL_FRACTION} of `{XNNPACK_LIB}`, "
            f"{limit:,.0f} bytes): {status}** — largest {largest.name} at {largest.optimized:,} bytes "
            f"({(largest.optimized or 0) / xnn.vm_size:.3f} of it) over {len(measured)} models"
        )
        if over:
            line += f"; at or over: {', '.join(over)}"
        if missing:
            line += f"; not measured: {', '.join(missing)}"
        lines.append(line + ".")
    return lines


# ---------------------------------------------------------------- measuring


# Where a model's multiply-accumulates are: the convolution, and the matrix products with the index of
# the operand whose last dim is the contracted one (out elements times that size = MACs).
MATMUL_OPERAND = {"aten::mm.out": 0, "aten::bmm.out": 0, "aten::addmm.out": 1}


def _numel(sizes: tuple[int, ...]) -> int:
    n = 1
    for extent in sizes:
        n *= extent
    return n


def macs(model: Path) -> tuple[int, int]:
    """Multiply-accumulates of the model's convolutions and of its matrix products, from the program's
    own tensor shapes (the traced, upper-bound shapes of a dynamic model)."""
    conv = matmul = 0
    for plan in pte.load(model).plans:
        for ins in plan.instructions:
            if ins.kind != "KernelCall" or ins.op_index is None or not 0 <= ins.op_index < len(plan.operators):
                continue
            op = plan.operators[ins.op_index]
            tensors = [plan.values[a] for a in ins.args if 0 <= a < len(plan.values)]
            if op == CONVOLUTION and len(tensors) >= 10 and tensors[1].sizes:
                weight, out = tensors[1], tensors[9]
                conv += _numel(out.sizes) * _numel(weight.sizes[1:])
            elif op in MATMUL_OPERAND and len(tensors) > MATMUL_OPERAND[op] + 1:
                operand, out = tensors[MATMUL_OPERAND[op] + (1 if op == "aten::addmm.out" else 0)], tensors[-2]
                if operand.sizes:
                    matmul += _numel(out.sizes) * operand.sizes[-1]
    return conv, matmul


def is_cnn(model: Path) -> bool:
    """A CNN: a model whose convolutions carry most of its multiply-accumulates (read from the program:
    a vision transformer whose only convolution embeds patches is not one)."""
    conv, matmul = macs(model)
    return conv > 0 and conv >= matmul


def zoo_models(names: Iterable[str] | None = None) -> list[str]:
    every = sorted(p.stem for p in ZOO_DIR.glob("*.pte"))
    if names is None:
        return every
    wanted = list(names)
    unknown = [n for n in wanted if n not in every]
    if unknown:
        raise BotError(f"not zoo models: {', '.join(unknown)} (models/zoo has {', '.join(every)})")
    return wanted


def measure_latency(names: Sequence[str], cpu: str | None, progress: Callable[[str], None] = print) -> list[ModelRow]:
    binaries = etcpp.Binaries(cpu)
    rows = []
    for name in names:
        figures = etcpp.compare(name, binaries)
        row = ModelRow(name, is_cnn(ZOO_DIR / f"{name}.pte"), figures.us, figures.notes, figures.errors)
        progress(
            f"{name}: " + ", ".join(f"{v} {row.us[v]:.1f} µs" if v in row.us else f"{v} n/a" for v in etcpp.VARIANTS)
        )
        rows.append(row)
    return rows


def _vm_bytes(binary: Path, work: Path) -> tuple[int, int]:
    stripped = size.strip_copy(binary, work)
    vm = sum(s.size for s in size.elf_sections(stripped) if s.loadable)
    return vm, stripped.stat().st_size


def wheel_sizes(work: Path) -> list[LibSize]:
    libdir = etcpp.executorch_lib_dir()
    out = []
    for name in dict.fromkeys(ET_XNNPACK_LIBS):
        path = libdir / name
        if path.is_file():
            vm, fs = _vm_bytes(path, work / "wheel")
            out.append(LibSize(name, vm, fs))
    return out


def selective_flavours(yaml_path: Path, cpu: str | None) -> dict[str, cmake.Flavour]:
    """A model's selective runtimes as the bot builds them (Release, dtype selection on): portable, and
    with the optimized library preferred at `cpu`."""
    portable = cmake.selective_flavour(yaml_path)
    return {
        "portable": portable,
        "optimized": cmake.with_options(portable, cmake.optimized_all_ops(cpu).options),
    }


def measure_sizes(names: Sequence[str], cpu: str | None, work: Path) -> list[SizeRow]:
    from bot.selection import oplist

    rows = []
    for name in names:
        yaml_path = OPLIST_DIR / f"{name}.yaml"
        if not yaml_path.is_file():
            rows.append(SizeRow(name, 0, None, None, f"no {yaml_path.relative_to(cmake.REPO_ROOT)}"))
            continue
        n_ops = len(oplist.load(yaml_path).operators)
        measured, note = selective_sizes(yaml_path, cpu, work / name)
        rows.append(SizeRow(name, n_ops, measured["portable"], measured["optimized"], note))
    return rows


def selective_sizes(yaml_path: Path, cpu: str | None, work: Path) -> tuple[dict[str, int | None], str]:
    """The stripped VM bytes of the selection's portable and optimized runtimes (None for one whose build
    failed), and the last failure's one-line reason."""
    measured: dict[str, int | None] = {}
    note = ""
    for variant, flavour in selective_flavours(yaml_path, cpu).items():
        try:
            build_dir = cmake.build(flavour, targets=(cmake.SIZE_PROBE,))
            measured[variant] = _vm_bytes(build_dir / cmake.SIZE_PROBE, work / variant)[0]
        except BotError as exc:
            measured[variant] = None
            note = etcpp.one_line(exc)
    return measured, note


# ---------------------------------------------------------------- build flags, read from the builds

_DROP_WITH_VALUE = frozenset({"-o", "-c", "-MT", "-MF", "-MQ", "-I", "-isystem"})
_DROP = frozenset({"-MD", "-MMD"})


def _clean(tokens: list[str]) -> list[str]:
    out: list[str] = []
    skip = False
    for tok in tokens:
        if skip:
            skip = False
            continue
        if tok in _DROP_WITH_VALUE:
            skip = True
            continue
        if tok in _DROP or tok.startswith(("-I", "-isystem")):
            continue
        out.append(tok)
    return out


def compile_flags(build_dir: Path, source_name: str) -> str | None:
    """The compile command of `source_name` in `build_dir` (from ninja's compilation database), without
    the launcher, include paths, dependency-file and output options."""
    import json

    done = subprocess.run([cmake._tool("ninja"), "-C", str(build_dir), "-t", "compdb"], capture_output=True, text=True)
    if done.returncode != 0:
        return None
    for entry in json.loads(done.stdout or "[]"):
        if Path(entry.get("file", "")).name == source_name:
            tokens = shlex.split(entry["command"])
            if tokens and Path(tokens[0]).name == "ccache":
                tokens = tokens[1:]
            tokens = [t for t in _clean(tokens) if Path(t).name != source_name]
            return " ".join(shlex.quote(t) for t in tokens)
    return None


def link_flags(build_dir: Path, target: str) -> str | None:
    """The link command of `target`: the linker driver and its options (objects and libraries by name)."""
    done = subprocess.run(
        [cmake._tool("ninja"), "-C", str(build_dir), "-t", "commands", target], capture_output=True, text=True
    )
    lines = [ln for ln in done.stdout.splitlines() if f"-o {target}" in ln]
    if done.returncode != 0 or not lines:
        return None
    text = lines[-1].replace(": && ", "").replace(" && :", "")
    wheel = str(etcpp.executorch_lib_dir())
    tokens = []
    for tok in shlex.split(text):
        tok = tok.replace(f"{wheel}/cmake/executorch/../../../lib", "$ET_LIB").replace(wheel, "$ET_LIB")
        if tok.endswith(".o"):
            continue
        if tok.endswith((".so", ".a")) and "/" in tok:
            tok = Path(tok).name
        tokens.append(tok)
    return " ".join(tokens)


def compiler_version(command_line: str | None) -> str:
    if not command_line:
        return "unknown"
    compiler = shlex.split(command_line)[0]
    done = subprocess.run([compiler, "--version"], capture_output=True, text=True)
    return done.stdout.splitlines()[0] if done.returncode == 0 and done.stdout else "unknown"


def wheel_comment() -> str:
    """What the wheel's libraries say about their compiler (`readelf -p .comment`)."""
    readelf = shutil.which("readelf")
    path = etcpp.executorch_lib_dir() / ET_CORE_LIB
    if readelf is None or not path.is_file():
        return "unknown"
    done = subprocess.run([readelf, "-p", ".comment", str(path)], capture_output=True, text=True)
    found = [ln.split("]", 1)[1].strip() for ln in done.stdout.splitlines() if "]" in ln]
    return "; ".join(dict.fromkeys(found)) or "unknown"


def flag_lines(cpu: str | None) -> list[str]:
    """Build flags as used, read back from the build directories."""
    lines = []
    # (label, build dir, the sources whose compile command to show, the linked target)
    builds: list[tuple[str, Path | None, tuple[str, ...], str]] = []
    for variant in ("portable", "optimized"):
        try:
            build_dir: Path | None = cmake.build(etcpp.ours_flavour(variant, cpu))
        except BotError:
            build_dir = None
        sources: tuple[str, ...] = ("op_convolution.cpp",)
        if variant == "optimized":
            # An optimized kernel and a portable one (there: a fallback) compile differently.
            optimized = sorted((cmake.REPO_ROOT / "kernels" / "optimized").glob("opt_*.cpp"))
            sources = (optimized[0].name, *sources) if optimized else sources
        builds.append((LABELS[variant], build_dir, sources, "executor_runner"))
    try:
        et_dir: Path | None = etcpp.build_runner()
    except BotError:
        et_dir = None
    builds.append(("et_bench driver (ET variants)", et_dir, ("et_bench.cpp",), "et_bench_xnnpack"))
    version = None
    for label, build_dir, sources, target in builds:
        if build_dir is None:
            lines.append(f"- {label}: build failed, flags unknown")
            continue
        for i, source in enumerate(sources):
            compile_cmd = compile_flags(build_dir, source)
            version = version or compile_cmd
            lead = f"- {label} — compile" if i == 0 else "  compile"
            lines.append(f"{lead} (`{source}`): `{compile_cmd or 'not found'}`")
        lines.append(f"  link (`{target}`): `{link_flags(build_dir, target) or 'not found'}`")
    lines += [
        f"- Compiler: {compiler_version(version)}.",
        f"- ExecuTorch's libraries are the wheel's, prebuilt (their flags are the wheel's); `readelf -p .comment "
        f"{ET_CORE_LIB}`: {wheel_comment()}.",
    ]
    return lines


# ---------------------------------------------------------------- the section


def thread_heading(count: int) -> str:
    """The heading of a table measured on `count` threads: how many, and the cores they were pinned to."""
    with etcpp.on_threads(count):
        pinned = " ".join(etcpp.pin())
    words = "One thread" if count == 1 else f"{count} threads (ours: `executor_runner --threads {count}`)"
    return f"### {words}, pinned (`{pinned}`)"


def scaling_lines(at: Mapping[int, Sequence[ModelRow | etcpp.Figures]]) -> list[str]:
    """Per model, ours optimized and ExecuTorch+XNNPACK at each thread count, each one's time at the most
    threads over its time at one (< 1: faster with threads), and ours / XNNPACK at each count."""
    counts = sorted(at)
    if len(counts) < 2:
        return []
    low, high = counts[0], counts[-1]
    by_name = {n: {r.name: r for r in rows} for n, rows in at.items()}
    titles = [
        *(f"{LABELS[v]}, {n} thr. (µs)" for v in SCALED for n in (low, high)),
        *(f"{LABELS[v]} {high} / {low}" for v in SCALED),
        *(f"ours opt / XNNPACK, {n} thr." for n in (low, high)),
    ]
    lines = [
        f"### Scaling from {low} to {high} threads",
        "",
        f"From the tables above. A ratio {high} / {low} under 1 means the model runs faster on {high} threads.",
        "",
        "| model | " + " | ".join(titles) + " |",
        "|---|" + "---:|" * len(titles),
    ]
    for row in at[low]:
        us = {(n, v): _us(by_name[n].get(row.name), v) for n in (low, high) for v in SCALED}
        cells = [
            *(f"{us[n, v]:,.1f}" if us[n, v] is not None else "n/a" for v in SCALED for n in (low, high)),
            *(_fmt_ratio(_over(us[high, v], us[low, v])) for v in SCALED),
            *(_fmt_ratio(_over(us[n, "optimized"], us[n, "et-xnnpack"])) for n in (low, high)),
        ]
        lines.append(f"| {row.name} | " + " | ".join(cells) + " |")
    return [*lines, ""]


def _us(row: ModelRow | etcpp.Figures | None, variant: str) -> float | None:
    return row.us.get(variant) if row is not None else None


def _over(a: float | None, b: float | None) -> float | None:
    return a / b if a is not None and b else None


def gflops_lines(rows: Sequence[ModelRow], peak: float | None, peak_note: str) -> list[str]:
    """Each CNN's achieved GFLOP/s (two per multiply-add of its convolutions and matrix products, read
    from the program) for ours optimized and ExecuTorch+XNNPACK, next to one core's measured peak."""
    cnns = [r for r in rows if r.cnn]
    if not cnns:
        return []
    peak_text = f"**{peak:.1f} GFLOP/s**" if peak is not None else f"not measured ({peak_note})"
    lines = [
        "### Achieved GFLOP/s of the CNNs, one thread",
        "",
        "One core's peak f32 multiply-add rate, measured by `native/bench/fma_peak_probe` (built with the",
        f"optimized kernels' flags, {peak_note}): {peak_text}. A model's FLOPs are two per multiply-add of its",
        f"`{CONVOLUTION}` and matrix-product calls, counted from the program's shapes.",
        "",
        "| model | MFLOP | ours optimized (GFLOP/s) | ET XNNPACK (GFLOP/s) | ours, % of peak | XNNPACK, % of peak |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for row in cnns:
        flops = 2 * sum(macs(ZOO_DIR / f"{row.name}.pte"))
        rates = {v: flops / row.us[v] / 1e3 if row.us.get(v) else None for v in SCALED}
        cells = [f"{flops / 1e6:,.1f}"]
        cells += [f"{rates[v]:.1f}" if rates[v] is not None else "n/a" for v in SCALED]
        cells += [f"{100 * rates[v] / peak:.0f} %" if rates[v] is not None and peak else "n/a" for v in SCALED]
        lines.append(f"| {row.name} | " + " | ".join(cells) + " |")
    return [*lines, ""]


def fma_peak(cpu: str | None) -> tuple[float | None, str]:
    """One core's peak GFLOP/s from native/bench/fma_peak_probe, built as the optimized kernels are and
    pinned to core 0; and how it was measured (or why it was not)."""
    try:
        build = cmake.build(etcpp.ours_flavour("optimized", cpu), targets=(PEAK_PROBE,))
        done = subprocess.run(
            ["taskset", "-c", "0", str(build / PEAK_PROBE)], capture_output=True, text=True, check=True, timeout=120
        )
    except (BotError, OSError, subprocess.SubprocessError) as exc:
        return None, etcpp.one_line(exc)
    found = dict(line.split(maxsplit=1) for line in done.stdout.splitlines() if " " in line)
    return float(found["fma_peak_gflops"]), f"`-march={cpu or 'default'}`, {found['vector_lanes']} f32 lanes"


def section(
    work: Path, names: Sequence[str] | None = None, sizes: bool = True, thread_counts: Sequence[int] | None = None
) -> list[str]:
    """The section at each of `thread_counts` (default: SB_BENCH_THREADS alone), with the scaling between
    them and the CNNs' GFLOP/s at the fewest."""
    names = zoo_models(names)
    cpu = etcpp.host_cpu()
    work.mkdir(parents=True, exist_ok=True)
    at = etcpp.at_each_count(thread_counts, lambda: measure_latency(names, cpu))
    counts = list(at)
    size_rows = measure_sizes(names, cpu, work / "sizes") if sizes else []
    libs = wheel_sizes(work) if sizes else []
    xnnpack_bytes = next((lib.vm_size for lib in libs if lib.name == XNNPACK_LIB), None)
    peak, peak_note = fma_peak(cpu)
    n_proc, n_iter = etcpp.processes(), etcpp.repeat()
    lines = [
        "## Latency against ExecuTorch's C++ runtime",
        "",
        f"Every zoo model, four ways, in one run: {LABELS['portable']} (all-ops runtime, portable kernels, `-Os`",
        f"and the compiler's default cpu), {LABELS['optimized']} (all-ops runtime, optimized library preferred:",
        f"the optimized kernels at `-O2 -march={cpu or 'default'}`, the core and the portable kernels (fallbacks,",
        "and the ops the optimized library lacks) at `-Os` and the compiler's default cpu, as the bot builds",
        "them; the cpu picked from this host's flags: x86-64-v4 with AVX-512, else x86-64-v3),",
        "ExecuTorch 1.5.1's C++ runtime with its optimized kernels (same `.pte`), and with XNNPACK (the same",
        "torch model exported with the XNNPACK partitioner; its run goes through `native/et_bench`).",
        f"On {' and on '.join(str(n) for n in counts)} thread{'s' if counts != [1] else ''} (a table each;",
        "ExecuTorch's pool reset to the same count and checked), pinned to as many cores from core 0, same",
        f"saved inputs (`models/zoo/<name>.input*.npy`). Each figure: median over {n_proc} processes of each",
        f"process's median of {n_iter} (set inputs, execute) iterations after one warm-up; the variants run",
        "interleaved, one process of each in turn. Ratios < 1 mean ours is faster. A CNN is a model whose",
        f"`{CONVOLUTION}` calls carry at least half of its multiply-accumulates (counted from the program's",
        "shapes against mm/bmm/addmm). `SB_BENCH_PROCESSES` / `SB_BENCH_REPEAT` change the counts.",
        *(
            [
                "The last two columns: the stripped size of the model's own selective runtime with the optimized",
                f"library (next section), and its fraction of `{XNNPACK_LIB}`'s (goal: under 1/{SIZE_GOAL_FRACTION}).",
            ]
            if sizes
            else []
        ),
        "",
    ]
    for count in counts:
        lines += [
            thread_heading(count),
            "",
            *latency_lines(at[count], size_rows, xnnpack_bytes),
            "",
            *verdict_lines(at[count]),
            "",
        ]
    lines += [
        *scaling_lines(at),
        *gflops_lines(at[counts[0]], peak, peak_note),
        "Build flags, as used (read from each build's ninja files):",
        "",
        *flag_lines(cpu),
        "",
    ]
    if sizes:
        lines += [
            "## Runtime sizes against ExecuTorch's libraries",
            "",
            "Stripped VM bytes (loadable sections of a stripped copy, summed without page padding; bot/build/size.py).",
            "Ours: each model's selective runtime (`runtime_size_probe`: loader, executor and the kernels of",
            "`models/oplist/<name>.yaml`, dtype selection on, Release as the bot builds it), portable and with",
            f"the optimized library preferred at `-march={cpu or 'default'}`. ExecuTorch: the wheel's shared",
            "libraries.",
            "",
            *size_lines(size_rows, libs),
            "",
        ]
    return lines
