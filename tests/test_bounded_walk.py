"""Bounded work in the bot itself: every glob and directory walk over a tree a PR controls is one pass
with an entry bound and a time bound (bot/safety/bounded_walk.py), each ending in one error line, and a glob's
cost is linear in the entries it sees, whatever its `**` segments.

The attack: `sources: ["**/**/**/**/**/**/**/*.cpp"]` over a 30-deep folder chain kept
`regenerate --check` in pathlib's glob for minutes."""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bot import config
from bot.errors import BotError, ExitCode
from bot.safety import bounded_walk, safe_files
from bot.safety.limits import Limits
from tests.conftest import REPO_ROOT

FIXTURE = REPO_ROOT / "tests" / "consumer"
DEEP = 30
DEEP_GLOB = "**/**/**/**/**/**/**/*.cpp"
SPREAD_GLOB = "**/*/**/*/**/*/**/*.cpp"  # no two `**` side by side: nothing to collapse


def app_repo(path: Path, sources: str, limits: str = "") -> Path:
    """An app repository (the bundled runtime) whose custom kernel library lists its sources with `sources`,
    its one kernel at the bottom of a 30-deep folder chain."""
    shutil.copytree(FIXTURE / "my_kernels", path / "my_kernels")
    chain = path / "my_kernels" / Path(*["d"] * DEEP)
    chain.mkdir(parents=True)
    (path / "my_kernels" / "op_fancy_gelu.cpp").rename(chain / "op_fancy_gelu.cpp")
    (path / "models").mkdir()
    shutil.copy2(FIXTURE / "models" / "fancy_mlp.pte", path / "models" / "fancy_mlp.pte")
    (path / ".selective-build.yml").write_text(
        "version: 1\n"
        f"kernel_libraries: [{{yaml: my_kernels/functions.yaml, sources: [{sources!r}]}}]\n"
        "targets:\n  app:\n    yaml: apps/app/selected_operators.yaml\n    models: [models/fancy_mlp.pte]\n" + limits
    )
    return path


def bot(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}  # this checkout's bot (the repo has none)
    return subprocess.run(
        [sys.executable, "-m", "bot", *args], cwd=repo, env=env, capture_output=True, text=True, timeout=120
    )


def refused(proc: subprocess.CompletedProcess[str], code: ExitCode, expected: str) -> None:
    assert proc.returncode == code, proc.stdout + proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), proc.stderr
    assert expected in lines[0], lines[0]
    assert "Traceback" not in proc.stdout + proc.stderr


@pytest.mark.parametrize("pattern", [DEEP_GLOB, SPREAD_GLOB])
def test_a_deep_glob_over_a_deep_chain_is_listed_at_once(pattern: str, tmp_path: Path) -> None:
    repo = app_repo(tmp_path / "repo", pattern)
    library = next(lib for lib in config.load(repo).libraries() if not lib.portable)

    started = time.monotonic()
    found = library.source_files(repo)

    assert time.monotonic() - started < 2
    assert [p.relative_to(repo).as_posix() for p in found] == [f"my_kernels/{'d/' * DEEP}op_fancy_gelu.cpp"]


def test_regenerate_check_gets_through_the_deep_glob_in_seconds(tmp_path: Path) -> None:
    """End to end: the glob finishes (it finds the kernel 30 folders down) and the run goes on to what
    it finds there, a source symlinked out of the repository, refused in one line, in seconds."""
    repo = app_repo(tmp_path / "repo", DEEP_GLOB)
    deep = repo / "my_kernels" / Path(*["d"] * DEEP) / "op_fancy_gelu.cpp"
    outside = tmp_path / "outside.cpp"
    deep.rename(outside)
    deep.symlink_to(outside)

    started = time.monotonic()
    proc = bot(repo, "regenerate", "--check")

    assert time.monotonic() - started < 10
    refused(proc, ExitCode.CONFIG, f"my_kernels/{'d/' * DEEP}op_fancy_gelu.cpp leads outside the repository")


def test_a_source_tree_over_the_entry_bound_is_refused_in_one_line(tmp_path: Path) -> None:
    repo = app_repo(tmp_path / "repo", "**/*.cpp", "limits: {listing_entries: 1000}\n")
    crowd = repo / "my_kernels" / "crowd"
    crowd.mkdir()
    for index in range(1200):
        (crowd / f"f{index}.txt").write_text("")

    proc = bot(repo, "regenerate", "--check")

    refused(
        proc,
        ExitCode.CONFIG,
        "the sources of kernel library my_kernels/functions.yaml: more than 1,000 entries (limits.listing_entries)",
    )


