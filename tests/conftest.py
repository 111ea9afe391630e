from __future__ import annotations

import os
from pathlib import Path

import pytest

from bot.build import cmake
from bot.safety import sandbox

# Each pytest-xdist worker runs PR code as a sandbox uid of its own: the end of a uid-mode step kills every
# process of its uid and RLIMIT_NPROC counts them all, so workers sharing one would wait on each other's
# steps at best and starve them at worst (a fork-bomb test).
_WORKER = os.environ.get("PYTEST_XDIST_WORKER", "")
if _WORKER.startswith("gw") and "SB_SANDBOX_UID" not in os.environ:
    os.environ["SB_SANDBOX_UID"] = str(sandbox.DEFAULT_SANDBOX_UID - int(_WORKER.removeprefix("gw")))

REPO_ROOT = Path(__file__).resolve().parent.parent
ZOO_DIR = REPO_ROOT / "models" / "zoo"
ZOO_MODELS = sorted(p.stem for p in ZOO_DIR.glob("*.pte"))


def zoo_inputs(name: str) -> list[Path]:
    return sorted(ZOO_DIR.glob(f"{name}.input*.npy"), key=lambda p: int(p.stem.rsplit("input", 1)[1]))


def zoo_expected(name: str) -> list[Path]:
    return sorted(ZOO_DIR.glob(f"{name}.expected*.npy"), key=lambda p: int(p.stem.rsplit("expected", 1)[1]))


@pytest.fixture(scope="session")
def all_ops_build() -> Path:
    """Build directory of the all-ops runtime (built once per session)."""
    return cmake.build(cmake.ALL_OPS, targets=("executor_runner", "execute_alloc_test"))


@pytest.fixture(scope="session")
def runner(all_ops_build: Path) -> Path:
    return cmake.runner_path(all_ops_build)


@pytest.fixture(scope="session")
def base_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A temporary git repo of this project (three models, two targets) with up-to-date yamls."""
    from tests.scenario_repo import make_base

    return make_base(tmp_path_factory.mktemp("base") / "repo")


@pytest.fixture(scope="session")
def delegated_programs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Real XNNPACK-delegated programs (tests/delegated_programs.py), exported once per session."""
    from tests import delegated_programs as dp

    return dp.export(tmp_path_factory.mktemp("delegated"))
