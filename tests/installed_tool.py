"""The tool as users get it: installed the way the Dockerfile installs it, into a fresh venv.

The Dockerfile's `COPY` sources are copied into a build context and its `pip install`
runs there with a fresh venv's pip (no --system-site-packages: the tool and its
dependencies come from the package and pip's index/cache, never from this checkout).
That is `pip install <checkout>` as an app repository's CI or the image does it. It
happens once per test session; tests/test_consumer.py and tests/test_image_install.py
share the venv and a build cache, and run everything with the venv first on PATH from
inside app repositories, never from the source tree.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from bot.build import cmake
from tests.conftest import REPO_ROOT
from tests.scenario_repo import commit_all, init_repo

DOCKERFILE = REPO_ROOT / "Dockerfile"
CONSUMER = REPO_ROOT / "tests" / "consumer"
INSTALL_SECONDS = 900


def dockerfile_instructions(text: str | None = None) -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) of the Dockerfile, continuation lines joined, comments dropped."""
    text = DOCKERFILE.read_text() if text is None else text
    logical, current = [], ""
    for line in text.splitlines():
        if not current and (not line.strip() or line.lstrip().startswith("#")):
            continue
        if line.rstrip().endswith("\\"):
            current += line.rstrip()[:-1] + " "
            continue
        current += line
        logical.append(current.strip())
        current = ""
    return [(entry.split(None, 1)[0].upper(), entry.split(None, 1)[1] if " " in entry else "") for entry in logical]


def apt_packages() -> dict[str, str]:
    """Package -> pinned version of every `apt-get install` in the Dockerfile."""
    pinned: dict[str, str] = {}
    for instruction, args in dockerfile_instructions():
        if instruction != "RUN":
            continue
        for command in args.split("&&"):
            words = shlex.split(command)
            if words[:2] == ["apt-get", "install"]:
                for word in words[2:]:
                    if not word.startswith("-"):
                        name, _, version = word.partition("=")
                        pinned[name] = version
    return pinned


def install_commands() -> list[list[str]]:
    """The Dockerfile's RUN commands after its WORKDIR (the package install), as argv lists."""
    commands, after_workdir = [], False
    for instruction, args in dockerfile_instructions():
        after_workdir = after_workdir or instruction == "WORKDIR"
        if instruction == "RUN" and after_workdir:
            commands.extend(shlex.split(part) for part in args.split("&&"))
    return commands


def copies() -> list[tuple[str, str]]:
    """(source, destination) of every COPY, destinations relative to the WORKDIR."""
    pairs = []
    for instruction, args in dockerfile_instructions():
        if instruction == "COPY":
            *sources, destination = shlex.split(args)
            pairs.extend((source, destination) for source in sources)
    return pairs


@dataclass
class Installed:
    venv: Path
    cache: Path  # SB_CACHE_DIR shared by every run of the session (base builds are reused)
    seconds: float  # how long the install took
    env: dict[str, str] = field(default_factory=dict)

    def run(self, cwd: Path, *argv: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        """`argv` (e.g. "selective-build", "regenerate" or "python", "-m", "bot", ...) from the venv, in `cwd`."""
        return subprocess.run(list(argv), cwd=cwd, env={**self.env, **(env or {})}, capture_output=True, text=True)


_SESSION: dict[str, Installed] = {}


def _context(into: Path) -> Path:
    """The image's build context: what the Dockerfile copies, from this checkout."""
    for source, destination in copies():
        target = into / destination / (Path(source).name if destination.endswith("/") else "")
        if destination in ("./", "."):
            target = into / Path(source).name
        path = REPO_ROOT / source
        if path.is_dir():
            shutil.copytree(path, target, ignore=shutil.ignore_patterns("__pycache__", ".sb-build", "*.egg-info"))
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, target)
    return into


