"""The tool as an app repository gets it: installed from the built package into a fresh venv
(tests/installed_tool.py), run from app repositories made from the consumer fixture
(tests/consumer/: models, config, checked-in yamls and a custom kernel library), never
from the source tree. The PR scenarios share one app repo (a branch per PR against main)
and one build cache, so the base runtimes are built once."""

from __future__ import annotations

import copy
import json
import shutil
import subprocess
import tomllib
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from bot import config
from bot import git as bot_git
from bot.build import arch, bundle
from bot.build.compare import TOLERANCE, max_error
from bot.errors import BotError
from bot.report import comment as comment_module
from bot.report import escape, verdict
from bot.selection import oplist
from tests.conftest import REPO_ROOT, ZOO_DIR
from tests.github_fake import FakeGitHub
from tests.installed_tool import (
    CONSUMER,
    Installed,
    app_repo,
    copy_from_the_zoo,
    installed_tool,
    list_after,
    without_custom_kernels,
)
from tests.scenario_repo import commit_all, git
from tests.test_action_contract import runner_env, webhook_examples
from tests.test_pr_scenarios import loadable_bytes

VERSION = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["project"]["version"]
RUNTIME = f"bundled runtime of selective-build {VERSION}"
CUSTOM = "my_ops::fancy_gelu.out"
OUTPUT = REPO_ROOT / "tests" / "output" / "consumer"  # test artifacts (gitignored): the comment the README shows
KERNEL = "my_kernels/op_fancy_gelu.cpp"
CHECKED_IN = sorted(
    p.relative_to(CONSUMER).as_posix() for p in (*CONSUMER.glob("apps/*/*.yaml"), *CONSUMER.glob("oplist/*.yaml"))
)


