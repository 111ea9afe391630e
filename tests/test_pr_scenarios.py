"""Scenario PRs in temporary repos, run through the whole local PR pipeline.

The first four run on the two-target x86-64 repo of conftest; the multi-architecture
ones on a repo measured for x86-64 and aarch64 (its cnn target for Cortex-M too),
one branch per PR against `main`, sharing one cache so base builds are reused."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot import git, pipeline
from bot.build import arch, cmake
from bot.errors import ExitCode
from bot.report import artifact, comment, escape, model, patch
from bot.selection import oplist
from tests import test_github_commands as commands_test
from tests.conftest import ZOO_DIR
from tests.github_fake import FakeGitHub
from tests.judging import judged
from tests.scenario_repo import clone_of, commit_all, grow_relu, make_base, make_kernel_call_another_op
from tests.scenario_repo import git as repo_git


@pytest.fixture
def repo(base_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("SB_CACHE_DIR", str(tmp_path / "cache"))
    return clone_of(base_repo, tmp_path / "repo")


def run(repo: Path) -> model.PrReport:
    """The pipeline for the last commit against the one before it."""
    return pipeline.run_pr(repo, "main~1", None, lambda _: None)


def target(rep: model.PrReport, name: str) -> model.TargetReport:
    return next(t for t in rep.targets if t.name == name)


def test_a_kernel_now_calling_another_op_makes_the_yaml_stale(repo: Path) -> None:
    make_kernel_call_another_op(repo)
    commit_all(repo, "clone via _to_dim_order_copy")

    rep = run(repo)
    cnn, seq = target(rep, "cnn"), target(rep, "seq")
    missing = {m.op: m for m in cnn.diff.missing}
    assert set(missing) == {"dim_order_ops::_to_dim_order_copy.out"}
    assert missing["dim_order_ops::_to_dim_order_copy.out"].callers == ("dim_order_ops::_clone_dim_order.out",)
    assert missing["dim_order_ops::_to_dim_order_copy.out"].models == ("models/zoo/squeezenet.pte",)
    assert [u.op for u in cnn.diff.unused] == ["aten::copy.out"]
    assert [f.model for f in cnn.load_failures] == ["models/zoo/squeezenet.pte"]
    assert "missing operator dim_order_ops::_to_dim_order_copy.out" in cnn.load_failures[0].message
    assert any(c.kind == "kernel" and c.path == "kernels/portable/op_clone_dim_order.cpp" for c in cnn.causes)
    assert not seq.diff.stale and not seq.load_failures
    # the static graph tells the same story from the compiled kernels
    assert [(e.caller, e.callee) for e in rep.graph_added] == [
        ("dim_order_ops::_clone_dim_order.out", "dim_order_ops::_to_dim_order_copy.out")
    ]
    assert [(e.caller, e.callee) for e in rep.graph_removed] == [
        ("dim_order_ops::_clone_dim_order.out", "aten::copy.out")
    ]
    change = next(c for c in cnn.closure_changes if c.model == "models/zoo/squeezenet.pte")
    assert change.lacking == ("dim_order_ops::_to_dim_order_copy.out",)
    text = comment.render(rep, judged(rep))
    assert "Op graph changes" in text
    assert "breaks <code>models/zoo/squeezenet.pte</code> at load" in text
    assert "(<code>kernels/portable/op_clone_dim_order.cpp</code>) now calls" in text
    assert "python -m bot regenerate" in text


def bot_pr(
    repo: Path, base: str, report: Path, head: str = ""
) -> tuple[subprocess.CompletedProcess[str], model.PrReport, str]:
    """`python -m bot pr` on the working tree (or `head`), every target: the process, the report and its
    markdown."""
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "bot",
            "pr",
            "--base",
            base,
            "--output",
            str(report),
            *(["--head", head] if head else []),
        ],
        cwd=repo,
        capture_output=True,
        text=True,
    )
    assert "Traceback" not in proc.stdout + proc.stderr, proc.stderr
    return proc, artifact.load(report.with_suffix(".json"))[0], report.read_text()


def sh_block(markdown: str) -> str:
    """The one command of the comment's ```sh block."""
    (command,) = re.findall(r"^```sh\n(.*)\n```$", markdown, flags=re.MULTILINE)
    return command


