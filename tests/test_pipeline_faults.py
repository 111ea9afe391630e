"""Pipeline faults: a killed run never poisons the next, runs in one clone do not
collide, an unusable checked-in yaml is a finding, and files keep the umask's mode."""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from bot import git, pipeline
from bot.build import cmake, lock
from bot.errors import BotError
from bot.fileio import write_text_atomic
from bot.report import comment, escape, model
from tests.judging import judged
from tests.scenario_repo import clone_of, commit_all, init_repo


@pytest.fixture
def repo(base_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("SB_CACHE_DIR", str(tmp_path / "cache"))
    return clone_of(base_repo, tmp_path / "repo")


def tracked_files(path: Path) -> list[str]:
    return subprocess.run(
        ["git", "-C", str(path), "ls-files"], check=True, capture_output=True, text=True
    ).stdout.split()


def worktree_path(repo: Path, cache: Path, role: str) -> Path:
    return cache / "worktrees" / f"{role}-{git.repo_key(repo)}"


# --- worktrees: every state a killed `git worktree add` or checkout can leave -------------------------


def torn_by_add_without_checkout(repo: Path, path: Path, commit: str) -> None:
    """Killed right after registering the worktree, before any file was written."""
    git._git(repo, "worktree", "add", "--quiet", "--no-checkout", "--detach", str(path), commit)


def torn_by_partial_checkout(repo: Path, path: Path, commit: str) -> None:
    """Killed halfway through writing files: some directories exist, the rest do not."""
    torn_by_add_without_checkout(repo, path, commit)
    git._git(path, "checkout", commit, "--", "native")


def torn_with_index_lock(repo: Path, path: Path, commit: str) -> None:
    """Killed while git held the worktree's index lock."""
    git._git(repo, "worktree", "add", "--quiet", "--detach", str(path), commit)
    gitdir = Path(git._git(path, "rev-parse", "--git-dir").strip())
    (path / gitdir if not gitdir.is_absolute() else gitdir).joinpath("index.lock").write_text("")
    (path / "kernels" / "portable" / "functions.yaml").unlink()


def torn_by_tampering(repo: Path, path: Path, commit: str) -> None:
    """A previous run's leftovers: edited tracked files and untracked extras."""
    git._git(repo, "worktree", "add", "--quiet", "--detach", str(path), commit)
    (path / "kernels" / "portable" / "functions.yaml").write_text("garbage: [\n")
    (path / "models" / "zoo" / "squeezenet.input9.npy").write_bytes(b"not npy")


def directory_gone(repo: Path, path: Path, commit: str) -> None:
    """The cache was wiped but git still has the worktree registered."""
    git._git(repo, "worktree", "add", "--quiet", "--detach", str(path), commit)
    subprocess.run(["rm", "-rf", str(path)], check=True)


@pytest.mark.parametrize(
    "tear",
    [torn_by_add_without_checkout, torn_by_partial_checkout, torn_with_index_lock, torn_by_tampering, directory_gone],
)
def test_a_torn_worktree_is_repaired_before_use(repo: Path, tmp_path: Path, tear) -> None:
    cache = tmp_path / "cache"
    commit = git.resolve(repo, "HEAD")
    path = worktree_path(repo, cache, "base")
    path.parent.mkdir(parents=True)
    tear(repo, path, commit)

    got = git.worktree(repo, commit, cache, role="base", keep=pipeline.KEEP)

    assert got == path
    assert git._git(got, "rev-parse", "HEAD").strip() == commit
    assert git._git(got, "status", "--porcelain", "--untracked-files=all").strip() == ""
    assert tracked_files(got) == tracked_files(repo)
    assert (got / "kernels" / "portable" / "functions.yaml").read_bytes() == (
        repo / "kernels" / "portable" / "functions.yaml"
    ).read_bytes()


def test_a_worktree_keeps_its_build_directories_across_commits(repo: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    first = git.resolve(repo, "HEAD")
    (repo / "extra.txt").write_text("x")
    second = commit_all(repo, "another commit")
    path = git.worktree(repo, first, cache, keep=pipeline.KEEP)
    (path / cmake.BUILD_DIR_NAME / "flavour").mkdir(parents=True)
    (path / cmake.BUILD_DIR_NAME / "flavour" / "object.o").write_text("warm")

    assert git.worktree(repo, second, cache, keep=pipeline.KEEP) == path
    assert (path / "extra.txt").is_file()
    assert (path / cmake.BUILD_DIR_NAME / "flavour" / "object.o").read_text() == "warm"


# --- worktrees: a real `git worktree add` or checkout killed midway, and the locks it leaves --------------

MANY_DIRS, FILES_PER_DIR = 60, 100  # enough files that a checkout takes a moment to kill it during


def _write_tree(repo: Path, version: int) -> None:
    for d in range(MANY_DIRS):
        folder = repo / f"d{d:02}"
        folder.mkdir(exist_ok=True)
        for f in range(FILES_PER_DIR):
            (folder / f"f{f:03}.txt").write_text(f"version {version}, file {d}/{f}\n" * 40)


@pytest.fixture(scope="module")
def many_files_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A repo of two commits (main~1, main) that differ in every one of its 6,000 files."""
    repo = tmp_path_factory.mktemp("many") / "repo"
    repo.mkdir()
    init_repo(repo)
    (repo / ".gitignore").write_text(f"{cmake.BUILD_DIR_NAME}/\n")
    for version in (1, 2):
        _write_tree(repo, version)
        commit_all(repo, f"version {version}")
    return repo


@pytest.fixture
def many_files(many_files_template: Path, tmp_path: Path) -> Path:
    return clone_of(many_files_template, tmp_path / "repo")


def admin_dir(repo: Path, path: Path) -> Path:
    """Where git keeps the worktree's admin entry (the name it would give it)."""
    return repo / ".git" / "worktrees" / path.name


def assert_clean_worktree(repo: Path, got: Path, commit: str) -> None:
    """A checkout of `commit` that git has registered once, unlocked and not prunable."""
    assert git._git(got, "rev-parse", "HEAD").strip() == commit
    assert git._git(got, "status", "--porcelain", "--untracked-files=all").strip() == ""
    assert tracked_files(got) == git._git(repo, "ls-tree", "-r", "--name-only", commit).split()
    assert (got / "d59" / "f099.txt").read_text() == git._git(repo, "show", f"{commit}:d59/f099.txt")
    listing = git._git(repo, "worktree", "list", "--porcelain").splitlines()
    assert not [line for line in listing if line.startswith(("locked", "prunable"))], listing
    assert listing.count(f"worktree {got}") == 1, listing
    entries = sorted(p.name for p in (repo / ".git" / "worktrees").iterdir())
    assert entries == [got.name], entries  # no leftover admin entry (say, a locked one git renamed around)


def kill_when(proc: subprocess.Popen[bytes], ready: Callable[[], bool], delay: float) -> bool:
    """SIGKILLs `proc`'s process group `delay` s after `ready()` holds; False when it finished first."""
    deadline = time.monotonic() + 60
    while not ready():
        if proc.poll() is not None or time.monotonic() > deadline:
            return False
        time.sleep(0.0005)
    time.sleep(delay)
    if proc.poll() is not None:
        return False
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    return True


@pytest.mark.parametrize("delay", [0.0, 0.02, 0.15])
def test_a_worktree_add_killed_midway_never_blocks_the_next_run(many_files: Path, tmp_path: Path, delay: float) -> None:
    """SIGKILL `git worktree add` (and the checkout it runs) once git has locked the new entry
    "initializing": the next run gets a clean worktree instead of "use 'add -f -f' to override"."""
    cache = tmp_path / "cache"
    commit = git.resolve(many_files, "main")
    path = worktree_path(many_files, cache, "base")
    path.parent.mkdir(parents=True)
    add = ["git", "-C", str(many_files), "worktree", "add", "--quiet", "--force", "--detach", str(path), commit]
    proc = subprocess.Popen(add, start_new_session=True)
    if not kill_when(proc, (admin_dir(many_files, path) / "locked").exists, delay):
        pytest.skip("git worktree add finished before it could be killed")
    assert (admin_dir(many_files, path) / "locked").exists()  # the state the issue describes

    got = git.worktree(many_files, commit, cache, role="base", keep=pipeline.KEEP)

    assert got == path
    assert_clean_worktree(many_files, got, commit)


def test_a_checkout_killed_midway_is_repaired_in_place(many_files: Path, tmp_path: Path) -> None:
    """SIGKILL the checkout that moves an existing worktree to another commit while it holds the
    index lock: the next run clears the stale lock and repairs the worktree, keeping its builds."""
    cache = tmp_path / "cache"
    first, second = git.resolve(many_files, "main~1"), git.resolve(many_files, "main")
    path = git.worktree(many_files, first, cache, role="base", keep=pipeline.KEEP)
    warm = path / cmake.BUILD_DIR_NAME / "flavour" / "object.o"
    warm.parent.mkdir(parents=True)
    warm.write_text("warm")
    checkout = ["git", "-C", str(path), "checkout", "--quiet", "--force", "--detach", second]
    proc = subprocess.Popen(checkout, start_new_session=True)
    if not kill_when(proc, (admin_dir(many_files, path) / "index.lock").exists, 0.05):
        pytest.skip("git checkout finished before it could be killed")
    assert (admin_dir(many_files, path) / "index.lock").exists()

    got = git.worktree(many_files, second, cache, role="base", keep=pipeline.KEEP)

    assert got == path
    assert_clean_worktree(many_files, got, second)
    assert warm.read_text() == "warm"


# What a kill leaves, made with git itself and the files git writes, for the states a real kill
# reaches only by chance.


def locked_before_gitdir(repo: Path, path: Path, commit: str) -> None:
    """Killed right after git created the admin entry and its "initializing" lock (and the directory)."""
    admin_dir(repo, path).mkdir(parents=True)
    (admin_dir(repo, path) / "locked").write_text("initializing")
    path.mkdir()


def locked_directory_gone(repo: Path, path: Path, commit: str) -> None:
    """A locked entry whose directory is missing: git's own "missing but locked worktree"."""
    git._git(repo, "worktree", "add", "--quiet", "--no-checkout", "--detach", str(path), commit)
    git._git(repo, "worktree", "lock", "--reason", "initializing", str(path))
    subprocess.run(["rm", "-rf", str(path)], check=True)


def locked_half_checkout_with_index_lock(repo: Path, path: Path, commit: str) -> None:
    """Killed during the checkout `git worktree add` runs: locked, some files written, index locked."""
    git._git(repo, "worktree", "add", "--quiet", "--no-checkout", "--detach", str(path), commit)
    git._git(repo, "worktree", "lock", "--reason", "initializing", str(path))
    git._git(path, "checkout", commit, "--", "d00", "d01")
    (admin_dir(repo, path) / "index.lock").write_text("")


def head_and_index_locked(repo: Path, path: Path, commit: str) -> None:
    """An existing worktree whose checkout was killed holding both the index and the HEAD lock."""
    git._git(repo, "worktree", "add", "--quiet", "--detach", str(path), f"{commit}~1")
    (admin_dir(repo, path) / "index.lock").write_text("")
    (admin_dir(repo, path) / "HEAD.lock").write_text("")
    (path / "d00" / "f000.txt").write_text("half written")


def directory_without_admin_entry(repo: Path, path: Path, commit: str) -> None:
    """The directory (its .git file pointing at an admin entry) outlived the entry."""
    git._git(repo, "worktree", "add", "--quiet", "--detach", str(path), commit)
    subprocess.run(["rm", "-rf", str(admin_dir(repo, path))], check=True)


def directory_without_git_file(repo: Path, path: Path, commit: str) -> None:
    """A partial directory that never got its .git file."""
    (path / "d00").mkdir(parents=True)
    (path / "d00" / "f000.txt").write_text("partial")


@pytest.mark.parametrize(
    "tear",
    [
        locked_before_gitdir,
        locked_directory_gone,
        locked_half_checkout_with_index_lock,
        head_and_index_locked,
        directory_without_admin_entry,
        directory_without_git_file,
    ],
)
def test_every_state_a_kill_leaves_is_recovered(many_files: Path, tmp_path: Path, tear) -> None:
    cache = tmp_path / "cache"
    commit = git.resolve(many_files, "main")
    path = worktree_path(many_files, cache, "base")
    path.parent.mkdir(parents=True)
    tear(many_files, path, commit)

    got = git.worktree(many_files, commit, cache, role="base", keep=pipeline.KEEP)

    assert got == path
    assert_clean_worktree(many_files, got, commit)


def test_a_killed_run_never_poisons_the_next_pipeline_run(repo: Path, tmp_path: Path) -> None:
    """The reported sizes after a torn base worktree equal those of a run from a clean cache."""
    (repo / "notes.md").write_text("a change that touches no kernel\n")
    commit_all(repo, "docs")
    clean = pipeline.run_pr(repo, "main~1", None, lambda _: None)

    base = git.resolve(repo, "main~1")
    path = worktree_path(repo, tmp_path / "cache", "base")
    subprocess.run(["rm", "-rf", str(path)], check=True)
    git._git(repo, "worktree", "prune")
    torn_by_partial_checkout(repo, path, base)
    rerun = pipeline.run_pr(repo, "main~1", None, lambda _: None)

    assert not rerun.first_build_error()
    assert [(t.name, t.sizes) for t in rerun.targets] == [(t.name, t.sizes) for t in clean.targets]


def test_a_configure_killed_midway_is_started_over(tmp_path: Path) -> None:
    out = tmp_path / "build"
    out.mkdir()
    # What a killed configure leaves: a cache and a generated file, but no stamp.
    (out / "CMakeCache.txt").write_text("CMAKE_MAKE_PROGRAM:FILEPATH=/nonexistent/ninja\n")
    (out / "build.ninja").write_text("this is not ninja syntax\n")

    built = cmake.build(cmake.ALL_OPS, targets=("executor_runner",), build_dir=out)

    assert (built / cmake.CONFIGURED_STAMP).is_file()
    probe = subprocess.run([str(cmake.runner_path(built)), "--list-kernels"], capture_output=True, text=True)
    assert probe.returncode == 0 and "aten::add.out" in probe.stdout


def test_a_checked_in_build_directory_symlink_cannot_send_the_build_outside(tmp_path: Path) -> None:
    checkout = tmp_path / "checkout"
    (checkout / "native").mkdir(parents=True)
    outside = tmp_path / "outside"
    outside.mkdir()
    (checkout / cmake.BUILD_DIR_NAME).symlink_to(outside)

    with pytest.raises(BotError, match="leads outside the checkout"):
        cmake.build(cmake.ALL_OPS, source_dir=checkout / "native")
    assert list(outside.iterdir()) == []


# --- concurrency ------------------------------------------------------------------------------------------


def test_the_clone_lock_serializes_holders_and_reports_the_wait(tmp_path: Path) -> None:
    events: list[str] = []
    first_holds = threading.Event()
    release_first = threading.Event()

    def first() -> None:
        with lock.clone(tmp_path / "repo", tmp_path / "cache"):
            events.append("first in")
            first_holds.set()
            release_first.wait(10)
            events.append("first out")

    thread = threading.Thread(target=first)
    thread.start()
    first_holds.wait(10)
    waits: list[str] = []
    threading.Timer(0.5, release_first.set).start()
    with lock.clone(tmp_path / "repo", tmp_path / "cache", on_wait=waits.append):
        events.append("second in")
    thread.join()

    assert events == ["first in", "first out", "second in"]
    assert len(waits) == 1 and "another run" in waits[0]


def test_a_lock_held_too_long_ends_in_one_error(tmp_path: Path) -> None:
    with lock.exclusive(tmp_path / "l.lock", "the thing"):
        child = subprocess.run(
            [
                sys.executable,
                "-c",
                "from pathlib import Path; from bot.build import lock\n"
                f"with lock.exclusive(Path({str(tmp_path / 'l.lock')!r}), 'the thing', wait_seconds=0.5): pass",
            ],
            capture_output=True,
            text=True,
            cwd=Path(__file__).resolve().parent.parent,
        )
    assert child.returncode != 0
    assert "still in use by another run" in child.stderr


def test_a_killed_holder_releases_its_lock(tmp_path: Path) -> None:
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import time; from pathlib import Path; from bot.build import lock\n"
            f"with lock.exclusive(Path({str(tmp_path / 'l.lock')!r}), 'x'):\n"
            "    print('held', flush=True); time.sleep(60)",
        ],
        stdout=subprocess.PIPE,
        text=True,
        cwd=Path(__file__).resolve().parent.parent,
    )
    assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
    holder.kill()
    holder.wait()
    with lock.exclusive(tmp_path / "l.lock", "x", wait_seconds=2):
        pass


