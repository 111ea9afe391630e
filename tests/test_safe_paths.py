"""Paths confined to the repo and bounded reads of regular files only: symlinks to
secrets and devices, FIFOs, directories and oversized files are refused with one
line that names the path and never shows what the file holds."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot import config
from bot.errors import BotError
from bot.safety.limits import MIB
from bot.safety.safe_files import (
    MissingFileError,
    UnsafeFileError,
    check_regular_file,
    inside_repo,
    read_bytes,
    read_text,
)
from bot.selection import kernel_library, oplist, pte, regenerate
from tests.conftest import REPO_ROOT, ZOO_DIR

SECRET = "SB-SECRET-7f3a9c"  # planted in files outside the repo; must never appear in any message


@contextlib.contextmanager
def must_finish(seconds: int) -> Iterator[None]:
    """Fails the test instead of hanging it (a FIFO opened for reading blocks forever)."""

    def hung(signum: int, frame: object) -> None:
        raise TimeoutError(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, hung)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    return root


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    secrets = tmp_path / "outside"
    secrets.mkdir()
    (secrets / "shadow").write_text(f"root:{SECRET}:19000:0:99999:7:::\n")
    return secrets


def exactly(message: str) -> str:
    return f"^{re.escape(message)}$"


def refused(call: object, *args: object, **kwargs: object) -> str:
    with pytest.raises(UnsafeFileError) as caught:
        call(*args, **kwargs)  # type: ignore[operator]
    message = str(caught.value)
    assert "\n" not in message and SECRET not in message
    return message


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("/etc/passwd", "target.yaml: /etc/passwd must be relative to the repository root"),
        ("../outside/shadow", "target.yaml: ../outside/shadow is outside the repository"),
        ("apps/../../outside/shadow", "is outside the repository"),
    ],
)
def test_absolute_and_parent_paths_are_refused(repo: Path, outside: Path, path: str, message: str) -> None:
    assert message in refused(inside_repo, repo, path, "target.yaml")


def test_symlinks_out_of_the_repo_are_refused_wherever_they_are(repo: Path, outside: Path) -> None:
    (repo / "shadow.yaml").symlink_to(outside / "shadow")
    (repo / "apps").symlink_to(outside)
    (repo / "environ.yaml").symlink_to("/proc/self/environ")
    (repo / "dangling.yaml").symlink_to(outside / "not-yet")
    for path in ("shadow.yaml", "apps/shadow", "apps/new/file.yaml", "environ.yaml", "dangling.yaml"):
        message = refused(inside_repo, repo, path, "yaml")
        assert message == f"yaml: {path} leads outside the repository through a symlink"


def test_paths_that_stay_inside_are_returned_resolved(repo: Path) -> None:
    (repo / "real").mkdir()
    (repo / "real" / "x.yaml").write_text("{}\n")
    (repo / "alias").symlink_to("real")
    assert inside_repo(repo, "alias/x.yaml", "yaml") == (repo / "real" / "x.yaml").resolve()
    assert inside_repo(repo, "not/yet/written.yaml", "yaml") == (repo / "not/yet/written.yaml").resolve()
    assert inside_repo(repo, "real/../real/x.yaml", "yaml") == (repo / "real" / "x.yaml").resolve()


def test_a_fifo_is_refused_without_blocking(repo: Path) -> None:
    fifo = repo / "selected_operators.yaml"
    os.mkfifo(fifo)
    with must_finish(10):
        assert refused(read_bytes, fifo, MIB, "yaml") == f"{fifo}: not a regular file (a FIFO)"
        assert "not a regular file (a FIFO)" in refused(check_regular_file, fifo, MIB, "a model")


def test_devices_directories_and_sockets_are_refused(repo: Path) -> None:
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(repo / "sock"))
        cases = {
            Path("/dev/zero"): "a character device",
            repo: "a directory",
            repo / "sock": "a socket",
        }
        for path, kind in cases.items():
            with must_finish(10):
                assert refused(read_bytes, path, MIB, "yaml") == f"{path}: not a regular file ({kind})"
                assert kind in refused(check_regular_file, path, MIB, "a model")


def test_size_limits_are_checked_before_reading(repo: Path) -> None:
    big = repo / "big.yaml"
    with big.open("wb") as handle:
        handle.truncate(210 * MIB)  # sparse: refusing must not read it
    assert refused(read_bytes, big, 8 * MIB, "yaml") == f"{big}: 210 MB, over the limit of 8 MB for yaml"
    assert "210 MB, over the limit of 8 MB for a model" in refused(check_regular_file, big, 8 * MIB, "a model")
    just_over = repo / "just_over.yaml"
    just_over.write_bytes(b"x" * (MIB + 1))
    assert "1,048,577 bytes, over the limit of 1,048,576 bytes" in refused(read_bytes, just_over, MIB, "yaml")


def test_a_file_that_reports_no_size_is_still_read_no_further_than_the_limit() -> None:
    # /proc files report size 0; the environment here is longer than 16 bytes.
    os.environ["SB_TEST_MARKER"] = SECRET
    message = refused(read_bytes, Path("/proc/self/environ"), 16, "yaml")
    assert message == "/proc/self/environ: over the limit of 16 bytes for yaml"


def test_missing_files_are_told_apart(repo: Path) -> None:
    with pytest.raises(MissingFileError, match=re.escape("absent.yaml: no such file")):
        read_bytes(repo / "absent.yaml", MIB, "yaml")
    (repo / "loop").symlink_to("loop")
    assert "cannot read" in refused(read_bytes, repo / "loop", MIB, "yaml")
    (repo / "latin1.yaml").write_bytes(b"caf\xe9\n")
    assert refused(read_text, repo / "latin1.yaml", MIB, "yaml") == f"{repo / 'latin1.yaml'}: not UTF-8 text"


def test_a_regular_file_within_the_limit_is_read_whole() -> None:
    model = ZOO_DIR / "gru.pte"
    assert read_bytes(model, model.stat().st_size, "a model") == model.read_bytes()
    assert check_regular_file(model, model.stat().st_size, "a model") == model


def test_pte_loader_refuses_devices_and_oversized_programs(repo: Path) -> None:
    with pytest.raises(pte.PteError, match=exactly("/dev/zero: not a regular file (a character device)")):
        pte.load(Path("/dev/zero"))
    with pytest.raises(pte.PteError, match=re.escape("not a regular file (a directory)")):
        pte.load(repo)


def test_kernel_library_reads_are_bounded(repo: Path) -> None:
    (repo / "functions.yaml").symlink_to("/dev/zero")
    with pytest.raises(kernel_library.KernelLibraryError, match=re.escape("not a regular file (a character device)")):
        kernel_library.load_libraries([repo / "functions.yaml"])
    os.mkfifo(repo / "op_hang.cpp")
    hang = re.escape("op_hang.cpp: not a regular file (a FIFO)")
    with must_finish(10), pytest.raises(kernel_library.KernelLibraryError, match=hang):
        kernel_library.find_definitions([repo / "op_hang.cpp"])


def test_kernel_sources_leading_out_of_the_repo_are_not_read(repo: Path, outside: Path) -> None:
    (repo / "kernels").mkdir()
    (repo / "kernels" / "op_secret.cpp").symlink_to(outside / "shadow")
    with pytest.raises(kernel_library.KernelLibraryError) as caught:
        kernel_library.find_definitions([repo / "kernels" / "op_secret.cpp"], repo)
    assert str(caught.value) == "kernel source: kernels/op_secret.cpp leads outside the repository through a symlink"


def test_oplist_load_refuses_what_it_cannot_read_safely(repo: Path) -> None:
    os.mkfifo(repo / "fifo.yaml")
    with must_finish(10), pytest.raises(oplist.OplistError, match=re.escape("fifo.yaml: not a regular file (a FIFO)")):
        oplist.load(repo / "fifo.yaml")
    checked_in = REPO_ROOT / "models" / "oplist" / "gru.yaml"
    size = checked_in.stat().st_size
    over = re.escape(f"{size:,} bytes, over the limit of {size - 1:,} bytes for yaml")
    with pytest.raises(oplist.OplistError, match=over):
        oplist.load(checked_in, limit_bytes=size - 1)
    assert oplist.load(checked_in, limit_bytes=size).operators


CONFIG = """\
oplist_dir: oplist
targets:
  app:
    yaml: apps/app/selected_operators.yaml
    models: [models/gru.pte]
