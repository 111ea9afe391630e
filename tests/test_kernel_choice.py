"""Size or speed per target (`kernels:` and `cpu:` in .selective-build.yml), end to end: real pipeline
runs on a scenario repo (cnn: squeezenet and unet; seq: gru), one branch per PR against `main`, and the
config errors a bad choice gets."""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot import pipeline
from bot.build import arch, cmake, size
from bot.build.kernel_choice import KernelChoice
from bot.report import comment
from bot.selection.kernel_library import load_libraries
from bot.selection.oplist import load as load_selection
from tests.conftest import REPO_ROOT
from tests.judging import judged
from tests.scenario_repo import bot, clone_of, commit_all
from tests.scenario_repo import git as repo_git

SEQ = "  seq:\n    yaml: apps/seq/selected_operators.yaml\n"


def optimized_op() -> str:
    """An op of the optimized library that gru runs (else any of its ops): what the mix selects."""
    ops = sorted(load_libraries([REPO_ROOT / "kernels" / "optimized" / "functions.yaml"]))
    gru = load_selection(REPO_ROOT / "models" / "oplist" / "gru.yaml").names()
    return next((op for op in ops if op in gru), ops[0])


def choose(repo: Path, kernels: str) -> None:
    """seq gets `kernels: <kernels>`."""
    config = repo / ".selective-build.yml"
    text = config.read_text()
    assert SEQ in text
    config.write_text(text.replace(SEQ, f"{SEQ}    kernels: {kernels}\n"))


BRANCHES = {
    "optimized": lambda repo: choose(repo, "optimized"),
    "mix": lambda repo: choose(repo, f"{{optimized: [{optimized_op()}]}}"),
}