def installed_tool(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    """The session's venv with the tool installed as the Dockerfile installs it (made once)."""
    if "tool" in _SESSION:
        return _SESSION["tool"]
    base = tmp_path_factory.mktemp("installed-tool")
    venv = base / "venv"
    started = time.monotonic()
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    env.update(
        {
            "PATH": f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}",
            "VIRTUAL_ENV": str(venv),
            "SB_CACHE_DIR": str(base / "cache"),
            # One compiler cache with the other tests (the bundled runtime's sources have other paths).
            "CCACHE_DIR": subprocess.run(["ccache", "-k", "cache_dir"], capture_output=True, text=True).stdout.strip(),
            "SB_CCACHE_DIR": str(cmake.ccache_home()),  # the bot's compiler caches, shared with the other tests
        }
    )
    context = _context(base / "context")
    for argv in install_commands():
        proc = subprocess.run(argv, cwd=context, env=env, capture_output=True, text=True, timeout=INSTALL_SECONDS)
        assert proc.returncode == 0, f"{shlex.join(argv)} failed:\n{proc.stdout[-3000:]}{proc.stderr[-3000:]}"
    tool = Installed(venv, base / "cache", time.monotonic() - started, env)
    where = tool.run(base, "python", "-c", "import bot; print(bot.__file__)")
    assert where.returncode == 0 and Path(where.stdout.strip()).is_relative_to(venv), where.stdout + where.stderr
    _SESSION["tool"] = tool
    return tool


# Programs of this repo's zoo that the fixture's config names: a PT2E int8 program, an export_llama LLM run
# over its decode steps, a program with its weights in a .ptd. Copied in with the files beside them rather
# than kept twice in git.
FROM_THE_ZOO = ("quantized/squeezenet_q8", "llm/llama_sdpa", "data/mobilenet_v2_ptd")


def copy_from_the_zoo(repo: Path, program: str) -> list[str]:
    """models/<folder>/<name> of this repo into `repo`'s models/: the program, its inputs (of every step and
    method) and data files, not ExecuTorch's outputs. Returns the names copied."""
    folder, name = program.split("/")
    copied = []
    for src in sorted((REPO_ROOT / "models" / folder).glob(f"{name}.*")):
        if ".expected" not in src.name:
            shutil.copy2(src, repo / "models" / src.name)
            copied.append(src.name)
    return copied


def list_after(repo: Path, listed: str, model: str) -> None:
    """The app's config lists `model` in the target that lists `listed`, right after it."""
    config = repo / ".selective-build.yml"
    line = f"      - {listed}\n"
    assert config.read_text().count(line) == 1, listed
    config.write_text(config.read_text().replace(line, line + f"      - {model}\n"))


def app_repo(path: Path, drop: tuple[str, ...] = (), config: str | None = None) -> Path:
    """A git repo holding a copy of the consumer fixture (without the `drop`ped paths), committed on main."""
    shutil.copytree(CONSUMER, path, ignore=shutil.ignore_patterns("__pycache__", "README.md", "export_*.py"))
    for program in FROM_THE_ZOO:
        copy_from_the_zoo(path, program)
    for name in drop:
        target = path / name
        shutil.rmtree(target) if target.is_dir() else target.unlink(missing_ok=True)
    if config is not None:
        (path / ".selective-build.yml").write_text(config)
    init_repo(path)
    commit_all(path, "app")
    return path


def without_custom_kernels(config_text: str) -> str:
    """The fixture's config with its custom kernel library and the models needing it removed."""
    import yaml

    data = yaml.safe_load(config_text)
    custom = {"models/fancy_mlp.pte"}
    data.pop("kernel_libraries", None)
    for name in list(data["targets"]):
        models = [m for m in data["targets"][name]["models"] if (m if isinstance(m, str) else m["path"]) not in custom]
        if models:
            data["targets"][name]["models"] = models
        else:
            del data["targets"][name]
    return yaml.safe_dump(data, sort_keys=False)
