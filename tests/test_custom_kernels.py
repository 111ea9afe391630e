"""Custom kernel libraries in an app repository: the consumer fixture's `my_ops::fancy_gelu.out`
(tests/consumer/my_kernels) compiled into the tracer and the selective runtimes, in the op graph,
selected, size-attributed and named in stale causes like a portable kernel.

The repos here are runtime repos (a copy of native/, kernels/ and bot/) plus the app's library and
model, so the custom library adds to this checkout's portable one; tests/test_consumer.py runs the
same fixture against the installed package's bundled runtime.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import yaml

from bot import config, pipeline
from bot import git as bot_git
from bot.build import arch, cmake
from bot.build.runner import run_model
from bot.errors import BotError
from bot.report import comment
from bot.selection import oplist, pte
from tests.conftest import REPO_ROOT
from tests.judging import judged
from tests.scenario_repo import bot, clone_of, commit_all, init_repo
from tests.test_oplist import gen_oplist
from tests.test_pr_scenarios import loadable_bytes

FIXTURE = REPO_ROOT / "tests" / "consumer"
CUSTOM = "my_ops::fancy_gelu.out"
CALLS = {"aten::mul.Scalar_out", "aten::sigmoid.out", "aten::mul.out"}
KERNEL = "my_kernels/op_fancy_gelu.cpp"
MODEL = "models/fancy_mlp.pte"
CONFIG = """\
version: 1
kernel_libraries:
  - kernels/portable/functions.yaml
  - {yaml: my_kernels/functions.yaml, sources: ["op_*.cpp"]}
oplist_dir: oplist
targets:
  app:
    yaml: apps/app/selected_operators.yaml
    models: [models/fancy_mlp.pte]
"""


@pytest.fixture(scope="module")
def app_base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A git repo: the runtime, the custom library, the custom-op model and a regenerated yaml."""
    path = tmp_path_factory.mktemp("custom") / "repo"
    path.mkdir()
    # The committed runtime, kernels and bot (work in progress elsewhere in the tree stays out).
    archive = subprocess.run(
        ["git", "archive", "--format=tar", "HEAD", "native", "kernels", "bot"],
        cwd=REPO_ROOT,
        check=True,
        capture_output=True,
    )
    subprocess.run(["tar", "-x", "-C", str(path)], input=archive.stdout, check=True)
    shutil.copytree(FIXTURE / "my_kernels", path / "my_kernels")
    (path / "models").mkdir()
    for name in ("fancy_mlp.pte", "fancy_mlp.input0.npy"):
        shutil.copy2(FIXTURE / "models" / name, path / "models" / name)
    (path / ".selective-build.yml").write_text(CONFIG)
    (path / ".gitignore").write_text(".sb-build/\n")
    init_repo(path)
    regenerated = bot(path, "regenerate")
    assert regenerated.returncode == 0, regenerated.stderr
    commit_all(path, "base")
    return path