def test_b_new_model_without_yaml(repo: Path, tmp_path: Path) -> None:
    """A model added to cnn without regenerating: stale, with the patch that fixes it beside the report. The
    comment shows cnn's yaml diff and the command that applies the patch; applying it (that command, as
    printed) and committing makes the next run report nothing stale."""
    for src in ZOO_DIR.glob("mha_block.*"):
        shutil.copy2(src, repo / "models" / "zoo" / src.name)
    config = repo / ".selective-build.yml"
    config.write_text(
        config.read_text().replace("models/zoo/unet.pte]", "models/zoo/unet.pte, models/zoo/mha_block.pte]")
    )
    commit_all(repo, "add mha_block to cnn")
    report = tmp_path / "out" / "report.md"  # outside the repo: never committed with the fix

    proc, rep, text = bot_pr(repo, "main~1", report, head="HEAD")  # a commit, as the analyze job's head is

    assert proc.returncode == ExitCode.FINDINGS, proc.stderr
    cnn = target(rep, "cnn")
    assert cnn.models_without_yaml == ("models/zoo/mha_block.pte",)
    assert "models/oplist/mha_block.yaml" in rep.stale_files
    assert {"aten::gelu.out", "aten::native_layer_norm.out"} <= {m.op for m in cnn.diff.missing}
    assert [f.model for f in cnn.load_failures] == ["models/zoo/mha_block.pte"]
    assert any(c.kind == "model" and c.path == "models/zoo/mha_block.pte" for c in cnn.causes)
    assert rep.stale

    # The patch: every stale yaml and nothing else, each diff the one the report carries.
    stale = {"apps/cnn/selected_operators.yaml", "models/oplist/mha_block.yaml"}
    assert set(rep.stale_files) == stale
    patch_file = report.with_suffix(".patch")
    found = patch.parse(patch_file.read_text(), str(patch_file))
    assert sorted(f.path for f in found.files) == sorted(stale)
    assert patch.mismatch(found, rep, rep.head_sha) == "" and found.base == rep.base_sha
    assert [f.new for f in sorted(found.files, key=lambda f: f.path)] == [False, True]
    cnn_diff = rep.yaml_diff("apps/cnn/selected_operators.yaml")
    assert cnn_diff is not None and cnn_diff.added > 0 and "+  aten::gelu.out:" in cnn_diff.hunks
    # The comment: cnn's diff collapsed, then the command that applies the patch, the alternative after it.
    stale_section = section(text, "Stale yaml")
    assert "<details><summary>the regenerated yaml: +" in stale_section and "```diff\n@@ " in stale_section
    assert "+  aten::gelu.out:" in stale_section
    assert "- <code>models/oplist/mha_block.yaml</code> (+" in stale_section  # the per-model yaml, by name
    command = sh_block(text)
    assert command == f"git apply {patch_file.absolute()}"
    assert stale_section.rstrip().endswith(OR_REGENERATE)
    assert f"written to {patch_file}: apply it with {command}" in proc.stdout

    # `/selective-build apply` with this patch in the head's analysis artifact: the default branch's config
    # (main~1) allows both yamls, and the commit it makes sets each to what the printed command gives.
    head = rep.head_sha
    default_branch = tmp_path / "default-branch"
    repo_git(repo, "worktree", "add", "-q", "--detach", str(default_branch), "main~1")
    at_head = {f.path: repo_git(repo, "show", f"{head}:{f.path}") for f in found.files if not f.new}
    fake = commands_test.started(FakeGitHub())
    try:
        commands_test.serve(fake, patch_file.read_text(), head, head, at_head)
        by_comment = commands_test.command(
            tmp_path / "command", fake, "/selective-build apply", workspace=default_branch
        )
        assert by_comment.returncode == ExitCode.OK, by_comment.stdout + by_comment.stderr
    finally:
        fake.stop()

    applied = subprocess.run(command, shell=True, cwd=repo, capture_output=True, text=True)
    assert applied.returncode == 0, applied.stderr
    assert sorted(repo_git(repo, "status", "--porcelain").split("\n")[:-1]) == [
        " M apps/cnn/selected_operators.yaml",
        "?? models/oplist/mha_block.yaml",
    ]
    assert fake.committed() == {path: (repo / path).read_text() for path in stale}
    commit_all(repo, "apply the selective-build patch")

    proc, rep, text = bot_pr(repo, "main~2", report)

    assert proc.returncode == ExitCode.OK, proc.stdout + proc.stderr
    assert not rep.stale and rep.stale_files == () and rep.yaml_diffs == ()
    assert not target(rep, "cnn").load_failures  # mha_block runs on the runtime of the applied yaml
    assert "Stale yaml" not in text and not patch_file.exists()  # the first run's patch is gone


