"""PR code is contained, in both sandbox modes (bot/safety/sandbox.py): bubblewrap's namespaces and, where
namespaces are refused, the dedicated uid (forced here with SB_SANDBOX=uid).

The attacks are real: a kernel whose start-up constructor runs inside the tracer at head and goes
for the tool, the token and the base's inputs, run through the Action as the runner runs it; and
processes that fork without end, fill the disk and outlive their step, run through the sandbox as
every PR process is.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.build import cmake
from bot.errors import BotError, ExitCode
from bot.safety import sandbox
from bot.safety.limits import MIB, Limits
from tests.conftest import REPO_ROOT
from tests.github_fake import FakeGitHub
from tests.scenario_repo import clone_of, commit_all, git
from tests.test_action_contract import opened_event, run_action, runner_env
from tests.test_secrets import SECRETS, assert_no_secret, everything_published

MODES = [pytest.param("namespaces", id="namespaces"), pytest.param("uid", id="uid-fallback")]


@pytest.fixture(params=MODES)
def mode(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    if request.param == "uid" and os.geteuid() != 0:
        pytest.skip("the uid fallback needs root")
    monkeypatch.setenv("SB_SANDBOX", request.param)
    sandbox.mode.cache_clear()
    assert sandbox.mode().value == request.param
    yield request.param
    sandbox.mode.cache_clear()


def _processes_with(marker: str) -> list[str]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
            except OSError:
                continue
            if marker.encode() in cmdline and b"pytest" not in cmdline:
                found.append(cmdline.replace(b"\0", b" ").decode(errors="replace"))
    return found


def _python(code: str, marker: str) -> list[str]:
    """A Python child; `marker` in its arguments finds its processes later."""
    return [sys.executable, "-S", "-c", textwrap.dedent(code), marker]


FORK_BOMB = """
import os, sys, time
count = 0
for _ in range(400):
    try:
        if os.fork() == 0:
            time.sleep(60)
            os._exit(0)
        count += 1
    except OSError:
        break
print("forked", count, flush=True)
"""


def test_a_fork_bomb_is_bounded_and_ends_with_its_step(mode: str, tmp_path: Path) -> None:
    marker = f"sb-forkbomb-{os.getpid()}"
    limits = Limits(processes=32, run_seconds=20)
    done = sandbox.run(
        _python(FORK_BOMB, marker), what="fork bomb", exit_code=ExitCode.RUNTIME, seconds=20, memory_bytes=None,
        limits=limits, view=sandbox.View(writes=(tmp_path,)),
    )  # fmt: skip
    forked = int(done.stdout.split()[-1])
    assert 0 < forked < 32, done.stdout
    time.sleep(0.5)
    assert _processes_with(marker) == []


DISK_FILL = """
import os, sys
target = sys.argv[2]
chunk = b"x" * (1 << 20)
written = 0
try:
    with open(target, "wb") as out:
        for _ in range(64):
            out.write(chunk)
            out.flush()
            written += 1
except OSError as exc:
    print("refused", target, exc.__class__.__name__, flush=True)
print("wrote", written, "MiB", flush=True)
"""


@pytest.mark.parametrize("where", ["outside", "inside"])
def test_a_disk_fill_is_bounded(mode: str, where: str, tmp_path: Path) -> None:
    """64 MiB: outside its writable directory nothing lands (or, uid mode's shared /var/tmp, it is removed
    with the step); inside it, no file grows past the file-size limit."""
    writable = tmp_path / "build"
    outside = Path("/var/tmp") / f"sb-fill-{os.getpid()}"
    target = outside if where == "outside" else writable / "fill.bin"
    limits = Limits(file_bytes=16 * MIB)
    try:
        sandbox.run(
            [*_python(DISK_FILL, "sb-fill"), str(target)], what="disk fill", exit_code=ExitCode.RUNTIME, seconds=60,
            memory_bytes=None, limits=limits, view=sandbox.View(writes=(writable,)),
        )  # fmt: skip
    except BotError as exc:
        assert "over its 16 MiB limit" in exc.message  # killed by SIGXFSZ at the limit
    assert not outside.exists()
    if where == "inside":
        assert (writable / "fill.bin").stat().st_size <= 16 * MIB


LITTER = """
import os, sys
with open(os.path.join(sys.argv[3], "output"), "w") as handle:
    handle.write("the step's output")