@pytest.fixture(scope="module")
def tool(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    return installed_tool(tmp_path_factory)


@pytest.fixture(scope="module")
def app(tool: Installed, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The fixture as an app repo on main; each PR scenario is a branch of it."""
    return app_repo(tmp_path_factory.mktemp("app") / "repo")


def branch(repo: Path, name: str) -> None:
    git(repo, "checkout", "-q", "-b", name, "main")


def pull_request(
    tool: Installed, repo: Path, head: str, base: str = "main", targets: str = ""
) -> tuple[subprocess.CompletedProcess[str], dict, str]:
    """`python -m bot pr` from the venv for branch `head` against `base` (`targets`: just those):
    (process, artifact report, markdown)."""
    git(repo, "checkout", "-q", "main")
    out = repo.parent / f"report-{head}.md"
    only = ("--targets", targets) if targets else ()
    proc = tool.run(repo, "python", "-m", "bot", "pr", "--base", base, "--head", head, *only, "--output", str(out))
    assert out.is_file(), proc.stdout + proc.stderr
    return proc, json.loads(out.with_suffix(".json").read_text())["report"], out.read_text()


def target(report: dict, name: str) -> dict:
    return next(t for t in report["targets"] if t["name"] == name)


def test_an_app_repo_defaults_to_the_bundled_runtime_and_a_runtime_repo_keeps_its_own(tmp_path: Path) -> None:
    """In-process (the source tree's bundle is the checkout itself): which runtime a config builds."""
    app_cfg = config.load(app_repo(tmp_path / "app"))
    assert app_cfg.bundled_runtime and app_cfg.runtime_source == bundle.runtime_dir()
    assert app_cfg.kernel_libraries == (bundle.portable_library(), Path("my_kernels/functions.yaml"))
    assert app_cfg.runtime_label() == RUNTIME
    own = config.load(REPO_ROOT)
    assert not own.bundled_runtime and own.runtime_source == Path("native")
    assert own.runtime_label() == "this repository's native/"
    # a PR-controlled runtime path is still confined to the repo, bundled or not
    text = (CONSUMER / ".selective-build.yml").read_text()
    for runtime in ("../native", str(bundle.runtime_dir())):
        (tmp_path / "app" / ".selective-build.yml").write_text(f"{text}runtime: {{source_dir: {runtime}}}\n")
        with pytest.raises(BotError, match=r"runtime\.source_dir"):
            config.load(tmp_path / "app")
    # and so are the app's own kernel libraries (named by their index in the config, not after the bundled one)
    outside = text.replace("  - my_kernels/functions.yaml", "  - ../outside/functions.yaml")
    (tmp_path / "app" / ".selective-build.yml").write_text(outside)
    with pytest.raises(BotError, match=r"kernel_libraries\[0\]: \.\./outside/functions\.yaml is outside"):
        config.load(tmp_path / "app")


def test_the_package_carries_schema_runtime_and_kernels(tool: Installed, tmp_path: Path) -> None:
    proc = tool.run(
        tmp_path,
        "python",
        "-c",
        "from bot import config; from bot.build import bundle; "
        "print(bundle.runtime_dir()); print(bundle.portable_library()); "
        "print(config.SCHEMA_PATH); print(bundle.describe())",
    )
    assert proc.returncode == 0, proc.stderr
    runtime, portable, schema, described = proc.stdout.splitlines()
    for path in (runtime, portable, schema):
        assert Path(path).is_relative_to(tool.venv) and Path(path).exists(), path
    assert (Path(runtime) / "CMakeLists.txt").is_file() and (Path(portable).parent / "op_add.cpp").is_file()
    assert described == RUNTIME
    help_text = tool.run(tmp_path, "selective-build", "--help")
    assert help_text.returncode == 0 and "regenerate" in help_text.stdout


def test_regenerate_writes_the_yaml_in_a_repo_of_models_config_and_yaml(tool: Installed, tmp_path: Path) -> None:
    repo = app_repo(tmp_path / "repo", drop=("apps", "oplist"))
    assert not (repo / "native").exists() and not (repo / "kernels").exists()
    proc = tool.run(repo, "selective-build", "regenerate")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = (proc.stdout + proc.stderr).splitlines()  # progress and messages go to stderr
    written = sorted(line.removeprefix("wrote ") for line in lines if line.startswith("wrote "))
    assert written == CHECKED_IN, proc.stdout + proc.stderr
    for name in CHECKED_IN:  # the fixture's checked-in yamls are what the installed tool writes
        assert (repo / name).read_text() == (CONSUMER / name).read_text(), name
    assert CUSTOM in (repo / "apps/assistant/selected_operators.yaml").read_text()
    # nothing is built in the repo or the package: the bundled runtime builds in the cache
    assert not (repo / ".sb-build").exists()
    assert not list((tool.venv / "lib").glob("python3*/site-packages/bot/_bundled/.sb-build"))
    assert list((tool.cache / "bundled-runtime" / VERSION).glob("pr*/tracer-*"))  # a PR build: not the base's dir
    check = tool.run(repo, "python", "-m", "bot", "regenerate", "--check")
    assert check.returncode == 0 and "up to date" in check.stderr, check.stdout + check.stderr


def test_a_new_model_without_a_regenerated_yaml(tool: Installed, app: Path) -> None:
    branch(app, "new-model")
    copy_from_the_zoo(app, "zoo/mha_block")
    list_after(app, "models/squeezenet.pte", "models/mha_block.pte")
    commit_all(app, "camera-app ships mha_block")

    proc, rep, text = pull_request(tool, app, "new-model")
    assert proc.returncode == 1, proc.stdout + proc.stderr  # a stale yaml fails (fail_on.stale)
    assert rep["runtime"] == RUNTIME and f"Runtime: {escape.text(RUNTIME)}" in text
    OUTPUT.mkdir(parents=True, exist_ok=True)
    (OUTPUT / "new_model_first_comment.md").write_text(text)  # the README's quick start shows it
    camera = target(rep, "camera-app")
    assert camera["models_without_yaml"] == ["models/mha_block.pte"]
    assert "apps/camera/selected_operators.yaml" in rep["stale_files"]
    assert "apps/camera/selected_operators.yaml" in text
    assert not target(rep, "sensor-app")["diff"]["missing"]
    for t in rep["targets"]:  # every target's runtime was built at base and head and measured
        (sizes,) = t["sizes"]
        assert sizes["arch"] == "x86-64" and sizes["head"]["vm_size"] > 0 and sizes["base"]["vm_size"] > 0
    assert f"{camera['sizes'][0]['head']['vm_size']:,}" in text


def test_a_new_llm_with_its_weights_in_a_data_file_without_a_regenerated_yaml(tool: Installed, app: Path) -> None:
    """chat-app, which ships export_llama's KV-cache LLM, gains its 8da4w form: the linears on XNNPACK as
    int8-by-int4 node kinds, the weights in a .ptd, four decode steps, all found by name. The yaml is not
    regenerated: the report says the LLM would fail at load, naming the node kinds the yaml lacks, and that
    the yaml is stale; the other apps are untouched."""
    branch(app, "new-llm")
    copied = copy_from_the_zoo(app, "llm/llama_q8da4w_ptd")
    assert "llama_q8da4w_ptd.ptd" in copied and "llama_q8da4w_ptd.step3.input1.npy" in copied
    list_after(app, "models/llama_sdpa.pte", "models/llama_q8da4w_ptd.pte")
    commit_all(app, "chat-app ships the 8da4w LLM")

    proc, rep, text = pull_request(tool, app, "new-llm")
    assert proc.returncode == 1, proc.stdout + proc.stderr  # a stale yaml fails (fail_on.stale)
    chat = target(rep, "chat-app")
    assert chat["models_without_yaml"] == ["models/llama_q8da4w_ptd.pte"]
    assert rep["stale_files"] == ["apps/chat/selected_operators.yaml", "oplist/llama_q8da4w_ptd.yaml"]
    missing = {m["op"] for m in chat["diff"]["missing"]}
    # the node kinds inside its delegate (int8 rows by blockwise int4 weights); its custom ops and the rest
    # are the yaml's already, through the float LLM
    kinds = {op for op in oplist.from_model(REPO_ROOT / "models" / "llm" / "llama_q8da4w_ptd.pte", "llm").operators}
    kinds = {op for op in kinds if op.startswith("xnnpack::")}
    assert any(op.startswith("xnnpack::fully_connected.qd8_qb4w") for op in kinds), kinds
    assert missing == kinds
    assert "models/llama_q8da4w_ptd.pte" in text
    assert not any(target(rep, name)["diff"]["missing"] for name in ("camera-app", "sensor-app", "assistant-app"))


def test_a_custom_kernel_that_starts_calling_a_portable_op(tool: Installed, app: Path) -> None:
    branch(app, "custom-calls")
    kernel = app / KERNEL
    text = kernel.read_text()
    edits = {
        "from_double(kSlope)": "from_double(1.0 / kSlope)",
        'ctx.call("aten::mul.Scalar_out"': 'ctx.call("aten::div.Scalar_out"',
        '{"aten::mul.Scalar_out",': '{"aten::div.Scalar_out",',
    }
    for old, new in edits.items():
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    kernel.write_text(text)
    commit_all(app, "fancy_gelu divides")

    proc, rep, comment = pull_request(tool, app, "custom-calls")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assistant = target(rep, "assistant-app")
    missing = {m["op"]: m for m in assistant["diff"]["missing"]}
    assert set(missing) == {"aten::div.Scalar_out"} and missing["aten::div.Scalar_out"]["callers"] == [CUSTOM]
    assert any(c["kind"] == "kernel" and c["path"] == KERNEL for c in assistant["causes"])
    assert "apps/assistant/selected_operators.yaml" in rep["stale_files"]
    assert [(e["caller"], e["callee"]) for e in rep["graph_added"]] == [(CUSTOM, "aten::div.Scalar_out")]
    assert f"(<code>{KERNEL}</code>) now calls" in comment
    assert not target(rep, "camera-app")["diff"]["missing"] and not target(rep, "sensor-app")["diff"]["missing"]


GROW = (
    '  if (x.dim > 8) {\n    return sb::Error::make(sb::ErrorCode::kInvalidArgument, "%s: x has more dims than any '
    'program this op was exported in; a corrupt program is refused here before any element is read", kOp);\n  }\n'
)
PROBE_DIR = """\
import sys
from pathlib import Path
from bot import config, pipeline
from bot.build import cmake
root, role = Path(sys.argv[1]), sys.argv[2]
checkout = pipeline.Checkout.open(root, config.load(root))
yaml_file = root / "apps/assistant/selected_operators.yaml"
if role == "head":  # the head is built from the regenerated yaml
    yaml_file = pipeline.regenerated_path(root, "assistant-app")
# fancy_mlp needs none of the core's optional parts: the pipeline builds assistant-app without them
flavour = cmake.selective_flavour(yaml_file, True, False, core_parts=frozenset())
flavour = cmake.with_options(flavour, checkout.build_options)
print(cmake.bundled_build_dir(flavour, trusted=role == "base"))  # the base is built as trusted code
"""


def grow_the_custom_kernel(repo: Path) -> None:
    """fancy_gelu checks the rank of its input: more code in a custom kernel, same ops and dtypes."""
    kernel = repo / KERNEL
    anchor = "  sb::Value slope"
    assert anchor in kernel.read_text()
    kernel.write_text(kernel.read_text().replace(anchor, GROW + anchor, 1))


@pytest.fixture(scope="module")
def grown(tool: Installed, app: Path) -> tuple[subprocess.CompletedProcess[str], dict, str]:
    """The PR that grows the custom kernel (a size-only change), run once: the tests below judge its report."""
    branch(app, "custom-grows")
    grow_the_custom_kernel(app)
    commit_all(app, "fancy_gelu checks rank")
    return pull_request(tool, app, "custom-grows")


def test_a_size_only_change_to_a_custom_kernel_has_its_exact_delta(
    tool: Installed, app: Path, grown: tuple[subprocess.CompletedProcess[str], dict, str]
) -> None:
    proc, rep, comment = grown
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert not rep["stale_files"]
    (sizes,) = target(rep, "assistant-app")["sizes"]
    delta = sizes["head"]["vm_size"] - sizes["base"]["vm_size"]
    per_op = sizes["head"]["per_op"]
    assert per_op[CUSTOM] > sizes["base"]["per_op"][CUSTOM]
    # the delta is what binutils counts in the two probes the pipeline built (not the tool's figure)
    probes = []
    for role in ("base", "head"):
        root = tool.cache / "worktrees" / f"{role}-{bot_git.repo_key(app)}"
        where = tool.run(root, "python", "-c", PROBE_DIR, str(root), role)
        assert where.returncode == 0, where.stderr
        probes.append(loadable_bytes(Path(where.stdout.strip()) / "runtime_size_probe", arch.HOST))
    assert delta == probes[1] - probes[0] > 0
    assert f"{delta:+,}" in comment and "assistant-app" in comment
    for name in ("camera-app", "sensor-app"):
        (other,) = target(rep, name)["sizes"]
        assert other["head"]["vm_size"] == other["base"]["vm_size"]


# --- size limits: the grown kernel judged by the base branch's warn and fail levels ---------------

ASSISTANT = "    yaml: apps/assistant/selected_operators.yaml\n"


def with_limits(repo: Path, limits: str) -> None:
    """assistant-app's size_limits in the repo's config (replacing any it has)."""
    path = repo / ".selective-build.yml"
    lines = [line for line in path.read_text().splitlines(keepends=True) if not line.startswith("    size_limits:")]
    text = "".join(lines)
    assert ASSISTANT in text
    path.write_text(text.replace(ASSISTANT, f"{ASSISTANT}    size_limits: {limits}\n", 1))


def growth(rep: dict) -> tuple[int, int]:
    """(VM bytes assistant-app grew, bytes fancy_gelu's attribution grew), as the report measured them."""
    (sizes,) = target(rep, "assistant-app")["sizes"]
    base, head = sizes["base"], sizes["head"]
    return head["vm_size"] - base["vm_size"], head["per_op"][CUSTOM] - base["per_op"][CUSTOM]


@dataclass
class Posted:
    proc: subprocess.CompletedProcess[str]
    fake: FakeGitHub
    outputs: str

    @property
    def comment(self) -> str:
        return self.fake.comments[0]["body"]

    @property
    def check_run(self) -> dict:
        (run,) = self.fake.check_runs
        return run


def post(tool: Installed, app: Path, limits: str, rep: dict, artifact: Path, body: str, work: Path) -> Posted:
    """The fork-safe posting job of the grown kernel's PR (`workflow_run`, the installed tool): the default
    branch checked out with assistant-app's `limits` in its config, the artifact `pr` wrote downloaded
    beside it, the PR body read from the API. No build: the verdict is the artifact's data judged by that
    branch's policy."""
    git(app, "checkout", "-q", "-b", f"limits-{work.name}", "main")
    with_limits(app, limits)
    default = commit_all(app, f"assistant-app's limits: {limits}")
    git(app, "checkout", "-q", "main")
    checkout = work / "default-branch"
    git(app, "worktree", "add", "-q", "--detach", str(checkout), default)
    shutil.copy(artifact, work / "downloaded.json")
    event = copy.deepcopy(webhook_examples("workflow_run", "completed")[0])
    number = 12
    event["workflow_run"]["head_sha"] = rep["head_sha"]
    event["workflow_run"]["pull_requests"] = [{"number": number, "head": {"sha": rep["head_sha"]}}]
    fake = FakeGitHub(pr_number=number, head_sha=rep["head_sha"], pr_body=body).start()
    try:
        fake.owner, fake.repo = event["repository"]["full_name"].split("/")
        env = runner_env(work, checkout, event, fake, {"mode": "post", "report": str(work / "downloaded")})
        env["GITHUB_EVENT_NAME"] = "workflow_run"
        # the venv's tool, not this checkout's: its PATH, no PYTHONPATH
        env = {key: value for key, value in env.items() if key not in ("PYTHONPATH", "PATH", "VIRTUAL_ENV")}
        proc = tool.run(checkout, "python", "-m", "bot", "action", env=env)
        assert "Traceback" not in proc.stderr, proc.stderr
        return Posted(proc, fake, (work / "github_output").read_text())
    finally:
        fake.stop()


def test_the_grown_kernel_over_a_warn_level_passes_with_a_warning_and_over_a_fail_level_fails(
    tool: Installed, app: Path, grown: tuple[subprocess.CompletedProcess[str], dict, str], tmp_path: Path
) -> None:
    _, rep, _ = grown
    grew, op_grew = growth(rep)
    assert grew > verdict.DEFAULT_NOISE_FLOOR and op_grew > verdict.DEFAULT_NOISE_FLOOR  # a growth that counts
    artifact = app.parent / "report-custom-grows.json"
    where = f"{escape.text('assistant-app')} on {escape.text('x86-64')}"

    # Just over the warn levels, exactly at the fail levels ("at most"): passes, warned.
    warn = f"{{growth: {grew - 1}, op_growth: {op_grew - 1}}}"
    at_fail = f"{{growth: {grew}, op_growth: {op_grew}}}"
    warn = f"{{warn: {warn}, fail: {at_fail}}}"
    warned = post(tool, app, warn, rep, artifact, "Checks the rank.", tmp_path / "warn")
    assert warned.proc.returncode == 0, warned.proc.stdout + warned.proc.stderr
    assert warned.check_run["conclusion"] == "neutral" and "verdict=warn" in warned.outputs
    notes = warned.check_run["output"]["annotations"]
    assert [(n["path"], n["annotation_level"], n["title"]) for n in notes] == [
        (".selective-build.yml", "warning", "assistant-app on x86-64: over its warn level")
    ]
    assert f"grew {grew:+,} bytes, over its warn level of +{grew - 1:,}" in notes[0]["message"]
    comment = warned.comment
    headline = comment.split("\n")[4]
    assert headline.startswith("⚠️ ") and f"1 target over the warn level ({where})" in headline
    assert f"- ⚠️ **warn**: {where} grew {grew:+,} bytes, over its warn level of +{grew - 1:,}" in comment
    op_line = f"- ⚠️ **warn**: {escape.text(CUSTOM)} grew {op_grew:+,} bytes in {where}, over the warn level of "
    assert op_line + f"+{op_grew - 1:,} per op" in comment
    assert any(
        line.startswith("::warning::over the warn level: assistant-app") for line in warned.proc.stdout.splitlines()
    )
    assert not any(line.startswith("::error::") for line in warned.proc.stdout.splitlines())

    # One byte under the growth: over the fail level, the PR fails.
    fail = f"{{fail: {{growth: {grew - 1}}}}}"
    failed = post(tool, app, fail, rep, artifact, "Checks the rank.", tmp_path / "fail")
    assert (
        failed.proc.returncode == 1 and failed.check_run["conclusion"] == "failure" and "verdict=fail" in failed.outputs
    )
    assert [n["annotation_level"] for n in failed.check_run["output"]["annotations"]] == ["failure"]
    errors = [line for line in failed.proc.stdout.splitlines() if line.startswith("::error::")]
    assert errors == [
        f"::error::over the size budget: assistant-app on x86-64 grew {grew:+,} bytes, over its fail level of "
        f"+{grew - 1:,} (add a 'Binary-Size: <reason>' line to the PR body)"
    ]
    assert failed.comment.split("\n")[4].startswith("❌ ") and "- ❌ **fail**: " in failed.comment

    # The same, with the PR body's Binary-Size line: it passes, and the comment quotes the line, inert.
    reason = "rank checks stop <b>corrupt</b> programs, see [#12](http://x) @octo-org/runtime"
    explained = post(
        tool, app, fail, rep, artifact, f"Checks the rank.\r\n\r\nBinary-Size: {reason}\r\n", tmp_path / "why"
    )
    assert explained.proc.returncode == 0 and explained.check_run["conclusion"] == "neutral"
    assert f"\n> {escape.text(reason, comment_module.MESSAGE_LIMIT)}\n" in explained.comment
    assert "<b>" not in explained.comment and "@octo-org" not in explained.comment


def test_a_pr_loosening_its_own_limits_is_judged_by_the_base_s(
    tool: Installed, app: Path, grown: tuple[subprocess.CompletedProcess[str], dict, str]
) -> None:
    """The base branch fails the grown kernel; the PR grows it and raises its own fail level far above the
    growth: the base's level judges it, and the comment says the PR's applies once merged."""
    grew, _ = growth(grown[1])
    git(app, "checkout", "-q", "-b", "limited", "main")
    with_limits(app, f"{{fail: {{growth: {grew - 1}}}}}")
    commit_all(app, "assistant-app may not grow")
    git(app, "checkout", "-q", "-b", "loosens", "limited")
    grow_the_custom_kernel(app)
    with_limits(app, f"{{fail: {{growth: {grew * 10}}}}}")
    commit_all(app, "fancy_gelu checks rank, and assistant-app may grow")

    proc, rep, comment = pull_request(tool, app, "loosens", base="limited", targets="assistant-app")
    assert growth(rep)[0] == grew  # the same change, measured the same
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "over the size budget: assistant-app on x86-64" in proc.stdout + proc.stderr
    assert rep["policy_changes"] == [
        {
            "target": "assistant-app",
            "arch": "x86-64",
            "setting": "size_limits.fail.growth",
            "before": grew - 1,
            "after": grew * 10,
        }
    ]
    assert comment.split("\n")[4].startswith("❌ ") and "1 policy change (applies once merged)" in comment
    sentence = f"this PR raises {escape.text('assistant-app')}'s {escape.text('x86-64')} fail growth limit"
    assert f"{sentence} from {grew - 1:,} to {grew * 10:,} bytes" in comment
    assert f"- ❌ **fail**: {escape.text('assistant-app')} on {escape.text('x86-64')} grew {grew:+,} bytes" in comment


def test_a_repo_with_no_custom_kernels(tool: Installed, tmp_path: Path) -> None:
    config = without_custom_kernels((CONSUMER / ".selective-build.yml").read_text())
    repo = app_repo(
        tmp_path / "plain",
        drop=("my_kernels", "models/fancy_mlp.pte", "apps/assistant", "oplist/fancy_mlp.yaml"),
        config=config,
    )
    assert "kernel_libraries" not in config and "fancy_mlp" not in config
    branch(repo, "readme")
    (repo / "NOTES.md").write_text("nothing the runtime sees\n")
    commit_all(repo, "notes")
    proc, rep, comment = pull_request(tool, repo, "readme")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert not rep["stale_files"] and rep["runtime"] == RUNTIME
    assert [t["name"] for t in rep["targets"]] == ["sensor-app", "camera-app", "chat-app"]
    for t in rep["targets"]:
        (sizes,) = t["sizes"]
        assert sizes["head"]["vm_size"] == sizes["base"]["vm_size"] > 0
    assert f"Runtime: {escape.text(RUNTIME)}" in comment and "unchanged" in comment


def test_an_app_target_choosing_optimized_kernels_builds_the_bundled_optimized_library(
    tool: Installed, tmp_path: Path
) -> None:
    """The package carries kernels/optimized: an app repo's `kernels: optimized` target builds the bundled
    optimized kernels (registered in place of portable ones) and its model matches ExecuTorch's output."""
    text = (CONSUMER / ".selective-build.yml").read_text()
    config_text = text.replace("  camera-app:\n", "  camera-app:\n    kernels: optimized\n", 1)
    assert config_text != text
    repo = app_repo(tmp_path / "fast", config=config_text)
    proc = tool.run(repo, "selective-build", "build", "--target", "camera-app", "--json")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    built = json.loads(proc.stdout.strip().splitlines()[-1])
    assert built["kernels"] == "optimized" and built["vm_bytes"] > 0
    build_dir = Path(built["build_dir"])
    registration = (build_dir / "sb_selected_kernels" / "register_kernels.cpp").read_text()
    assert "sb::optimized::opt_convolution_out" in registration
    assert "sb::kernels::convolution_out," not in registration
    out = tmp_path / "out"
    run = subprocess.run(
        [
            str(build_dir / "executor_runner"),
            "--model",
            str(repo / "models/squeezenet.pte"),
            "--input",
            str(repo / "models/squeezenet.input0.npy"),
            "--output-dir",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    expected = np.load(ZOO_DIR / "squeezenet.expected0.npy")
    assert max_error(np.load(out / "output0.npy"), expected) <= TOLERANCE
