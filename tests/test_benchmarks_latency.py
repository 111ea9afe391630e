"""BENCHMARKS.md's latency section renders what its figures say: ratios, geometric means and verdicts are
computed from the given figures (pure functions, no timing)."""

from __future__ import annotations

import math

from benchmarks import etcpp
from benchmarks.latency import (
    ZOO_DIR,
    LibSize,
    ModelRow,
    SizeRow,
    Summary,
    fma_peak,
    geomean,
    gflops_lines,
    latency_lines,
    macs,
    scaling_lines,
    size_lines,
    verdict_lines,
)

N_COLUMNS = 2 + len(etcpp.VARIANTS) + 3  # model, CNN, four latencies, three ratios


def _row(name: str, cnn: bool, portable: float, optimized: float, et_opt: float, xnn: float | None) -> ModelRow:
    us = {"portable": portable, "optimized": optimized, "et-optimized": et_opt}
    notes = {}
    if xnn is None:
        notes["et-xnnpack"] = "delegated export failed: RuntimeError: unsupported op"
    else:
        us["et-xnnpack"] = xnn
    return ModelRow(name, cnn, us, notes)


def _cells(line: str) -> list[str]:
    assert line.startswith("|") and line.endswith("|")
    return [c.strip() for c in line[1:-1].split("|")]


ROWS = [
    _row("resnet", True, 1000.0, 80.0, 5000.0, 40.0),  # opt/xnn 2.0, opt/et 0.016, port/et 0.2
    _row("mobilenet", True, 400.0, 45.0, 2000.0, 30.0),  # opt/xnn 1.5
    _row("gru", False, 36.0, 30.0, 37.5, 15.0),  # opt/xnn 2.0, opt/et 0.8
    _row("bert", False, 900.0, 600.0, 500.0, None),  # opt/et 1.2, no XNNPACK figure
]


def test_geomean() -> None:
    assert geomean([]) is None
    assert math.isclose(geomean([2.0, 8.0]) or 0, 4.0)


def _table(lines: list[str]) -> list[str]:
    return [line for line in lines if line.startswith("|")]


def test_table_rows_and_ratios() -> None:
    lines = latency_lines(ROWS)
    assert all(len(_cells(line)) == N_COLUMNS for line in _table(lines))
    resnet = _cells(next(line for line in lines if line.startswith("| resnet ")))
    assert resnet[1] == "yes"
    assert resnet[2:6] == ["1,000.0", "80.0", "5,000.0", "40.0"]
    assert resnet[6:] == ["2.00", "0.016", "0.20"]
    bert = _cells(next(line for line in lines if line.startswith("| bert ")))
    assert bert[1] == ""
    assert bert[5] == "n/a (delegated export failed: RuntimeError: unsupported op)"
    assert bert[6] == "n/a" and bert[7] == "1.20"


def test_geometric_mean_rows() -> None:
    lines = latency_lines(ROWS)
    cnn = _cells(next(line for line in lines if "geometric mean, CNNs" in line))
    assert cnn[6] == f"**{math.sqrt(2.0 * 1.5):.2f}**"
    every = _cells(next(line for line in lines if "geometric mean, every model" in line))
    # bert has no XNNPACK figure: the mean is over 3 of the 4 models, and says so
    assert every[6] == f"**{(2.0 * 1.5 * 2.0) ** (1 / 3):.2f}** (3 of 4)"
    assert every[7] == f"**{(80 / 5000 * 45 / 2000 * 30 / 37.5 * 600 / 500) ** 0.25:.2f}**"


def test_summary_lists_missing_and_above() -> None:
    s = Summary.of(ROWS, "optimized", "et-xnnpack", 1.0)
    assert s.missing == ["bert"]
    assert s.above == ["resnet", "mobilenet", "gru"]


def test_verdicts_follow_the_figures() -> None:
    lines = verdict_lines(ROWS)
    assert "Goal, latency" in lines[0] and "not met" in lines[0] and "without a figure: bert" in lines[0]
    assert "CNNs" in lines[1] and ": met**" in lines[1] and "geometric mean 1.73" in lines[1]
    assert "every model" in lines[2] and ": met**" in lines[2] and "above 1.0 on its own: bert" in lines[2]
    assert "First gate as a whole: passed" in lines[3]


def test_verdicts_flip_when_figures_change() -> None:
    slow = [_row("resnet", True, 1000.0, 100.0, 5000.0, 40.0), _row("gru", False, 36.0, 40.0, 37.5, 15.0)]
    lines = verdict_lines(slow)
    assert "not met" in lines[1]  # 100/40 = 2.5 > 2.0
    assert ": met**" in lines[2] and "above 1.0 on its own: gru" in lines[2]  # sqrt(0.02 * 1.067) ≈ 0.15
    assert "First gate as a whole: not passed" in lines[3]
    fast = [_row("resnet", True, 1000.0, 30.0, 5000.0, 40.0)]
    lines = verdict_lines(fast)
    assert "Goal, latency" in lines[0] and ": met**" in lines[0]
    assert "First gate as a whole: passed" in lines[3]
    assert "not determined" not in "".join(lines)
    none = verdict_lines([_row("gru", False, 36.0, 40.0, 37.5, 15.0)])
    assert "not determined" in none[1]  # no CNN among the figures
    assert "not passed" in none[3]