def test_c_size_only_kernel_change_shows_the_per_op_delta(repo: Path) -> None:
    kernel = repo / "kernels" / "portable" / "op_relu.cpp"
    # relu that maps NaN to 0: more code in the kernel, same ops and dtypes.
    body = "return x < T(0) ? T(0) : x;"
    assert body in kernel.read_text()
    kernel.write_text(kernel.read_text().replace(body, "return (x < T(0) || x != x) ? T(0) : x;"))
    commit_all(repo, "relu propagates NaN")

    rep = run(repo)
    cnn, seq = target(rep, "cnn"), target(rep, "seq")
    assert not rep.stale
    sizes = cnn.size("x86-64")
    assert sizes and sizes.head and sizes.base
    deltas = {op: sizes.head.per_op.get(op, 0) - sizes.base.per_op.get(op, 0) for op in sizes.head.per_op}
    assert deltas["aten::relu.out"] != 0
    assert all(d == 0 for op, d in deltas.items() if op not in ("aten::relu.out",) and not op.startswith("("))
    assert seq.delta == 0  # gru does not use relu
    text, line = comment.render(rep, judged(rep)), comment.summary_line(rep, judged(rep))
    assert "aten::relu.out" in text
    # A change of a few bytes may be under the noise floor: then the headline reads unchanged and the size
    # table still shows it exactly; over it, the headline names it.
    floor = judged(rep).policy.noise_floor
    assert f"| cnn | {sizes.base.vm_size:,} | {sizes.head.vm_size:,} | ▲ {cnn.delta:+,} |" in text
    if abs(cnn.delta or 0) < floor:
        assert line == f"✅ **No change**: 2 targets, size unchanged (below the {floor}-byte noise floor)", line
    else:
        assert "biggest: cnn on x86\\-64" in line, line


def test_d_nothing_changed(repo: Path) -> None:
    (repo / "NOTES.md").write_text("docs only\n")
    commit_all(repo, "docs")
    rep = run(repo)
    assert not rep.stale
    assert all(t.delta == 0 for t in rep.targets)
    assert "No change" in comment.summary_line(rep, judged(rep))