def test_two_pr_runs_in_one_clone_both_succeed_with_the_same_report(repo: Path, tmp_path: Path) -> None:
    (repo / "notes.md").write_text("docs only\n")
    commit_all(repo, "docs")
    env = {**os.environ, "SB_CACHE_DIR": str(tmp_path / "cache")}
    runs = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "bot",
                "pr",
                "--base",
                "main~1",
                "--targets",
                "seq",
                "--output",
                str(tmp_path / f"r{i}.md"),
            ],
            cwd=repo,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for i in range(2)
    ]
    results = [run.communicate(timeout=900) for run in runs]
    for run, (_, err) in zip(runs, results, strict=True):
        assert run.returncode == 0, err
    assert pipeline_report(tmp_path / "r0.json") == pipeline_report(tmp_path / "r1.json")


# --- unusable checked-in yaml -----------------------------------------------------------------------------

BROKEN_YAMLS = {
    "not yaml": "operators: [\n",
    "breaks the schema": "operators: 7\n",
    "duplicate key": "operators:\n  aten::add.out: {}\n  aten::add.out: {}\n",
}


@pytest.mark.parametrize("content", BROKEN_YAMLS.values(), ids=BROKEN_YAMLS.keys())
def test_an_invalid_checked_in_yaml_is_a_finding_in_the_report(repo: Path, tmp_path: Path, content: str) -> None:
    (repo / "apps" / "seq" / "selected_operators.yaml").write_text(content)
    commit_all(repo, "break the yaml")

    proc = subprocess.run(
        [sys.executable, "-m", "bot", "pr", "--base", "main~1", "--output", str(tmp_path / "report.md")],
        cwd=repo,
        capture_output=True,
        text=True,
        env={**os.environ, "SB_CACHE_DIR": str(tmp_path / "cache")},
    )

    assert proc.returncode == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    markdown = (tmp_path / "report.md").read_text()
    assert "apps/seq/selected_operators.yaml" in markdown
    rep = pipeline_report(tmp_path / "report.json")
    seq = next(t for t in rep.targets if t.name == "seq")
    assert seq.yaml_error and rep.stale
    assert seq.sizes[0].head is not None  # the regenerated selection was still built and measured
    cnn = next(t for t in rep.targets if t.name == "cnn")
    assert not cnn.yaml_error and not cnn.diff.stale
    assert comment.summary_line(rep, judged(rep))