try:
    with open(os.path.join(sys.argv[2], "litter"), "w") as handle:
        handle.write("left by the step")
except OSError:
    pass  # namespaces: the shared temp folders are the sandbox's own
"""


def test_a_step_s_cleanup_removes_only_what_it_left_in_the_shared_temp(mode: str) -> None:
    """uid mode removes what a step left in /tmp, /var/tmp, /dev/shm. Not what another run handed the uid
    there while this one waited (a trace's scratch folder right in /tmp), nor the step's own write path
    there (`bot run --output-dir /tmp/out`): both were the uid's before the step, and stay."""
    other_run = Path(tempfile.mkdtemp(prefix="sb-other-run-", dir="/tmp"))
    own_output = Path(tempfile.mkdtemp(prefix="sb-own-output-", dir="/tmp"))
    try:
        sandbox._grant(other_run, sandbox.child_uid(sandbox.View(writes=(own_output,))) or os.geteuid())
        (other_run / "trace.tsv").write_text("another run's trace\n")
        sandbox.run(
            [*_python(LITTER, "sb-litter"), "/var/tmp", str(own_output)], what="litter", exit_code=ExitCode.RUNTIME,
            seconds=20, memory_bytes=None, view=sandbox.View(writes=(own_output,)),
        )  # fmt: skip
        assert (other_run / "trace.tsv").read_text() == "another run's trace\n"
        assert (own_output / "output").read_text() == "the step's output"
        assert not Path("/var/tmp/litter").exists()
    finally:
        for path in (other_run, own_output):
            shutil.rmtree(path, ignore_errors=True)
        with contextlib.suppress(FileNotFoundError):
            Path("/var/tmp/litter").unlink()


SURVIVOR = """
import os, sys, time
report = sys.argv[2]
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        time.sleep(3)
        with open(report, "a") as out:
            out.write("edited after the step\\n")
        os._exit(0)
    os._exit(0)
print("detached", flush=True)
"""


def test_a_detached_survivor_ends_with_its_step(mode: str, tmp_path: Path) -> None:
    marker = f"sb-survivor-{os.getpid()}"
    writable = tmp_path / "out"
    report = writable / "report.md"
    writable.mkdir()
    report.write_text("the report\n")
    done = sandbox.run(
        [*_python(SURVIVOR, marker), str(report)], what="survivor", exit_code=ExitCode.RUNTIME, seconds=20,
        memory_bytes=None, view=sandbox.View(writes=(writable,)),
    )  # fmt: skip
    assert "detached" in done.stdout
    assert _processes_with(marker) == []
    time.sleep(4)
    assert report.read_text() == "the report\n"


ONE_STEP = """
import sys
from bot.errors import ExitCode
from bot.safety import sandbox
done = sandbox.run([sys.executable, "-c", sys.argv[1]], what="step", exit_code=ExitCode.RUNTIME, seconds=60,
                   memory_bytes=None)
print(done.returncode, done.stdout.strip())
"""


def test_uid_mode_steps_of_two_runs_with_caches_of_their_own_do_not_end_each_other(tmp_path: Path) -> None:
    """The end of a uid-mode step kills every process of the uid: a second run, with another cache (two jobs
    of one runner), waits for the first's step instead of killing it midway."""
    if os.geteuid() != 0:
        pytest.skip("the uid fallback needs root")

    def start(name: str, code: str) -> subprocess.Popen[str]:
        env = {**os.environ, "SB_SANDBOX": "uid", "SB_CACHE_DIR": str(tmp_path / name), "PYTHONPATH": str(REPO_ROOT)}
        return subprocess.Popen([sys.executable, "-c", ONE_STEP, code], env=env, stdout=subprocess.PIPE, text=True)

    slow = start("first", "import time; print('started', flush=True); time.sleep(3); print('finished')")
    time.sleep(1.5)
    quick = start("second", "print('quick')")
    assert quick.communicate(timeout=60)[0].strip() == "0 quick"
    assert slow.communicate(timeout=60)[0].strip() == "0 started\nfinished"


VIEW_PROBE = """
import os, sys
for path in sys.argv[2:]:
    try:
        with open(path, "a") as handle:
            handle.write("PWNED\\n")
        print("WROTE", path)
    except OSError as exc:
        print("refused", path, exc.__class__.__name__)
"""


def test_pr_code_cannot_write_the_tool_the_base_or_the_trusted_cache(mode: str, tmp_path: Path) -> None:
    tool = tmp_path / "tool.py"
    tool.write_text("print('the tool')\n")
    base = tmp_path / "base"
    base.mkdir(mode=0o700)
    (base / "selected_operators.yaml").write_text("include_all_operators: false\n")
    trusted = cmake.ccache_env(trusted=True)[2][-1]  # the shared store the base writes
    victims = [tool, base / "selected_operators.yaml", trusted / "planted", REPO_ROOT / "bot" / "github" / "api.py"]
    before = {p: p.read_bytes() for p in victims if p.exists()}
    done = sandbox.run(
        [*_python(VIEW_PROBE, "sb-view"), *map(str, victims)], what="view", exit_code=ExitCode.RUNTIME, seconds=20,
        memory_bytes=None, view=sandbox.View(reads=(tmp_path,), writes=(tmp_path / "build",)),
    )  # fmt: skip
    assert "WROTE" not in done.stdout, done.stdout
    assert {p: p.read_bytes() for p in victims if p.exists()} == before
    assert not (trusted / "planted").exists()


def test_bot_deps_builds_pr_code_in_the_sandbox(mode: str, base_repo: Path, tmp_path: Path) -> None:
    """`bot deps` compiles the checkout's kernel library: its CMake code is the PR's, never run as trusted
    (which may write the compiler cache base builds read, and in uid mode runs as root)."""
    victim = tmp_path / "tool.py"
    victim.write_text("print('the tool')\n")
    planted = cmake.ccache_env(trusted=True)[2][-1] / f"planted-by-deps-{os.getpid()}"
    repo = clone_of(base_repo, tmp_path / "repo")
    with (repo / "native" / "CMakeLists.txt").open("a") as cmake_lists:
        cmake_lists.write(f'\nexecute_process(COMMAND sh -c "echo x > {planted}; echo x > {victim}")\n')
    env = {**os.environ, "SB_SANDBOX": mode, "SB_CACHE_DIR": str(tmp_path / "cache")}
    done = subprocess.run([sys.executable, "-m", "bot", "deps"], cwd=repo, env=env, capture_output=True, text=True)
    assert "Traceback" not in done.stderr
    assert done.returncode == 0, done.stderr  # the attempts fail; the library still builds
    assert not planted.exists()
    assert victim.read_text() == "print('the tool')\n"


def test_the_mode_is_named_and_an_impossible_one_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SB_SANDBOX", "sideways")
    sandbox.mode.cache_clear()
    with pytest.raises(BotError, match="SB_SANDBOX must be"):
        sandbox.mode()
    monkeypatch.setenv("SB_SANDBOX", "namespaces")
    monkeypatch.setenv("PATH", "/nonexistent")
    sandbox.mode.cache_clear()
    with pytest.raises(BotError, match="bubblewrap"):
        sandbox.mode()
    sandbox.mode.cache_clear()


# --- the constructor, through the Action ---------------------------------------------------------

# Runs inside the tracer at head: goes for the tool's files, every token it can find, the checkout's
# git credentials and the base's inputs in the cache, then reports through the model failure.
HOSTILE_CONSTRUCTOR = r"""
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>

namespace {

int attempts = 0, succeeded = 0;

void append(const char* path, const char* text) {
  ++attempts;
  FILE* file = std::fopen(path, "a");
  if (file == nullptr) return;
  std::fputs(text, file);
  std::fclose(file);
  ++succeeded;
}

void steal(const char* path, FILE* loot) {
  FILE* file = std::fopen(path, "rb");
  if (file == nullptr) return;
  static char data[1 << 16];
  size_t n = std::fread(data, 1, sizeof(data), file);
  std::fclose(file);
  std::fwrite(data, 1, n, loot);
}

int attack() {
  append("@TOOL@/bot/github/api.py", "\nimport os; open('@LOOT@', 'a').write(repr(dict(os.environ)))\n");
  append("@TOOL@/bot/github/poster.py", "\nimport os; open('@LOOT@', 'a').write(repr(dict(os.environ)))\n");
  append("@TOOL@/bot/report/comment.py", "\nimport os; open('@LOOT@', 'a').write(repr(dict(os.environ)))\n");
  append("@BASEYAML@", "include_all_operators: true\n");
  FILE* loot = std::fopen("@LOOT@", "ab");
  if (loot == nullptr) loot = std::fopen("stolen.txt", "ab");
  if (loot != nullptr) {
    steal("/proc/self/environ", loot);
    if (DIR* proc = opendir("/proc")) {
      while (dirent* entry = readdir(proc)) {
        char path[300];
        std::snprintf(path, sizeof(path), "/proc/%s/environ", entry->d_name);
        steal(path, loot);
      }
      closedir(proc);
    }
    steal("@WORKSPACE@/.git/config", loot);
    std::fclose(loot);
  }
  std::fprintf(stderr, "error: CTORRAN attempts=%d succeeded=%d\n", attempts, succeeded);
  std::_Exit(3);
}

[[maybe_unused]] const int attacked = attack();

}  // namespace
"""


def _tool_copy(path: Path) -> Path:
    """The tool as installed: its own tree, apart from this checkout (so a failed containment harms a copy)."""
    for part in ("bot", "native", "kernels"):
        shutil.copytree(REPO_ROOT / part, path / part, ignore=shutil.ignore_patterns("__pycache__", ".sb-build"))
    shutil.copy2(REPO_ROOT / "pyproject.toml", path / "pyproject.toml")
    return path


def _digest(tree: Path) -> dict[str, str]:
    return {
        p.relative_to(tree).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(tree.rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts and ".sb-build" not in p.parts
    }


def _run_hostile_action(repo: Path, base_sha: str, head_sha: str, tool: Path, tmp_path: Path, mode: str):
    fake = FakeGitHub().start()
    try:
        event = opened_event(base_sha, head_sha, fake)
        inputs = {"post": "true", "report": str(tmp_path / "report"), "targets": "seq"}
        env = runner_env(tmp_path, repo, event, fake, inputs)
        env.update(SECRETS, PYTHONPATH=str(tool), SB_SANDBOX=mode, SB_CACHE_DIR=str(tmp_path.parent / "cache"))
        runner_dir = tmp_path / "runner"
        runner_dir.mkdir(exist_ok=True)
        proc = run_action(env, runner_dir)  # not from the workspace: its bot/ is the PR's
    finally:
        fake.stop()
    return proc, fake


def test_a_constructor_in_pr_code_reaches_neither_tool_nor_token_nor_base(
    mode: str, base_repo: Path, tmp_path: Path
) -> None:
    tool = _tool_copy(tmp_path / "tool")
    tool_before = _digest(tool)
    repo = clone_of(base_repo, tmp_path / "workspace")
    base_sha = git(repo, "rev-parse", "HEAD").strip()
    git(repo, "config", "http.https://github.com/.extraheader", f"AUTHORIZATION: basic {SECRETS['GITHUB_TOKEN']}")
    cache = tmp_path / "cache"
    base_yaml = cache / "worktrees" / f"base-{_repo_key(repo)}" / "apps" / "seq" / "selected_operators.yaml"
    loot = Path("/tmp") / f"sb-loot-{os.getpid()}-{mode}.txt"
    kernel = repo / "kernels" / "portable" / "op_relu.cpp"
    attack = (
        HOSTILE_CONSTRUCTOR.replace("@TOOL@", str(tool))
        .replace("@LOOT@", str(loot))
        .replace("@BASEYAML@", str(base_yaml))
        .replace("@WORKSPACE@", str(repo))
    )
    kernel.write_text(kernel.read_text() + attack)
    head_sha = commit_all(repo, "hostile constructor")

    runs = []
    for attempt in range(2):  # the second run reuses the cache the first one's PR code ran beside
        proc, fake = _run_hostile_action(repo, base_sha, head_sha, tool, tmp_path / f"run{attempt}", mode)
        assert "Traceback" not in proc.stderr, proc.stderr
        texts = everything_published(tmp_path / f"run{attempt}", proc, fake)
        assert_no_secret(texts)
        assert "CTORRAN" in texts["report.md"].replace("\\", ""), "the constructor did not run"
        assert "succeeded=0" in texts["report.md"].replace("\\", ""), texts["report.md"]
        assert len(fake.comments) == 1  # the poster still posted, with the token the PR never saw
        assert f"sandbox: {'namespaces' if mode == 'namespaces' else 'uid fallback'}" in proc.stderr + proc.stdout
        runs.append(texts["report.json"])

    assert _digest(tool) == tool_before
    stolen = loot.read_bytes() if loot.exists() else b""
    loot.unlink(missing_ok=True)
    for secret in SECRETS.values():
        assert secret.encode() not in stolen
    for path in [*repo.rglob("stolen.txt"), *cache.rglob("stolen.txt")]:
        assert not any(secret.encode() in path.read_bytes() for secret in SECRETS.values())
    assert "include_all_operators: true" not in base_yaml.read_text()
    # The first run built and measured the base before any PR code ran: a clean base. The second run,
    # beside whatever the first run's PR code left in the cache, reports the same base and the same delta.
    assert _sizes(runs[0]) == _sizes(runs[1])
    assert all(base is not None for base, _ in _sizes(runs[1])) and _sizes(runs[1])


def test_a_tool_rewritten_on_disk_never_runs_beside_the_token(base_repo: Path, tmp_path: Path) -> None:
    """Where nothing confines PR code ("limits only": no namespaces, not root), the constructor does rewrite
    the installed tool. The pipeline process holds no token by then, and the poster, the one process that
    does, was forked before any PR code ran and loads nothing from disk: the rewritten modules never run
    with the token in reach."""
    tool = _tool_copy(tmp_path / "tool")
    repo = clone_of(base_repo, tmp_path / "workspace")
    base_sha = git(repo, "rev-parse", "HEAD").strip()
    loot = Path("/tmp") / f"sb-loot-{os.getpid()}-limits.txt"
    kernel = repo / "kernels" / "portable" / "op_relu.cpp"
    attack = (
        HOSTILE_CONSTRUCTOR.replace("@TOOL@", str(tool))
        .replace("@LOOT@", str(loot))
        .replace("@BASEYAML@", str(tmp_path / "no-base.yaml"))
        .replace("@WORKSPACE@", str(repo))
    )
    kernel.write_text(kernel.read_text() + attack)
    head_sha = commit_all(repo, "hostile constructor")
    proc, fake = _run_hostile_action(repo, base_sha, head_sha, tool, tmp_path / "run", "limits")
    texts = everything_published(tmp_path / "run", proc, fake)
    stolen = loot.read_bytes() if loot.exists() else b""
    loot.unlink(missing_ok=True)
    assert "sandbox: limits only" in proc.stderr + proc.stdout
    assert "import os; open(" in (tool / "bot" / "github" / "api.py").read_text()  # the rewrite did land on disk
    assert len(fake.comments) == 1  # and the poster still posted
    assert_no_secret(texts)
    for secret in SECRETS.values():
        assert secret.encode() not in stolen


def _repo_key(repo: Path) -> str:
    from bot import git as git_mod

    return git_mod.repo_key(git_mod.toplevel(repo))


def _sizes(report_json: str) -> list[tuple[int | None, int | None]]:
    """(base VM bytes, head minus base) of every runtime in a report artifact."""
    import json

    data = json.loads(report_json)
    found = []
    for s in (s for t in data["report"]["targets"] for s in t["sizes"]):
        base = s["base"]["vm_size"] if s.get("base") else None
        head = s["head"]["vm_size"] if s.get("head") else None
        found.append((base, head - base if base is not None and head is not None else None))
    return found


def test_the_uid_fallback_is_what_a_container_without_namespaces_gets(monkeypatch: pytest.MonkeyPatch) -> None:
    """With no bubblewrap to be had (a container's seccomp profile refuses it), root falls back to the uid."""
    if os.geteuid() != 0:
        pytest.skip("the uid fallback needs root")
    bin_dir = Path(subprocess.run(["mktemp", "-d"], capture_output=True, text=True).stdout.strip())
    try:
        (bin_dir / "bwrap").write_text("#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n")
        (bin_dir / "bwrap").chmod(0o755)
        monkeypatch.setenv("PATH", f"{bin_dir}:{os.environ['PATH']}")
        monkeypatch.delenv("SB_SANDBOX", raising=False)
        sandbox.mode.cache_clear()
        assert sandbox.mode() is sandbox.Mode.UID
        assert "uid" in sandbox.describe()
    finally:
        shutil.rmtree(bin_dir)
        sandbox.mode.cache_clear()