def test_f_a_new_delegated_model_is_selected_by_node_kind(repo: Path) -> None:
    """A PR adds an XNNPACK-delegated program (ExecuTorch's partitioner) to cnn without regenerating: the
    yaml lacks its node kinds, named like ops, and the program fails at load on the PR's runtime. Once
    the yaml is regenerated, the runtime registers XnnpackBackend and the size report counts each node
    kind, and the backend's own code, like ops."""
    delegated = ZOO_DIR.parent / "delegated"
    for src in delegated.glob("mobilenet_v2_xnn_f32.*"):
        shutil.copy2(src, repo / "models" / "zoo" / src.name)
    config = repo / ".selective-build.yml"
    config.write_text(
        config.read_text().replace("models/zoo/unet.pte]", "models/zoo/unet.pte, models/zoo/mobilenet_v2_xnn_f32.pte]")
    )
    commit_all(repo, "add a delegated mobilenet to cnn")

    rep = run(repo)
    cnn = target(rep, "cnn")
    missing = {m.op for m in cnn.diff.missing}
    assert {"xnnpack::conv2d.f32", "xnnpack::depthwise_conv2d.f32", "xnnpack::fully_connected.f32"} <= missing
    # The PR's runtime, selected from the stale yaml, has no node kinds and so no XnnpackBackend; the
    # regenerated yaml's node kinds bring the bundled backend in, so regenerating is the fix.
    failure = next(f for f in cnn.load_failures if f.model == "models/zoo/mobilenet_v2_xnn_f32.pte")
    assert "missing backend XnnpackBackend" in failure.message
    assert failure.cannot_fix is None
    text = comment.render(rep, judged(rep))
    assert "xnnpack::conv2d.f32" in text and "python -m bot regenerate" in text

    regenerated = subprocess.run(
        [sys.executable, "-m", "bot", "regenerate", "--root", str(repo)], capture_output=True, text=True
    )
    assert regenerated.returncode == 0, regenerated.stderr
    commit_all(repo, "regenerate")
    rep = run(repo)
    cnn = target(rep, "cnn")
    assert not cnn.diff.stale and not cnn.load_failures
    sizes = cnn.size("x86-64")
    assert sizes and sizes.head and sizes.base
    grown = {op: n - sizes.base.per_op.get(op, 0) for op, n in sizes.head.per_op.items()}
    assert grown["(backend XnnpackBackend)"] > 0
    assert grown["xnnpack::depthwise_conv2d.f32"] > 0


def pr(repo: Path, base: str, report: Path) -> subprocess.CompletedProcess[str]:
    """`python -m bot pr` on seq alone, as a developer runs it: its terminal output, the report files."""
    proc = subprocess.run(
        [sys.executable, "-m", "bot", "pr", "--base", base, "--targets", "seq", "--output", str(report)],
        cwd=repo,
        capture_output=True,
        text=True,
    )
    assert "Traceback" not in proc.stdout + proc.stderr, proc.stderr
    return proc


def section(text: str, heading: str) -> str:
    start = text.index(f"### {heading}\n")
    end = text.find("\n### ", start + 1)
    return text[start : end if end != -1 else len(text)]


BACKEND_LINE = "demo_backend.pte: missing backend BackendWithCompilerDemo (needed by demo_backend)"
BACKEND_FIX = (
    "regenerating cannot fix this: the runtime has no backend BackendWithCompilerDemo (build a runtime with the "
    "backend, or export the model without delegating to it)"
)
REGENERATE = "Fix: run `python -m bot regenerate` and commit the result."
OR_REGENERATE = "Or run `python -m bot regenerate` and commit the result."  # after the patch's command