def pipeline_report(path: Path) -> model.PrReport:
    from bot.report import artifact

    return artifact.load(path)[0]


# --- file modes -------------------------------------------------------------------------------------------


@pytest.fixture
def umask() -> Iterator[None]:
    previous = os.umask(0o022)
    yield
    os.umask(previous)


@pytest.mark.usefixtures("umask")
@pytest.mark.parametrize("mask", [0o022, 0o027, 0o002, 0o077])
def test_atomic_writes_get_the_umask_mode(tmp_path: Path, mask: int) -> None:
    os.umask(mask)
    write_text_atomic(tmp_path / "new.yaml", "x: 1\n")
    assert stat.S_IMODE((tmp_path / "new.yaml").stat().st_mode) == 0o666 & ~mask


@pytest.mark.usefixtures("umask")
def test_rewriting_a_file_keeps_its_mode(tmp_path: Path) -> None:
    path = tmp_path / "kept.yaml"
    path.write_text("old\n")
    path.chmod(0o640)
    write_text_atomic(path, "new\n")
    assert path.read_text() == "new\n" and stat.S_IMODE(path.stat().st_mode) == 0o640


def test_an_atomic_write_over_a_fifo_replaces_it_without_reading_it(tmp_path: Path) -> None:
    fifo = tmp_path / "planted.yaml"
    os.mkfifo(fifo)
    write_text_atomic(fifo, "x: 1\n")  # would block forever if it compared by reading
    assert fifo.is_file() and fifo.read_text() == "x: 1\n"