def test_size_lines() -> None:
    libs = [
        LibSize("libexecutorch.so", 400_000, 410_000),
        LibSize("libexecutorch_backend_xnnpack.so", 2_000_000, 2_010_000),
    ]
    rows = [
        SizeRow("gru", 18, 150_000, 170_000),
        SizeRow("big", 90, 190_000, 210_000),
        SizeRow("bad", 3, None, None, "x"),
    ]
    lines = size_lines(rows, libs)
    gru = _cells(next(line for line in lines if line.startswith("| gru ")))
    assert gru[2:] == ["150,000", "170,000", "1.13", "0.085", "yes"]
    big = _cells(next(line for line in lines if line.startswith("| big ")))
    assert big[-1] == "**no**"
    goal = lines[-1]
    assert "not met" in goal and "at or over: big" in goal and "not measured: bad" in goal
    assert "200,000 bytes" in goal


def test_output_errors_are_marked() -> None:
    rows = [_row("resnet", True, 1000.0, 80.0, 5000.0, 40.0), _row("gru", False, 36.0, 30.0, 37.5, 15.0)]
    rows[0].errors = {"portable": 1e-6, "optimized": 2e-5, "et-optimized": 0.0, "et-xnnpack": 3e-3}
    rows[1].errors = {"portable": 1e-6, "optimized": 1e-6, "et-optimized": 0.0, "et-xnnpack": 1e-5}
    lines = latency_lines(rows)
    resnet = _cells(next(line for line in lines if line.startswith("| resnet ")))
    assert resnet[5] == "40.0 †" and resnet[3] == "80.0"
    assert any("ours optimized 2.0e-05" in line and "ET XNNPACK 3.0e-03" in line for line in lines)
    assert lines[-1] == "† outputs beyond the tolerance: resnet ET XNNPACK (3.0e-03)."


def test_compile_flags_keep_flags_drop_paths() -> None:
    import shlex

    from benchmarks.latency import _clean

    command = (
        "/usr/bin/c++ -DX=1 -I/a/include -isystem /b/include -O3 -DNDEBUG -std=c++17 -march=x86-64-v4 "
        "-MD -MT k.o -MF k.o.d -o k.o -c /src/k.cpp"
    )
    assert _clean(shlex.split(command)) == [
        "/usr/bin/c++",
        "-DX=1",
        "-O3",
        "-DNDEBUG",
        "-std=c++17",
        "-march=x86-64-v4",
    ]


def test_size_columns_in_the_latency_table() -> None:
    sizes = [SizeRow("resnet", 15, 160_000, 200_000), SizeRow("gru", 18, 150_000, None, "build failed")]
    lines = latency_lines(ROWS[:3], sizes, 2_000_000)
    table = _table(lines)
    assert all(len(_cells(line)) == N_COLUMNS + 2 for line in table)
    resnet = _cells(next(line for line in lines if line.startswith("| resnet ")))
    assert resnet[-2:] == ["200,000", "0.100"]
    gru = _cells(next(line for line in lines if line.startswith("| gru ")))
    assert gru[-2:] == ["n/a", "n/a"]
    mobilenet = _cells(next(line for line in lines if line.startswith("| mobilenet ")))
    assert mobilenet[-2:] == ["n/a", "n/a"]


def test_scaling_states_each_models_two_over_one_thread_ratio() -> None:
    one = [_row("resnet", True, 1000.0, 80.0, 5000.0, 40.0), _row("bert", False, 900.0, 600.0, 500.0, None)]
    two = [_row("resnet", True, 1000.0, 60.0, 5000.0, 25.0), _row("bert", False, 900.0, 650.0, 500.0, None)]
    lines = scaling_lines({1: one, 2: two})
    assert lines[0] == "### Scaling from 1 to 2 threads"
    resnet = _cells(next(line for line in lines if line.startswith("| resnet ")))
    # ours 1, 2 threads; XNNPACK 1, 2 threads; ours 2/1, XNNPACK 2/1; ours / XNNPACK at 1 and at 2
    assert resnet[1:] == ["80.0", "60.0", "40.0", "25.0", "0.75", "0.62", "2.00", "2.40"]
    bert = _cells(next(line for line in lines if line.startswith("| bert ")))
    assert bert[1:] == ["600.0", "650.0", "n/a", "n/a", "1.08", "n/a", "n/a", "n/a"]
    assert scaling_lines({1: one}) == []  # one thread count: nothing to scale


def test_gflops_are_the_programs_flops_over_the_measured_time() -> None:
    rows = [_row("resnet", True, 1000.0, 80.0, 5000.0, 40.0), _row("gru", False, 36.0, 30.0, 37.5, 15.0)]
    lines = gflops_lines(rows, 100.0, "test")
    assert not [line for line in lines if line.startswith("| gru ")]  # CNNs only
    resnet = _cells(next(line for line in lines if line.startswith("| resnet ")))
    flops = 2 * sum(macs(ZOO_DIR / "resnet.pte"))
    assert flops > 0
    rate_ours, rate_xnn = flops / 80.0 / 1e3, flops / 40.0 / 1e3
    assert resnet[1:] == [
        f"{flops / 1e6:,.1f}",
        f"{rate_ours:.1f}",
        f"{rate_xnn:.1f}",
        f"{rate_ours:.0f} %",
        f"{rate_xnn:.0f} %",
    ]
    assert "not measured (no probe)" in "".join(gflops_lines(rows, None, "no probe"))


def test_the_fma_peak_probe_measures_at_the_optimized_kernels_width() -> None:
    cpu = etcpp.host_cpu()
    peak, note = fma_peak(cpu)
    assert peak is not None and peak > 0, note
    lanes = {"x86-64-v4": 16, "x86-64-v3": 8}.get(cpu or "")
    if lanes is not None:
        assert f"{lanes} f32 lanes" in note