def test_e_a_delegated_model_gets_an_honest_fix_line(
    repo: Path, tmp_path: Path, delegated_programs: dict[str, Path]
) -> None:
    """The PR adds to seq an XNNPACK-delegated program (the runtime has no BackendWithCompilerDemo: neither the
    tracer nor the smoke runtime can load it) and squeezenet, whose ops seq's yaml lacks. The comment and
    the terminal say regenerating cannot fix the delegated model, and what does; squeezenet's missing ops
    keep "run regenerate", once regenerate can write seq's yaml (a per-model yaml stands in for the
    delegated model)."""
    shutil.copy2(delegated_programs["demo_backend"], repo / "models" / "zoo" / "demo_backend.pte")
    config = repo / ".selective-build.yml"
    config.write_text(
        config.read_text().replace(
            "models: [models/zoo/gru.pte]",
            "models: [models/zoo/gru.pte, models/zoo/demo_backend.pte, models/zoo/squeezenet.pte]",
        )
    )
    commit_all(repo, "seq gains a delegated model and squeezenet")
    report = tmp_path / "report.md"

    proc = pr(repo, "main~1", report)

    assert proc.returncode == ExitCode.FINDINGS, proc.stderr
    rep, _ = artifact.load(report.with_suffix(".json"))
    assert rep.model_failures == (model.LoadFailure("models/zoo/demo_backend.pte", BACKEND_LINE),)
    seq = target(rep, "seq")
    failing = {f.model: f for f in seq.load_failures}
    # seq's runtime lacks the cumsum outside the delegate as well as the backend: both in one line.
    assert failing["models/zoo/demo_backend.pte"].message == BACKEND_LINE.replace(
        "missing backend", "missing operator aten::cumsum.out and backend"
    )
    assert failing["models/zoo/demo_backend.pte"].cannot_fix is not None
    assert failing["models/zoo/squeezenet.pte"].cannot_fix is None  # missing ops: a regenerated yaml has them
    assert seq.untraced_models == ("models/zoo/demo_backend.pte",)

    # The comment: the delegated model with what fixes it; squeezenet under the stale yaml, which
    # regenerate cannot rewrite while the delegated model has nothing to stand in for it.
    text = report.read_text()
    untraced = section(text, "Models the tracer could not run")
    assert untraced.splitlines()[2:4] == [
        "- ❌ <code>models/zoo/demo_backend.pte</code>: demo\\_backend\\.pte\\: missing backend "
        "BackendWithCompilerDemo \\(needed by demo\\_backend\\)",
        "  - **regenerating cannot fix this**: the runtime has no backend BackendWithCompilerDemo. Fix: build a "
        "runtime with the backend, or export the model without delegating to it.",
    ]
    stale = section(text, "Stale yaml")
    assert "breaks <code>models/zoo/squeezenet.pte</code> at load unless the yaml is regenerated" in stale
    assert (
        "- `python -m bot regenerate` leaves this yaml as checked in while <code>models/zoo/demo_backend.pte</code> "
        "cannot be traced: it has no checked-in per-model yaml to stand in"
    ) in stale
    assert REGENERATE not in text
    assert stale.rstrip().endswith(
        "Fix: make the models the tracer could not run traceable, or check in their per-model yamls; "
        "then run `python -m bot regenerate` and commit the result."
    )

    # The terminal: the model, its error line and what fixes it; the verdict's reason says it too.
    lines = proc.stdout.splitlines()
    at = lines.index(f"  could not trace models/zoo/demo_backend.pte: {BACKEND_LINE}")
    assert lines[at + 1] == f"    {BACKEND_FIX}"
    fails = [line for line in proc.stderr.splitlines() if line.startswith("fails: ")]
    assert fails == [
        f"fails: 1 model could not be traced, first models/zoo/demo_backend.pte: {BACKEND_LINE}; {BACKEND_FIX}",
        "fails: the selected-operators yaml is stale",
    ]

    # With the delegated model's per-model yaml checked in (its root ops, as `oplist` reads them),
    # regenerate can rewrite seq's yaml: squeezenet's fix is "run regenerate" again.
    oplist_yaml = repo / "models" / "oplist" / "demo_backend.yaml"
    written = subprocess.run(
        [sys.executable, "-m", "bot", "oplist", "models/zoo/demo_backend.pte", "-o", str(oplist_yaml)],
        cwd=repo,
        capture_output=True,
        text=True,
    )
    assert written.returncode == 0, written.stderr
    commit_all(repo, "the delegated model's per-model yaml")

    proc = pr(repo, "main~2", report)

    assert proc.returncode == ExitCode.FINDINGS, proc.stderr
    rep, _ = artifact.load(report.with_suffix(".json"))
    assert target(rep, "seq").untraced_models == ()
    text = report.read_text()
    stale = section(text, "Stale yaml")
    # Its cumsum (outside the delegate) is a missing op a regenerated yaml selects; its backend is not.
    # regenerate can write seq's yaml now: the patch beside the report holds it, and the comment applies it.
    assert stale.rstrip().endswith(OR_REGENERATE)
    assert sh_block(text) == f"git apply {report.with_suffix('.patch').absolute()}"
    assert "BackendWithCompilerDemo" not in stale
    assert BACKEND_FIX.replace("regenerating cannot fix this: ", "") not in stale
    assert "**regenerating cannot fix this**: the runtime has no backend BackendWithCompilerDemo" in section(
        text, "Models the tracer could not run"
    )