@pytest.fixture
def app(app_base: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("SB_CACHE_DIR", str(tmp_path / "cache"))
    return clone_of(app_base, tmp_path / "repo")


def checkout(root: Path) -> pipeline.Checkout:
    return pipeline.Checkout.open(root, config.load(root))


def test_the_regenerated_yaml_selects_the_custom_op_and_what_it_calls(app_base: Path) -> None:
    selection = oplist.load(app_base / "apps/app/selected_operators.yaml")
    assert {CUSTOM, "aten::addmm.out", "aten::permute_copy.out"} | CALLS <= selection.names()
    custom = selection.operators[CUSTOM]
    assert custom.is_root_operator
    # its kernel key as traced is the program's (float32 tensors), which equals gen_oplist's (test below)
    static = oplist.from_program(pte.load(app_base / MODEL), "m")
    assert selection.et_kernel_metadata[CUSTOM] == static.et_kernel_metadata[CUSTOM]


def test_a_selective_runtime_with_the_custom_library_matches_eager_torch(app_base: Path, tmp_path: Path) -> None:
    head = checkout(app_base)
    assert head.cfg is not None
    target = head.cfg.targets[0]
    runtime = head.build_runtime(app_base / "apps/app/selected_operators.yaml", target, arch.HOST, smoke=True)
    run_model(
        cmake.runner_path(runtime), app_base / MODEL, [app_base / "models/fancy_mlp.input0.npy"], tmp_path / "out"
    )
    # The reference is eager PyTorch: ExecuTorch's runtime has no kernel for my_ops::fancy_gelu.out.
    expected = np.load(FIXTURE / "models" / "fancy_mlp.eager_output0.npy")
    assert sorted(p.name for p in (tmp_path / "out").glob("*.npy")) == ["output0.npy"]
    got = np.load(tmp_path / "out" / "output0.npy")
    assert got.shape == expected.shape
    np.testing.assert_allclose(got, expected, atol=1e-4, rtol=0)


def test_bot_oplist_equals_executorch_gen_oplist_on_a_custom_op_program(app_base: Path, tmp_path: Path) -> None:
    model = app_base / MODEL
    theirs = gen_oplist(model, tmp_path / "theirs.yaml")
    done = bot(app_base, "oplist", MODEL, "-o", str(tmp_path / "ours.yaml"))
    assert done.returncode == 0, done.stderr
    ours = yaml.safe_load((tmp_path / "ours.yaml").read_text())
    assert CUSTOM in theirs["operators"]
    assert set(ours["operators"]) == set(theirs["operators"])
    assert {op: set(k) for op, k in ours["et_kernel_metadata"].items()} == {
        op: set(k) for op, k in theirs["et_kernel_metadata"].items()
    }
    # and ExecuTorch's yaml loads into ours with the namespace kept
    assert oplist.load(tmp_path / "theirs.yaml").names() == oplist.from_program(pte.load(model), "m").names()


def test_the_op_graph_holds_the_custom_kernels_edges(app_base: Path) -> None:
    graph = checkout(app_base).graph()
    assert graph is not None
    assert graph.kernel_sources[CUSTOM] == "op_fancy_gelu.cpp"
    edges = [e for e in graph.edges if e.caller == CUSTOM]
    assert {e.callee for e in edges} == CALLS
    assert all(e.source == "op_fancy_gelu.cpp" and e.via == "my_ops::kernels::fancy_gelu_out_impl" for e in edges)
    roots = pte.load(app_base / MODEL).plan().operators
    assert graph.closure(roots) >= CALLS


def make_custom_kernel_call_another_op(kernel: Path) -> None:
    """The custom kernel scales x through aten::div.Scalar_out instead of aten::mul.Scalar_out (same result
    within float rounding): a new op it calls, so a checked-in yaml becomes stale. Used by test_consumer too."""
    text = kernel.read_text()
    edits = {
        "from_double(kSlope)": "from_double(1.0 / kSlope)",
        'ctx.call("aten::mul.Scalar_out"': 'ctx.call("aten::div.Scalar_out"',
        '{"aten::mul.Scalar_out",': '{"aten::div.Scalar_out",',
    }
    for old, new in edits.items():
        assert text.count(old) == 1, f"the line this scenario edits is gone: {old}"
        text = text.replace(old, new)
    kernel.write_text(text)


GROW_ANCHOR = "  sb::Value slope"
GROW = (
    '  if (x.dim > 8) {\n    return sb::Error::make(sb::ErrorCode::kInvalidArgument, "%s: x has more dims than any '
    'program this op was exported in; a corrupt program is refused here before any element is read", kOp);\n  }\n'
)


def grow_custom_kernel(kernel: Path) -> None:
    """A rank check with a long message: more code and read-only data, the same ops and dtypes (the yaml stays
    fresh). Used by test_consumer too."""
    text = kernel.read_text()
    assert text.count(GROW_ANCHOR) == 1, "the line this scenario edits is gone"
    kernel.write_text(text.replace(GROW_ANCHOR, GROW + GROW_ANCHOR))


def test_a_custom_kernel_calling_another_op_makes_the_yaml_stale(app: Path) -> None:
    make_custom_kernel_call_another_op(app / KERNEL)
    commit_all(app, "fancy_gelu divides")

    rep = pipeline.run_pr(app, "main~1", None, lambda _: None)
    (target,) = rep.targets
    missing = {m.op: m for m in target.diff.missing}
    assert set(missing) == {"aten::div.Scalar_out"}
    assert missing["aten::div.Scalar_out"].callers == (CUSTOM,)
    assert missing["aten::div.Scalar_out"].models == (MODEL,)
    assert not target.diff.unused  # aten::mul.Scalar_out stays: addmm's kernel calls it too
    assert any(c.kind == "kernel" and c.path == KERNEL for c in target.causes)
    assert "apps/app/selected_operators.yaml" in rep.stale_files and rep.stale
    assert [(e.caller, e.callee) for e in rep.graph_added] == [(CUSTOM, "aten::div.Scalar_out")]
    assert [(e.caller, e.callee) for e in rep.graph_removed] == [(CUSTOM, "aten::mul.Scalar_out")]
    # the runtime of the checked-in yaml lacks the new callee: the model fails at load, naming it
    assert [f.model for f in target.load_failures] == [MODEL]
    assert "aten::div.Scalar_out" in target.load_failures[0].message
    text = comment.render(rep, judged(rep))
    assert f"(<code>{KERNEL}</code>) now calls" in text
    assert "python -m bot regenerate" in text


def test_a_size_only_change_to_a_custom_kernel_is_attributed_to_its_op(app: Path) -> None:
    grow_custom_kernel(app / KERNEL)
    commit_all(app, "fancy_gelu checks rank")

    rep = pipeline.run_pr(app, "main~1", None, lambda _: None)
    (target,) = rep.targets
    assert not rep.stale and not target.load_failures
    sizes = target.size(arch.HOST.name)
    assert sizes is not None and sizes.head is not None and sizes.base is not None
    per_op = {op: sizes.head.per_op.get(op, 0) - sizes.base.per_op.get(op, 0) for op in sizes.head.per_op}
    assert per_op[CUSTOM] > 0
    assert all(d == 0 for op, d in per_op.items() if op != CUSTOM and not op.startswith("("))
    # the delta is the loadable bytes binutils counts in the two probes (not bot/build/size.py's figure)
    base_root = cmake.cache_dir() / "worktrees" / f"base-{bot_git.repo_key(app)}"
    probes = []
    for root, selected, trusted in (
        (base_root, base_root / "apps/app/selected_operators.yaml", True),  # the base is built as trusted code
        (app, pipeline.regenerated_path(app, "app"), False),
    ):
        # fancy_mlp needs none of the core's optional parts: the pipeline builds the app's runtime without them
        flavour = cmake.selective_flavour(selected, True, False, core_parts=frozenset())
        flavour = cmake.with_options(flavour, checkout(root).build_options)
        built = cmake.build(flavour, targets=cmake.size_targets(arch.HOST), source_dir=root / "native", trusted=trusted)
        probes.append(loadable_bytes(built / cmake.SIZE_PROBE, arch.HOST))
    assert sizes.delta == probes[1] - probes[0] > 0
    # every byte of the delta is attributed: to the custom op, and to linker padding ("(...)" rows) at most
    assert sum(per_op.values()) == sizes.delta
    assert CUSTOM in comment.render(rep, judged(rep))


BROKEN = [
    (
        "- func: aten::relu.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)\n"
        "  kernels:\n    - arg_meta: null\n      kernel_name: my_ops::kernels::fancy_gelu_out\n",
        "aten::relu.out is implemented by both",
    ),
    (
        "- func: my_ops:fancy_gelu.out(Tensor x, *, Tensor(a!) out) -> Tensor(a!)\n"
        "  kernels:\n    - arg_meta: null\n      kernel_name: my_ops::kernels::fancy_gelu_out\n",
        "'my_ops:fancy_gelu.out' is not an operator name (namespace::name.overload)",
    ),
    (
        "- func: my_ops::fancy_gelu.out(Tensor x, *, Tensor(a!) out) -> Tensor(a!)\n"
        "  kernels:\n    - arg_meta: null\n      kernel_name: my_ops::kernels::fancy gelu\n",
        "kernel_name 'my_ops::kernels::fancy gelu' is not a C++ qualified name",
    ),
    (
        "- func: my_ops::fancy_gelu.out(Tensor x, *, Tensor(a!) out) -> Tensor(a!)\n"
        "  kernels:\n    - arg_meta: null\n      kernel_name: my_ops::relu_out\n",
        "kernel_name my_ops::relu_out has the same name as sb::kernels::relu_out",
    ),
]


@pytest.mark.parametrize(("functions_yaml", "message"), BROKEN, ids=["collides", "malformed", "symbol", "same-name"])
def test_a_bad_custom_library_is_one_clear_error_line(
    app_base: Path, tmp_path: Path, functions_yaml: str, message: str
) -> None:
    repo = clone_of(app_base, tmp_path / "repo")
    (repo / "my_kernels" / "functions.yaml").write_text(functions_yaml)
    done = bot(repo, "deps")
    assert done.returncode != 0
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), done.stderr
    assert message in lines[0]
    assert "my_kernels/functions.yaml" in lines[0]


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ('{yaml: my_kernels/functions.yaml, sources: ["../kernels/portable/op_relu.cpp"]}', "kernel_libraries[1]"),
        ('{yaml: my_kernels/functions.yaml, sources: ["/etc/*.cpp"]}', "kernel_libraries[1]"),
        ("{yaml: my_kernels/functions.yaml}", "kernel_libraries[1]"),
    ],
    ids=["parent", "absolute", "no-sources"],
)
def test_kernel_library_sources_stay_in_the_library_folder(
    app_base: Path, tmp_path: Path, entry: str, message: str
) -> None:
    repo = clone_of(app_base, tmp_path / "repo")
    cfg = repo / ".selective-build.yml"
    cfg.write_text(cfg.read_text().replace('{yaml: my_kernels/functions.yaml, sources: ["op_*.cpp"]}', entry))
    done = bot(repo, "deps")
    assert done.returncode != 0
    assert message in done.stderr