def test_a_models_folder_over_the_entry_bound_is_refused_in_one_line(tmp_path: Path) -> None:
    """The `.input*.npy` files beside a model are found by listing its folder: bounded too."""
    repo = app_repo(tmp_path / "repo", "**/*.cpp", "limits: {listing_entries: 1000}\n")
    for index in range(1200):
        (repo / "models" / f"other{index}.npy").write_text("")

    proc = bot(repo, "regenerate", "--check")

    refused(
        proc,
        ExitCode.CONFIG,
        ".selective-build.yml: targets.app.models[0]: inputs beside models/fancy_mlp.pte: more than 1,000 entries",
    )


def test_the_entry_bound_is_a_config_limit_within_the_schema(tmp_path: Path) -> None:
    repo = app_repo(tmp_path / "repo", "**/*.cpp", "limits: {listing_entries: 100000000}\n")

    refused(bot(repo, "regenerate", "--check"), ExitCode.CONFIG, "limits.listing_entries: 100000000 is greater than")


def test_a_listing_over_its_time_bound_ends_in_one_error(tmp_path: Path) -> None:
    for index in range(50):
        (tmp_path / f"f{index}").write_text("")
    with pytest.raises(BotError) as caught:
        bounded_walk.walk(tmp_path, "the tree", Limits(listing_seconds=1e-9))
    assert caught.value.exit_code == ExitCode.CONFIG
    assert caught.value.message == "the tree: listing took over 1e-09 s (limits.listing_seconds)"


def test_a_symlinked_directory_is_never_entered(tmp_path: Path) -> None:
    """A symlink loop (pathlib's `**` followed symlinked directories) and a link out of the repo: each is
    one entry, never entered; the check for symlinks leaving the repo still sees the one that does."""
    repo = tmp_path / "repo"
    (repo / "kernels" / "sub").mkdir(parents=True)
    (repo / "kernels" / "sub" / "op_a.cpp").write_text("")
    (repo / "kernels" / "sub" / "loop").symlink_to(repo / "kernels")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.cpp").write_text("")
    (repo / "kernels" / "out").symlink_to(outside)

    found = bounded_walk.glob(repo / "kernels", ["**/*.cpp"], "kernels")
    listed = {e.relative: (e.is_dir, e.is_symlink) for e in bounded_walk.walk(repo / "kernels", "kernels")}

    assert found == [repo / "kernels" / "sub" / "op_a.cpp"]
    assert listed == {
        "sub": (True, False),
        "sub/op_a.cpp": (False, False),
        "sub/loop": (False, True),
        "out": (False, True),
    }
    assert safe_files.symlinks_leaving(repo, [repo / "kernels"]) == [repo / "kernels" / "out"]


def test_the_runtimes_own_kernel_tree_is_listed_as_pathlib_listed_it() -> None:
    """The repository's kernels/ (no symlinks): every pattern the configs use gives pathlib's answer."""
    kernels = REPO_ROOT / "kernels"
    for pattern in ("**/*.cpp", "*.cpp", "portable/op_*.cpp", "**/util/*.h", "**", "*", "optimized/**/*.cpp"):
        assert bounded_walk.glob(kernels, [pattern], "kernels") == sorted(set(kernels.glob(pattern))), pattern


NAMES = ("a", "b", "a.cpp", ".h", "x.cc", "ab", "[a]", "c*")
PATTERNS = ("**", "*", "a", "*.cpp", "a*", "?", "[ab]", "**/*.cpp", "a/**", "**/a", "*/**/*.cpp", "**/b/**/*.cc")
PATTERNS += ("**/**", "a/*/b", "**/.h", "[[]a]", "c[*]", "[!a]*")


def test_globs_match_as_pathlib_globs_on_random_trees(tmp_path: Path) -> None:
    """Random trees of files and folders (names with dots, brackets and stars) and random patterns:
    the same paths as pathlib's glob, so configs that worked keep their exact sources."""
    rng = random.Random(20250119)
    for trial in range(400):
        top = tmp_path / str(trial)
        top.mkdir()
        for _ in range(rng.randrange(1, 25)):
            path = top.joinpath(*(rng.choice(NAMES) for _ in range(rng.randrange(1, 5))))
            try:
                if rng.random() < 0.5:
                    path.mkdir(parents=True, exist_ok=True)
                else:
                    path.parent.mkdir(parents=True, exist_ok=True)
                    path.touch()
            except (FileExistsError, NotADirectoryError):
                pass  # a file where a folder would go, or the other way round
        pattern = "/".join(rng.choice(PATTERNS) for _ in range(rng.randrange(1, 4)))
        assert bounded_walk.glob(top, [pattern], "t") == sorted(set(top.glob(pattern))), (trial, pattern)