@pytest.mark.usefixtures("umask")
def test_the_cli_writes_reports_with_the_umask_mode(tmp_path: Path) -> None:
    source = Path(__file__).resolve().parent.parent / "models" / "oplist" / "gru.yaml"
    out = tmp_path / "merged.yaml"
    proc = subprocess.run(
        ["sh", "-c", f'umask 002 && exec "{sys.executable}" -m bot aggregate "{source}" -o "{out}"'],
        capture_output=True,
        text=True,
        cwd=Path(__file__).resolve().parent.parent,
    )
    assert proc.returncode == 0, proc.stderr
    assert stat.S_IMODE(out.stat().st_mode) == 0o664


def test_a_build_directory_that_is_not_one_is_never_emptied(tmp_path: Path) -> None:
    precious = tmp_path / "home"
    precious.mkdir()
    (precious / "thesis.tex").write_text("years of work")

    with pytest.raises(BotError, match="not a build directory"):
        cmake.build(cmake.ALL_OPS, build_dir=precious)
    assert (precious / "thesis.tex").read_text() == "years of work"


# --- a model the tracer cannot finish --------------------------------------------------------------------


def test_a_model_that_runs_too_long_is_a_finding_not_a_hang(repo: Path) -> None:
    from tests import crafted_programs

    (repo / "models" / "zoo" / "loop.pte").write_bytes(crafted_programs.looping_softmax(2048, 2048))
    config = (repo / ".selective-build.yml").read_text()
    config = config.replace("models: [models/zoo/gru.pte]", "models: [models/zoo/gru.pte, models/zoo/loop.pte]")
    (repo / ".selective-build.yml").write_text(config + "limits:\n  run_seconds: 1\n")
    commit_all(repo, "a model that never ends")

    started = time.monotonic()
    rep = pipeline.run_pr(repo, "main~1", None, lambda _: None)

    assert time.monotonic() - started < 600
    assert [f.model for f in rep.model_failures] == ["models/zoo/loop.pte"]
    assert "exceeded 1 s" in rep.model_failures[0].message
    seq = next(t for t in rep.targets if t.name == "seq")
    assert seq.sizes[0].head is not None  # the other models were still traced, built and measured
    assert "models/zoo/loop.pte" in comment.render(rep, judged(rep))