def test_two_kernel_sources_of_one_file_name_are_refused(app_base: Path, tmp_path: Path) -> None:
    """Size attribution goes by object file name: an app kernel named like a portable one would share its bytes."""
    repo = clone_of(app_base, tmp_path / "repo")
    (repo / KERNEL).rename(repo / "my_kernels" / "op_relu.cpp")
    with pytest.raises(BotError) as caught:
        checkout(repo)
    assert caught.value.message == (
        "kernel sources kernels/portable/op_relu.cpp and my_kernels/op_relu.cpp have one file name; rename one"
    )


def test_an_app_repo_without_a_runtime_builds_the_bundled_one_with_its_library(tmp_path: Path) -> None:
    """Only models, config and the custom library: regenerate builds the tool's runtime (here this checkout's,
    as bot/build/bundle.py gives it outside an installed package) with the app's kernels."""
    repo = tmp_path / "app"
    shutil.copytree(FIXTURE / "my_kernels", repo / "my_kernels")
    (repo / "models").mkdir()
    for name in ("fancy_mlp.pte", "fancy_mlp.input0.npy"):
        shutil.copy2(FIXTURE / "models" / name, repo / "models" / name)
    (repo / ".selective-build.yml").write_text(
        "version: 1\nkernel_libraries: [my_kernels/functions.yaml]\n"
        "targets:\n  app:\n    yaml: selected_operators.yaml\n    models: [models/fancy_mlp.pte]\n"
    )
    cfg = config.load(repo)
    assert cfg.bundled_runtime
    assert [(lib.portable, lib.yaml.name) for lib in cfg.libraries()] == [
        (True, "functions.yaml"),
        (False, "functions.yaml"),
    ]
    done = subprocess.run(
        [sys.executable, "-m", "bot", "regenerate", "--root", str(repo)], cwd=REPO_ROOT, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert oplist.load(repo / "selected_operators.yaml").names() >= {CUSTOM} | CALLS
    assert not (repo / ".sb-build").exists()  # the runtime is built beside the tool's runtime, not in the app