"""


def model_repo(root: Path) -> config.Config:
    """A repo with one zoo model and fresh yamls on disk, its config loaded."""
    (root / "models").mkdir()
    for name in ("gru.pte", "gru.input0.npy"):
        shutil.copy(ZOO_DIR / name, root / "models" / name)
    (root / ".selective-build.yml").write_text(CONFIG)
    return config.load(root)


def regenerated_from_zoo(cfg: config.Config) -> regenerate.Regenerated:
    model = cfg.models()[0]
    selection = oplist.from_program(pte.load(cfg.root / model.path), model.path.as_posix())
    return regenerate.Regenerated({cfg.per_model_yaml(model): selection}, {"app": selection})


def test_stale_check_never_shows_a_yaml_that_became_a_symlink_to_the_environment(repo: Path) -> None:
    cfg = model_repo(repo)
    regenerated = regenerated_from_zoo(cfg)
    regenerate.write(cfg, regenerated)
    assert regenerate.stale_files(cfg, regenerated) == {}
    os.environ["SB_TEST_MARKER"] = SECRET
    checked_in = repo / "apps" / "app" / "selected_operators.yaml"
    checked_in.unlink()
    checked_in.symlink_to("/proc/self/environ")  # after the config check: the read itself must refuse
    with pytest.raises(BotError) as caught:
        regenerate.stale_files(cfg, regenerated)
    assert caught.value.message == (
        "regenerated yaml: apps/app/selected_operators.yaml leads outside the repository through a symlink"
    )


def test_stale_check_refuses_a_fifo_in_place_of_a_yaml(repo: Path) -> None:
    cfg = model_repo(repo)
    regenerated = regenerated_from_zoo(cfg)
    (repo / "oplist").mkdir()
    os.mkfifo(repo / "oplist" / "gru.yaml")
    with must_finish(10), pytest.raises(BotError, match=exactly("oplist/gru.yaml: not a regular file (a FIFO)")):
        regenerate.stale_files(cfg, regenerated)


def test_regenerate_writes_nothing_through_a_directory_that_became_a_symlink(repo: Path, outside: Path) -> None:
    cfg = model_repo(repo)
    regenerated = regenerated_from_zoo(cfg)
    (repo / "apps").symlink_to(outside)  # after the config check, before the write
    before = sorted(outside.rglob("*"))
    with pytest.raises(BotError, match=re.escape("apps/app/selected_operators.yaml leads outside the repository")):
        regenerate.write(cfg, regenerated)
    assert sorted(outside.rglob("*")) == before


def test_a_checked_in_yaml_that_is_not_utf8_is_simply_stale(repo: Path) -> None:
    cfg = model_repo(repo)
    regenerated = regenerated_from_zoo(cfg)
    regenerate.write(cfg, regenerated)
    (repo / "oplist" / "gru.yaml").write_bytes(b"\xff\xfe garbage\n")
    assert list(regenerate.stale_files(cfg, regenerated)) == [Path("oplist/gru.yaml")]
    assert regenerate.write(cfg, regenerated) == [Path("oplist/gru.yaml")]