@pytest.fixture(scope="module")
def choice_repo(base_repo: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    repo = clone_of(base_repo, tmp_path_factory.mktemp("choice") / "repo")
    for name, edit in BRANCHES.items():
        repo_git(repo, "checkout", "-q", "-b", name, "main")
        edit(repo)
        commit_all(repo, name)
        repo_git(repo, "checkout", "-q", "main")
    cache = tmp_path_factory.mktemp("choice-cache")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SB_CACHE_DIR", str(cache))
        yield repo


def measured_vm_bytes(yaml_file: Path, source: Path, options: dict[str, str]) -> int:
    """bot/build/size.py on the size probe the pipeline built from `yaml_file` with these kernel options
    (the same flavour, the same build directory: nothing is rebuilt)."""
    # the scenario repo's models need none of the core's optional parts: the pipeline builds without them
    flavour = cmake.with_options(cmake.selective_flavour(yaml_file, True, False, core_parts=frozenset()), options)
    built = cmake.build(flavour, targets=cmake.size_targets(arch.HOST), source_dir=source)
    with tempfile.TemporaryDirectory() as tmp:
        return size.analyse(built / cmake.SIZE_PROBE, None, {}, Path(tmp), arch=arch.HOST).vm_size


def cost_line(markdown: str, target: str) -> str:
    return next(line for line in markdown.splitlines() if line.startswith(f"- {target} on "))


def test_an_optimized_target_states_its_cost_in_exact_bytes(choice_repo: Path) -> None:
    rep = pipeline.run_pr(choice_repo, "main", "optimized", lambda _: None)
    seq = next(t for t in rep.targets if t.name == "seq")
    cnn = next(t for t in rep.targets if t.name == "cnn")
    s = seq.sizes[0]
    assert s.head and s.portable and not s.build_error
    assert (s.kernels, s.cpu, s.base_kernels, s.base_cpu) == ("optimized", "x86-64-v3", "portable", None)
    assert not seq.load_failures and not rep.stale  # gru ran on the optimized runtime
    # The cost is the head's VM bytes minus the portable runtime's of the same selection, both as
    # bot/build/size.py measures the build directories the pipeline used.
    head_root = cmake.cache_dir() / "worktrees" / f"head-{pipeline.git.repo_key(choice_repo)}"
    yaml_file = pipeline.regenerated_path(head_root, "seq")
    optimized = measured_vm_bytes(
        yaml_file,
        head_root / "native",
        KernelChoice.every_optimized("x86-64-v3").cmake_options("x86-64"),
    )
    portable = measured_vm_bytes(yaml_file, head_root / "native", {})
    assert (s.head.vm_size, s.portable.vm_size) == (optimized, portable)
    assert s.optimized_cost == optimized - portable > 0
    markdown = comment.render(rep, judged(rep))
    line = cost_line(markdown, "seq")
    share = f"{(optimized - portable) / portable:.2%}"
    assert line.startswith(
        f"- seq on x86\\-64: optimized kernels \\(x86\\-64\\-v3\\), +{optimized - portable:,} bytes (+{share}) "
        f"over portable kernels: {portable:,} → {optimized:,}"
    ), line
    assert line.endswith("; changed in this PR from portable kernels")
    # A portable target gets no line; the headline names the choice as where the bytes come from.
    assert cnn.sizes[0].portable is None and "- cnn on " not in markdown
    summary = comment.summary_line(rep, judged(rep))
    assert "kernels portable → optimized in 1 target: runtimes ▲" in summary, summary
    print(line)  # the real line, for people reading the test log


def test_a_mix_optimizes_just_the_ops_it_names(choice_repo: Path) -> None:
    rep = pipeline.run_pr(choice_repo, "main", "mix", lambda _: None)
    s = next(t for t in rep.targets if t.name == "seq").sizes[0]
    assert (s.kernels, s.cpu) == ("optimized: 1 op", "x86-64-v3") and s.head and s.portable
    head_root = cmake.cache_dir() / "worktrees" / f"head-{pipeline.git.repo_key(choice_repo)}"
    yaml_file = pipeline.regenerated_path(head_root, "seq")
    options = KernelChoice(True, (optimized_op(),), (("x86-64", "x86-64-v3"),)).cmake_options("x86-64")
    assert s.head.vm_size == measured_vm_bytes(yaml_file, head_root / "native", options)
    line = cost_line(comment.render(rep, judged(rep)), "seq")
    assert line.startswith("- seq on x86\\-64: optimized kernels for 1 op \\(x86\\-64\\-v3\\), +"), line


def test_bot_build_of_a_target_builds_its_kernel_choice(choice_repo: Path) -> None:
    repo_git(choice_repo, "checkout", "-q", "optimized")
    try:
        built = bot(choice_repo, "build", "--target", "seq", "--json")
        assert built.returncode == 0, built.stderr
        figures = json.loads(built.stdout)
        assert (figures["kernels"], figures["cpu"]) == ("optimized", "x86-64-v3")
        portable = bot(choice_repo, "build", "--target", "seq", "--kernels", "portable", "--json")
        assert portable.returncode == 0, portable.stderr
        assert (json.loads(portable.stdout)["kernels"], json.loads(portable.stdout)["cpu"]) == ("portable", None)
        assert figures["vm_bytes"] > json.loads(portable.stdout)["vm_bytes"]
    finally:
        repo_git(choice_repo, "checkout", "-q", "main")


BAD_CHOICES = {
    "a malformed op": (
        "{optimized: [permute_copy]}",
        "targets.seq.kernels.optimized[0]: 'permute_copy' is not an operator name",
    ),
    "an op the library lacks": (
        "{optimized: [aten::no_such_op.out]}",
        "targets.seq.kernels.optimized[0]: the optimized kernel library has no kernel for aten::no_such_op.out",
    ),
    "an unknown choice": ("fastest", "targets.seq.kernels: 'fastest' is not a kernel choice"),
    "a cpu that is no -march value": (
        "optimized\n    cpu: {x86-64: '-O0 -march=native'}",
        "targets.seq.cpu.x86-64: '-O0 -march=native' is not a -march value",
    ),
    "a cpu on portable kernels": (
        "portable\n    cpu: {x86-64: x86-64-v4}",
        "targets.seq.cpu: a cpu is the -march of the optimized kernels, and the target's kernels are portable",
    ),
    "a cpu for an architecture not built": (
        "optimized\n    cpu: {aarch64: armv8.2-a}",
        "targets.seq.cpu: a cpu for aarch64, which the target is not built for (its architectures: x86-64)",
    ),
}


@pytest.mark.parametrize("case", list(BAD_CHOICES))
def test_a_bad_kernel_choice_is_one_config_error_line(case: str, base_repo: Path, tmp_path: Path) -> None:
    kernels, expected = BAD_CHOICES[case]
    repo = clone_of(base_repo, tmp_path / "repo")
    choose(repo, kernels)
    for command in (("build", "--target", "seq"), ("pr", "--base", "HEAD")):
        proc = bot(repo, *command)
        lines = proc.stderr.strip().splitlines()
        assert proc.returncode == 3, (command, proc.stderr)  # ExitCode.CONFIG
        assert lines[-1].startswith(f"error: .selective-build.yml: {expected}"), lines
        assert len([line for line in lines if line.startswith("error:")]) == 1