# --- per architecture ------------------------------------------------------------------------------

ARCH_CONFIG = """\
version: 1
kernel_libraries: [kernels/portable/functions.yaml]
oplist_dir: models/oplist
architectures: [x86-64, aarch64]
targets:
  cnn:
    yaml: apps/cnn/selected_operators.yaml
    models: [models/zoo/squeezenet.pte]
    architectures: [x86-64, aarch64, cortex-m]
  seq:
    yaml: apps/seq/selected_operators.yaml
    models: [models/zoo/gru.pte]
"""
NO_CHANGE_BYTES = 700  # a PR that changes nothing: the header, the summary line, one line on sizes


def _drop_an_op(repo: Path) -> None:
    """A hand edit of seq's yaml drops an op gru runs: stale, and gru fails at load on every arch."""
    path = repo / "apps" / "seq" / "selected_operators.yaml"
    selection = oplist.load(path)
    del selection.operators["aten::sigmoid.out"]
    selection.et_kernel_metadata.pop("aten::sigmoid.out", None)
    oplist.dump(selection, path)


BRANCHES = {
    "grow": grow_relu,
    "calls": make_kernel_call_another_op,
    "docs": lambda repo: (repo / "NOTES.md").write_text("docs only\n"),
    "stale": _drop_an_op,
}


@pytest.fixture(scope="module")
def arch_repo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    for needed in (arch.AARCH64, arch.CORTEX_M):
        missing = arch.missing_tools(needed)
        assert missing is None, missing  # scripts/setup.sh installs them; CI runs these
    repo = make_base(tmp_path_factory.mktemp("arch") / "repo", ARCH_CONFIG, ("squeezenet", "gru"))
    for name, edit in BRANCHES.items():
        repo_git(repo, "checkout", "-q", "-b", name, "main")
        edit(repo)
        commit_all(repo, name)
        repo_git(repo, "checkout", "-q", "main")
    cache = tmp_path_factory.mktemp("arch-cache")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SB_CACHE_DIR", str(cache))
        yield repo


def run_branch(repo: Path, branch: str) -> model.PrReport:
    return pipeline.run_pr(repo, "main", branch, lambda _: None)


_SECTION = re.compile(r"^\s*\[\s*\d+\]\s+(.*)$")


def loadable_bytes(binary: Path, target_arch: arch.Arch) -> int:
    """SHF_ALLOC, not NOBITS sections of `binary`, summed from binutils' section table (not bot/build/size.py)."""
    table = subprocess.run(
        [target_arch.tool("readelf"), "-S", "-W", str(binary)], check=True, capture_output=True, text=True
    ).stdout
    total = 0
    for line in table.splitlines():
        match = _SECTION.match(line)
        if not match:
            continue
        fields = match.group(1).split()
        if len(fields) < 10 or fields[1] == "NOBITS":  # [0] (NULL, no name, no flags) has fewer fields
            continue
        size, flags = int(fields[4], 16), fields[6]
        if "A" in flags:
            total += size
    return total