# --- head kernels that cannot be built as they are --------------------------------------------------------


def test_a_kernel_source_symlinked_outside_is_refused_before_the_compiler_quotes_it(repo: Path, tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("SECRET-MARKER-5f1e do not publish\n")
    kernel = repo / "kernels" / "portable" / "op_relu.cpp"
    kernel.unlink()
    kernel.symlink_to(secret)
    commit_all(repo, "relu is now a link")

    rep = pipeline.run_pr(repo, "main~1", None, lambda _: None)

    assert "kernels/portable/op_relu.cpp" in rep.build_error and "outside the repository" in rep.build_error
    assert "SECRET-MARKER" not in comment.render(rep, judged(rep))
    assert "kernels/portable/op_relu.cpp" in comment.summary_line(rep, judged(rep)) or "build" in comment.summary_line(
        rep, judged(rep)
    )


def test_a_broken_kernel_library_at_head_is_a_build_failure_not_a_traceback(repo: Path) -> None:
    (repo / "kernels" / "portable" / "functions.yaml").write_text("- op: aten::add.out\n  op: twice\n")
    commit_all(repo, "break functions.yaml")

    rep = pipeline.run_pr(repo, "main~1", None, lambda _: None)

    assert "kernels/portable/functions.yaml" in rep.build_error and "duplicate key" in rep.build_error
    assert rep.first_build_error()


def test_a_head_build_that_fails_says_its_size_is_unknown_never_no_change(repo: Path) -> None:
    """relu now insists on its double path: it compiles for the tracer (every dtype) but not in the cnn
    target's dtype-selective runtime (squeezenet's relu is float only), so that head build fails. The
    headline, the check-run title and the terminal table say which build failed and that its size is
    unknown; "no size change" is said only of the runtime that was measured."""
    kernel = repo / "kernels" / "portable" / "op_relu.cpp"
    declaration = 'constexpr char kOp[] = "aten::relu.out";'
    insist = (
        'static_assert(sb::selection::dtype_selected(kOp, ScalarType::kDouble), "relu breaks the selective build");'
    )
    assert declaration in kernel.read_text()
    kernel.write_text(kernel.read_text().replace(declaration, f"{declaration}\n{insist}"))
    commit_all(repo, "relu breaks the selective build")

    proc = subprocess.run(
        [sys.executable, "-m", "bot", "pr", "--base", "main~1", "--output", str(repo / "report.md")],
        cwd=repo,
        capture_output=True,
        text=True,
    )

    assert proc.returncode == 5, proc.stderr  # ExitCode.BUILD
    assert "Traceback" not in proc.stderr
    rep = pipeline_report(repo / "report.json")
    cnn, seq = (next(t for t in rep.targets if t.name == n) for n in ("cnn", "seq"))
    assert cnn.build_error and "relu breaks the selective build" in cnn.build_error
    assert cnn.sizes[0].head is None and seq.sizes[0].delta == 0
    headline = comment.summary_line(rep, judged(rep), name=escape.plain)
    assert headline.startswith("❌ build failed: target cnn ("), headline
    expected_tail = ", 2 targets, cnn on x86-64 head build failed: size unknown, no size change in 1 other runtime"
    assert headline.endswith(expected_tail), headline
    assert comment.summary_line(rep, judged(rep)) in (repo / "report.md").read_text()  # the comment's headline
    printed = " ".join(proc.stdout.split())  # rich wraps the title `bot pr` prints at the terminal's width
    assert printed.startswith(" ".join(headline.split()) + " "), proc.stdout  # the check-run title
    table = proc.stdout.splitlines()
    assert "    x86-64: head build failed: size unknown" in table[table.index("  cnn:") + 1 :][:1]
