"""A PR whose kernel makes the compiler read a file outside the repository (an absolute or `../`
include, an assembler `.incbin`/`.include`): the PR pipeline still names the failing step, and not
one line of that file reaches any output: stdout, stderr (the job log), the report's markdown and
JSON, or any file written outside the build directories.

The outside file holds a random marker, written so that GCC both errors inside it (a diagnostic
located there, with its excerpt) and, through a second file of one identifier, names it from a
diagnostic located in the PR's own kernel (a struct named by the outside file)."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.errors import ExitCode
from tests.conftest import REPO_ROOT
from tests.scenario_repo import clone_of, commit_all

KERNEL = Path("kernels") / "portable" / "op_relu.cpp"
BUILD_DIRS = (".sb-build", "bundled-runtime")  # object files may hold the bytes; they never reach a report


def _outside(tmp_path: Path, marker: str) -> Path:
    outside = tmp_path / "outside"
    outside.mkdir()
    # C++ that fails to compile inside this file: GCC quotes its lines (diagnostic and excerpt).
    (outside / "secret.txt").write_text(f"{marker}_first x;\n{marker}_second y;\n")
    # One identifier, like a token file: it compiles as a name, which a diagnostic in the kernel then quotes.
    (outside / "token").write_text(f"{marker}_token\n")
    return outside


def _attack(kind: str, kernel: Path, outside: Path) -> str:
    secret, token = outside / "secret.txt", outside / "token"
    if kind == "absolute include":
        return (
            f'#include "{secret}"\n'
            f'struct\n#include "{token}"\n{{}} sb_named_by_the_outside_file;\n'
            "int sb_conversion = sb_named_by_the_outside_file;\n"
        )
    if kind == "include that compiles":
        # A function named by the file: it would reach the size report's symbols. The build refuses it.
        return f'void\n#include "{token}"\n() {{}}\n'
    if kind == "relative include":
        return f'#include "{os.path.relpath(secret, kernel.parent)}"\n'
    assert kind == "assembler include"
    # .incbin copies the file into the object; .include makes the assembler parse it and quote it in its error.
    return f'asm(".pushsection .rodata\\n.incbin \\"{secret}\\"\\n.popsection\\n.include \\"{secret}\\"");\n'


def _files_outside_builds(root: Path) -> Iterator[Path]:
    for directory, subdirs, files in os.walk(root):
        subdirs[:] = [d for d in subdirs if d not in BUILD_DIRS]
        for name in files:
            path = Path(directory) / name
            if path.is_file() and not path.is_symlink():
                yield path


@pytest.mark.parametrize("kind", ["absolute include", "relative include", "assembler include", "include that compiles"])
def test_a_file_outside_the_repo_never_reaches_any_output(base_repo: Path, tmp_path: Path, kind: str) -> None:
    marker = f"SECRET_{uuid.uuid4().hex}"
    outside = _outside(tmp_path, marker)
    repo = clone_of(base_repo, tmp_path / "repo")
    kernel = repo / KERNEL
    kernel.write_text(kernel.read_text() + "\n" + _attack(kind, kernel, outside))
    commit_all(repo, f"relu: {kind}")
    cache = tmp_path / "cache"
    report_md = tmp_path / "report" / "selective-build-report.md"
    # The worst case: nothing confines the compiler (SB_SANDBOX=limits), so it does read the outside file.
    # (In the namespaces sandbox the file is not even there to read: bot/safety/sandbox.py, tests/test_containment.py.)
    env = {**os.environ, "SB_CACHE_DIR": str(cache), "PYTHONPATH": str(REPO_ROOT), "SB_SANDBOX": "limits"}
    runs = [
        subprocess.run(
            [sys.executable, "-m", "bot", "pr", "--base", "main~1", "--output", str(report_md)],
            cwd=repo,
            env=env,
            capture_output=True,
            text=True,
            timeout=1800,
        )
        for _ in range(2)  # the second run finds the objects of the first: it must refuse them as well
    ]
    assert runs[0].stderr.splitlines()[-1] == runs[1].stderr.splitlines()[-1]
    proc = runs[1]

    assert proc.returncode == ExitCode.BUILD, proc.stderr[-3000:]
    markdown = report_md.read_text()
    artifact = report_md.with_suffix(".json").read_text()
    # Case-blind: the assembler quotes a line lower-cased.
    outputs = [("report", markdown), ("json", artifact)]
    outputs += [
        (f"{stream} of run {i}", getattr(run, stream)) for i, run in enumerate(runs) for stream in ("stdout", "stderr")
    ]
    for name, output in outputs:
        assert marker.lower() not in output.lower(), f"the outside file's marker is in {name}"
    written = [*_files_outside_builds(repo), *_files_outside_builds(cache), *_files_outside_builds(report_md.parent)]
    assert written
    for path in written:
        assert marker.lower().encode() not in path.read_bytes().lower(), f"the outside file's marker is in {path}"

    # The report names the failing step; the job log has the build's output, minus what was left out.
    error_line = proc.stderr.strip().splitlines()[-1]
    assert error_line.startswith("error: build of tracer failed"), error_line
    assert "Build failures" in markdown and "build of tracer failed" in markdown
    if kind == "include that compiles":
        # The compile succeeded; its depfile names the outside file: the step fails, the kernel named.
        assert error_line.startswith(f"error: build of tracer failed: {KERNEL.as_posix()}: its compile read a file")
        assert "the compiles of the build of tracer that read files outside the repository:" in proc.stderr
        return
    assert "the output of the failed build of tracer:" in proc.stderr
    assert "FAILED: " in proc.stderr  # the job log still says which edge failed
    if kind == "assembler include":
        # The assembler's error is located in the outside file: left out of the report and the job log.
        assert "(no message located in the repository: see the job log)" in error_line
        assert "not shown: a message about a file outside the repository" in proc.stderr
    else:
        # The compile read a file outside the repo (its depfile says so): its messages are left out, the kernel named.
        reason = "kernels/portable/op_relu.cpp: its compile read a file outside the repository"
        assert reason in error_line
        assert reason.replace("_", "\\_").replace(".", "\\.").replace(":", "\\:") in markdown
        left_out = "not shown: the compile of kernels/portable/op_relu.cpp read a file outside the repository"
        assert left_out in proc.stderr