def probe(yaml_file: Path, source: Path, target_arch: arch.Arch, trusted: bool = False) -> Path:
    """The size probe the pipeline built from `yaml_file` (same flavour, same directory: nothing is rebuilt).
    `trusted`: the base's, which the pipeline builds as trusted code, in a tree PR code cannot see."""
    # squeezenet needs none of the core's optional parts: the pipeline builds cnn's runtime without them
    flavour = cmake.selective_flavour(yaml_file, True, False, arch=target_arch.name, core_parts=frozenset())
    built = cmake.build(flavour, targets=cmake.size_targets(target_arch), source_dir=source, trusted=trusted)
    return built / cmake.SIZE_PROBE


def test_a_kernel_growing_shows_its_exact_delta_on_every_architecture(arch_repo: Path) -> None:
    rep = run_branch(arch_repo, "grow")
    text = comment.render(rep, judged(rep))
    cache = cmake.cache_dir()
    base_root = cache / "worktrees" / f"base-{git.repo_key(arch_repo)}"
    head_root = cache / "worktrees" / f"head-{git.repo_key(arch_repo)}"
    cnn, seq = (next(t for t in rep.targets if t.name == n) for n in ("cnn", "seq"))
    assert not rep.stale and not cnn.load_failures and not seq.load_failures  # squeezenet and gru ran under qemu too
    assert [s.arch for s in cnn.sizes] == ["x86-64", "aarch64", "cortex-m"]
    for target_arch in (arch.HOST, arch.AARCH64, arch.CORTEX_M):
        base = loadable_bytes(
            probe(base_root / "apps/cnn/selected_operators.yaml", base_root / "native", target_arch, trusted=True),
            target_arch,
        )
        head_yaml = pipeline.regenerated_path(head_root, "cnn")
        head = loadable_bytes(probe(head_yaml, head_root / "native", target_arch), target_arch)
        delta = head - base
        assert 0 < delta < 1000, (target_arch.name, delta)  # a few hundred bytes
        assert cnn.size(target_arch.name).delta == delta
        row = f"| cnn | {escape.text(target_arch.name)} | {base:,} | {head:,} | ▲ {delta:+,} |"
        assert row in text, (row, text)
    assert [s.delta for s in seq.sizes] == [0, 0]  # gru's runtime does not link relu
    assert "| seq |" not in text and "…and 2 unchanged runtimes." in text
    line = comment.summary_line(rep, judged(rep))
    assert line.startswith("📦 ") and "biggest: cnn on " in line and "aten\\:\\:relu\\.out" in line
    assert "```mermaid" in text and 'bar "grew"' in text


def test_b_a_kernel_calling_another_op_is_in_the_headline(arch_repo: Path) -> None:
    rep = run_branch(arch_repo, "calls")
    line = comment.summary_line(rep, judged(rep))
    assert "op graph: 1 new edge and 1 removed, reached by 1 model" in line, line
    assert "1 stale yaml" in line
    cnn = next(t for t in rep.targets if t.name == "cnn")
    # Fails at load the same way on x86-64 and under qemu-aarch64: one finding, not one per arch.
    assert [(f.model, f.message.startswith("on ")) for f in cnn.load_failures] == [("models/zoo/squeezenet.pte", False)]


def test_c_a_pr_that_changes_nothing_gets_a_short_comment(arch_repo: Path) -> None:
    rep = run_branch(arch_repo, "docs")
    text = comment.render(rep, judged(rep))
    assert comment.summary_line(rep, judged(rep)).startswith("✅ **No change**")
    assert len(text.encode()) < NO_CHANGE_BYTES, text
    assert "all 5 runtimes unchanged" in text
    assert "<details>" not in text and "mermaid" not in text


def test_d_a_stale_yaml_is_named_in_the_headline(arch_repo: Path) -> None:
    rep = run_branch(arch_repo, "stale")
    line = comment.summary_line(rep, judged(rep))
    assert line.startswith("❌ ") and "1 stale yaml" in line and "1 target fails at load (1 model)" in line
    seq = next(t for t in rep.targets if t.name == "seq")
    assert [m.op for m in seq.diff.missing] == ["aten::sigmoid.out"]
    assert [f.model for f in seq.load_failures] == ["models/zoo/gru.pte"]
