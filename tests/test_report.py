"""Rendering limits and the size-budget policy."""

from __future__ import annotations

from dataclasses import replace

from bot.github import action
from bot.report import comment, escape, terminal, verdict
from bot.report.model import ArchSizes, PrReport, SelectionDiff, SizeReport, TargetReport, cannot_fix
from tests.judging import judged


def sized_target(name: str, base: int, head: int, ops: int) -> TargetReport:
    def size(total: int, bump: int) -> SizeReport:
        per_op = {f"aten::op_{i}_with_a_long_descriptive_name.out": 100 + i + bump for i in range(ops)}
        symbols = {f"sb::kernels::fn_{i}": 50 + bump for i in range(ops)}
        return SizeReport(total, 64, total + 4096, {".text": total // 2}, symbols, per_op)

    sizes = (ArchSizes("x86-64", size(base, 0), size(head, 1)),)
    return TargetReport(name, f"apps/{name}/selected_operators.yaml", True, SelectionDiff(), (), (), sizes)


def big_report(targets: int, ops: int) -> PrReport:
    return PrReport(
        "main", "b" * 40, "a" * 40, tuple(sized_target(f"app-{i}", 1000, 1010, ops) for i in range(targets)), ()
    )


def test_comment_stays_under_githubs_limit_and_says_it_was_truncated() -> None:
    full = comment.render(big_report(3, 5), judged(big_report(3, 5)))
    assert "shortened" not in full and "<details>" in full
    huge = comment.render(big_report(60, 400), judged(big_report(60, 400)))
    assert len(huge) <= comment.COMMENT_LIMIT
    assert "Report shortened to fit GitHub's comment limit: per-target breakdowns" in huge
    assert huge.startswith(comment.MARKER)
    # the size table survives (breakdowns go first); one architecture: named once, not a column
    assert "| app\\-0 | 1,000 | 1,010 |" in huge and "VM bytes on x86\\-64" in huge


def test_size_budget_fails_unless_the_pr_body_explains() -> None:
    over = PrReport("main", "b" * 40, "a" * 40, (sized_target("vision-app", 1000, 2000, 2),), ())
    policy = verdict.Policy(fail_on_stale=False, gates=verdict.budgets([("vision-app", "x86-64", 1500)]))
    failing = verdict.judge(over, policy.for_pr("Refactor.\n"))
    assert [r.kind for r in failing.failures] == ["budget"] and "over the size budget: vision-app" in failing.failures[
        0
    ].message
    explained = verdict.judge(over, policy.for_pr("Refactor.\n\nBinary-Size: new model needs it\n"))
    assert explained.passed and explained.icon == "⚠️" and "new model needs it" in explained.waived[0].message
    assert "❌ over" in comment.render(over, failing) and comment.summary_line(over, failing).startswith("❌")


def two_arch_target(name: str, x86: tuple[int, int], arm: tuple[int, int]) -> TargetReport:
    def size(total: int, ops: dict[str, int]) -> SizeReport:
        return SizeReport(total, 64, total + 4096, {".text": total // 2}, {"sb::kernels::f(int)": total}, ops)

    ops = {"aten::relu.out": 900}
    sizes = tuple(
        ArchSizes(arch, size(base, ops), size(head, {"aten::relu.out": 900 + head - base}))
        for arch, (base, head) in (("x86-64", x86), ("aarch64", arm))
    )
    return TargetReport(name, f"apps/{name}/selected_operators.yaml", True, SelectionDiff(), (), (), sizes)


def test_summaries_are_raw_html_so_names_in_them_get_entities_not_backslashes() -> None:
    rep = PrReport("main", "b" * 40, "a" * 40, (sized_target("app-0", 1000, 1010, 2),), ())
    markdown = comment.render(rep, judged(rep))
    summary = next(line for line in markdown.splitlines() if line.startswith("<details><summary>app"))
    assert "\\" not in summary and summary.startswith("<details><summary>app-0 on x86-64: ")
    hostile = escape.html_text("a_b *c* [x](y) <img> @me `t` \\n $m$")
    assert "\\" not in hostile.replace("&#92;", "") and "<" not in hostile and "@me" not in hostile


def test_one_architecture_is_named_once_and_a_one_row_change_gets_no_chart() -> None:
    rep = PrReport("main", "b" * 40, "a" * 40, (sized_target("app-0", 1000, 1010, 2),), ())
    markdown = comment.render(rep, judged(rep))
    assert "| target | base | head | Δ bytes | Δ % | budget |" in markdown
    assert "| op | Δ bytes |" in markdown  # one target, one arch: neither is a column
    assert "```mermaid" not in markdown
    assert comment.summary_line(rep, judged(rep)).startswith("📦 1 target, size ▲ +10 bytes")


def test_several_architectures_get_the_arch_column_and_a_high_contrast_chart() -> None:
    targets = (two_arch_target("cnn", (1000, 1300), (900, 1100)), two_arch_target("seq", (500, 450), (400, 400)))
    rep = PrReport("main", "b" * 40, "a" * 40, targets, ())
    markdown = comment.render(rep, judged(rep))
    assert "| target | arch | base | head | Δ bytes | Δ % | budget |" in markdown
    assert "| op | arch | Δ bytes | targets |" in markdown
    assert "…and 1 unchanged runtime." in markdown
    chart = markdown.split("```mermaid\n", 1)[1].split("```", 1)[0]
    assert chart.startswith("%%{init: ") and comment.GREW in chart and comment.SHRANK in chart
    assert '"cnn/x86-64", "cnn/aarch64", "seq/x86-64"' in chart
    assert "2 targets on x86\\-64, aarch64 (4 runtimes)" in comment.summary_line(rep, judged(rep))


def test_long_symbols_lose_argument_lists_and_return_types_first() -> None:
    name = (
        "sb::Error sb::kernels::unary_op<&sb::kernels::(anonymous namespace)::kOp, 33023u, "
        "sb::kernels::(anonymous namespace)::relu_out_impl(sb::KernelContext&, sb::Span<sb::Value* const>)"
        "::{lambda(auto:1)#1}>(sb::Tensor const&, sb::Tensor const&)"
    )
    short = comment.short_symbol(name)
    assert len(short) <= comment.SYMBOL_LIMIT and "…" in short
    assert short.startswith("sb::kernels::unary_op<") and short.endswith("relu_out_impl(…)::{lambda(…)#1}>(…)")
    assert comment.short_symbol("sb::kernels::plan(char const*, bool) const") == "sb::kernels::plan(…) const"
    assert comment.short_symbol("sb::kernels::(anonymous namespace)::f(int)") == "sb::kernels::(anon)::f(…)"
    assert comment.short_symbol("operator new(unsigned long)") == "operator new(…)"
    assert comment.short_symbol("(no symbol: .text)") == "(no symbol: .text)"


def test_a_changed_selection_is_named_as_where_the_bytes_come_from() -> None:
    def size(total: int, ops: tuple[str, ...]) -> SizeReport:
        per_op = {op: 1000 for op in ops} | {"(core runtime)": total - 1000 * len(ops)}
        return SizeReport(total, 64, total, {".text": total}, {}, per_op)

    before, after = ("aten::relu.out", "aten::cat.out"), ("aten::relu.out", "aten::add.out", "aten::mul.out")
    sizes = (ArchSizes("x86-64", size(10_000, before), size(11_000, after)),)
    target = TargetReport("app", "apps/app/selected_operators.yaml", True, SelectionDiff(), (), (), sizes)
    line = comment.summary_line(
        PrReport("main", "b" * 40, "a" * 40, (target,), ()), judged(PrReport("main", "b" * 40, "a" * 40, (target,), ()))
    )
    assert "selection +2 -1 ops: runtime ▲ +1,000 bytes (+10.00%)" in line and "size ▲" not in line


def test_counts_are_singular_or_plural() -> None:
    assert [escape.count(n, "target") for n in (0, 1, 2, 1234)] == [
        "0 targets",
        "1 target",
        "2 targets",
        "1,234 targets",
    ]
    assert escape.count(1, "new runtime") == "1 new runtime"
    rep = PrReport("main", "b" * 40, "a" * 40, (sized_target("app-0", 1000, 1000, 2),), ())
    assert "(s)" not in comment.render(rep, judged(rep)) and "the runtime is unchanged" in comment.render(
        rep, judged(rep)
    )


def test_a_load_failure_that_only_lists_the_missing_ops_is_not_said_twice() -> None:
    from bot.report.model import LoadFailure, OpUse

    model = "models/zoo/squeezenet.pte"
    missing = tuple(OpUse(op, (model,), ()) for op in ("aten::add.out", "aten::mul.out"))
    listed = LoadFailure(model, "squeezenet.pte: missing operators aten::add.out, aten::mul.out (needed by squeezenet)")
    other = LoadFailure(model, "squeezenet.pte: missing operators aten::add.out, aten::div.out (needed by squeezenet)")
    for failure, repeated in ((listed, False), (other, True)):
        target = TargetReport("app", "apps/app/selected_operators.yaml", True, SelectionDiff(missing), (), (failure,))
        markdown = comment.render(
            PrReport("main", "b" * 40, "a" * 40, (target,), ()),
            judged(PrReport("main", "b" * 40, "a" * 40, (target,), ())),
        )
        assert ("aten\\:\\:add\\.out" in markdown) == repeated  # the message's own (markdown-escaped) op list
        assert markdown.count("<code>aten::add.out</code>") == 1  # the missing-op line, always
        missing_lines = [line for line in markdown.splitlines() if line.lstrip().startswith("- missing <code>")]
        assert len(missing_lines) == 2 and not any("fails at load" in line for line in missing_lines)
        # listed under the failure they cause, the model named once; on their own, each names its model
        assert all(line.startswith("  - ") for line in missing_lines) != repeated
        assert markdown.count("needed by <code>models/zoo/squeezenet.pte</code>") == (2 if repeated else 0)


def test_a_load_failure_that_also_names_a_missing_backend_is_shown() -> None:
    """The runtime's one line names missing ops and backends; no yaml brings a backend the runtime does not
    bundle, so it is said."""
    from bot.report.model import LoadFailure, OpUse

    model = "models/zoo/demo_backend.pte"
    missing = (OpUse("aten::cumsum.out", (model,), ()),)
    line = "demo_backend.pte: missing operator aten::cumsum.out and backend BackendWithCompilerDemo"
    failure = LoadFailure(model, f"{line} (needed by demo_backend)")
    target = TargetReport("app", "apps/app/selected_operators.yaml", True, SelectionDiff(missing), (), (failure,))
    rep = PrReport("main", "b" * 40, "a" * 40, (target,), ())
    markdown = comment.render(rep, judged(rep))
    assert "BackendWithCompilerDemo" in markdown
    # No yaml brings the backend: the model is listed apart with what does fix it; the missing op keeps
    # "run regenerate". The model fails whatever the yaml policy says.
    at_load = markdown[markdown.index("### Models failing at load whatever the yaml") :]
    assert "**regenerating cannot fix this**: the runtime has no backend BackendWithCompilerDemo" in at_load
    assert "Fix: run `python -m bot regenerate` and commit the result." in markdown
    assert "breaks <code>models/zoo/demo_backend.pte</code> at load unless" not in markdown
    judged_off = judged(rep, verdict.Policy(fail_on_stale=False))
    assert [r.kind for r in judged_off.failures] == ["load"]
    assert judged_off.failures[0].message.startswith("1 model fails at load whatever the yaml, first ")


def test_a_missing_bundled_backend_is_one_regenerating_fixes() -> None:
    """XnnpackBackend ships with the runtime: a yaml regenerated for a delegated program selects its node
    kinds, and so the backend. A runtime built from a yaml without them misses it; regenerating fixes that."""
    message = "m.pte: missing operator aten::cumsum.out and backend XnnpackBackend (needed by m)"
    assert cannot_fix(message) is None
    assert cannot_fix("m.pte: missing backends XnnpackBackend, BackendWithCompilerDemo (needed by m)") is not None


def test_the_action_shows_each_step_and_ends_with_timings(tmp_path, monkeypatch) -> None:
    import io

    from bot import pipeline
    from bot.github.workflow_log import Log

    def analyze(root, base, head, progress, targets=None) -> pipeline.PrRun:  # the pipeline's calls, no builds
        with progress.step("building runtimes", total=1) as step:
            step.advance("vision on x86-64")
        with progress.step("size analysis"):
            pass
        return pipeline.PrRun(PrReport("main", "b" * 40, "a" * 40, (sized_target("vision", 1000, 1000, 1),), ()))

    monkeypatch.setattr(pipeline, "analyze", analyze)
    monkeypatch.chdir(tmp_path)
    out = io.StringIO()
    (tmp_path / "event.json").write_text("{}")
    (tmp_path / "m.pte").write_bytes(b"")
    (tmp_path / ".selective-build.yml").write_text(
        "version: 1\ntargets:\n  vision:\n    yaml: apps/vision/selected_operators.yaml\n    models: [m.pte]\n"
    )
    env = {
        "GITHUB_WORKSPACE": str(tmp_path),
        "GITHUB_EVENT_PATH": str(tmp_path / "event.json"),
        "INPUT_BASE": "b" * 40,
        "INPUT_POST": "false",
        "INPUT_REPORT": str(tmp_path / "report"),
    }
    assert action.run(env, Log(out=out)) == 0
    lines = out.getvalue().splitlines()
    assert lines[:3] == ["▶ building runtimes (1)", "  [1/1] vision on x86-64", lines[2]]
    assert lines[2].startswith("✓ building runtimes in ")
    timings = lines[lines.index("timings:") + 1 :]
    assert [line.split("  ")[-1] for line in timings] == ["building runtimes (1)", "size analysis", "total"]


def choice_report(base_kernels: str | None, base_cpu: str | None, base: int, head: int) -> PrReport:
    """vision (optimized kernels, x86-64-v3) over a portable runtime of 100,000 bytes; sensor portable."""

    def size(total: int, conv: int) -> SizeReport:
        per_op = {"aten::convolution.out": conv, "aten::relu.out": 500, "(core runtime)": total - conv - 500}
        return SizeReport(total, 64, total, {".text": total}, {}, per_op)

    portable = size(100_000, 20_000)
    optimized = ArchSizes(
        "x86-64",
        size(base, 20_000 if base == 100_000 else 60_000),
        size(head, 60_000),
        kernels="optimized",
        cpu="x86-64-v3",
        portable=portable,
        base_kernels=base_kernels,
        base_cpu=base_cpu,
    )
    plain = ArchSizes("x86-64", portable, portable, base_kernels="portable")
    targets = (
        TargetReport("vision", "apps/vision/selected_operators.yaml", True, SelectionDiff(), (), (), (optimized,)),
        TargetReport("sensor", "apps/sensor/selected_operators.yaml", True, SelectionDiff(), (), (), (plain,)),
    )
    return PrReport("main", "b" * 40, "a" * 40, targets, ())


def test_an_optimized_runtime_states_its_cost_and_the_headline_does_not_count_it_as_a_change() -> None:
    rep = choice_report("optimized", "x86-64-v3", 141_312, 141_312)  # the choice was made before this PR
    markdown = comment.render(rep, judged(rep))
    assert comment.summary_line(rep, judged(rep)).startswith("✅ **No change**")
    cost = next(line for line in markdown.splitlines() if line.startswith("- vision on x86"))
    assert cost.startswith(
        "- vision on x86\\-64: optimized kernels \\(x86\\-64\\-v3\\), +41,312 bytes (+41.31%) over portable kernels: "
        "100,000 → 141,312"
    ), cost
    assert "<code>aten::convolution.out</code> +40,000" in cost and "changed in this PR" not in cost
    assert "sensor on" not in markdown  # a portable runtime gets no line
    assert len(markdown.encode()) < 1500, markdown  # still the short comment
    x86 = terminal.to_json(rep, judged(rep))["targets"][0]["sizes"][0]  # type: ignore[index]
    assert (x86["kernels"], x86["cpu"], x86["portable_vm_size"], x86["choice_cost"]) == (
        "optimized",
        "x86-64-v3",
        100_000,
        41_312,
    )


def test_a_changed_kernel_choice_is_named_as_the_cause_of_the_size_change() -> None:
    rep = choice_report("portable", None, 100_000, 141_312)
    line = comment.summary_line(rep, judged(rep))
    assert line.startswith("📦 ") and "kernels portable → optimized in 1 target: runtimes ▲" in line
    assert "size ▲" not in line
    markdown = comment.render(rep, judged(rep))
    assert "; changed in this PR from portable kernels" in markdown
    assert "| vision | 100,000 | 141,312 | ▲ +41,312 |" in markdown
    # back to portable: the change is named, with no cost (the runtime is portable again)
    back = choice_report("optimized", "x86-64-v3", 141_312, 100_000)
    target = back.targets[0]
    s = target.sizes[0]
    portable_again = replace_sizes(back, replace(s, kernels="portable", cpu=None, portable=None))
    assert "kernels optimized → portable" in comment.summary_line(portable_again, judged(portable_again))
    assert "- vision on x86\\-64: portable kernels; changed in this PR from optimized kernels" in comment.render(
        portable_again, judged(portable_again)
    )


def test_a_changed_cpu_is_named_as_the_cause_too() -> None:
    rep = choice_report("optimized", "x86-64-v4", 150_000, 141_312)
    assert "cpu x86\\-64\\-v4 → x86\\-64\\-v3 in 1 target: runtimes ▼" in comment.summary_line(rep, judged(rep))
    assert "; changed in this PR from optimized kernels \\(x86\\-64\\-v4\\)" in comment.render(rep, judged(rep))


def replace_sizes(rep: PrReport, sizes: ArchSizes) -> PrReport:
    return replace(rep, targets=(replace(rep.targets[0], sizes=(sizes,)), *rep.targets[1:]))


def test_an_artifact_carries_the_kernel_choice() -> None:
    from bot.report import artifact

    rep = choice_report("portable", None, 100_000, 141_312)
    back, _ = artifact.loads(artifact.dumps(rep), "r.json")
    assert back == rep and back.targets[0].sizes[0].optimized_cost == 41_312
