"""bot/build/build_log.py on real compiler and CMake output: what a report and the job log may show of a
failed build. Every log here is captured by compiling small files in the test (g++, clang++, the
assembler, CMake), in a repo next to an `outside/` directory holding a random marker."""

from __future__ import annotations

import os
import shutil
import subprocess
import uuid
from pathlib import Path

import pytest

from bot.build import build_log, cmake
from bot.report import comment
from bot.report.model import PrReport
from bot.safety import redact
from tests.judging import judged

REPO_CODE = """\
int sb_repo_error() { return sb_undeclared_on_purpose; }
template <class T> int sb_template(T t) { return t.sb_no_such_member; }
int sb_instantiate = sb_template(1);
"""


class Sandbox:
    """A repo (`repo/`, built in `repo/build/` like .sb-build), an `outside/` directory beside it, a marker."""

    def __init__(self, root: Path) -> None:
        self.marker = f"SECRET_{uuid.uuid4().hex}"
        self.repo, self.outside = root / "repo", root / "outside"
        self.build_dir = self.repo / "build"
        for path in (self.repo / "k", self.build_dir, self.outside):
            path.mkdir(parents=True)
        (self.repo / ".git").mkdir()
        (self.outside / "secret.txt").write_text(f"{self.marker}_first x;\n{self.marker}_second y;\n")
        (self.outside / "macro.h").write_text(f"#define SB_FROM_OUTSIDE {self.marker}_macro\n")
        (self.outside / "token").write_text(f"{self.marker}_token\n")
        self.scope = build_log.Scope.of([self.repo], [self.build_dir, self.repo])

    def source(self, name: str, text: str) -> str:
        (self.repo / "k" / name).write_text(text)
        return f"../k/{name}"  # as CMake (and ccache's base dir) pass it: relative to the build directory

    def compile(self, compiler: str, name: str, text: str, *flags: str) -> str:
        """The compiler's output for `text`, compiled in the build directory with a depfile as CMake's is."""
        source = self.source(name, text)
        output = f"k/{name}.o"
        (self.build_dir / "k").mkdir(exist_ok=True)
        cmd = [compiler, *flags, "-MD", "-MT", output, "-MF", f"{output}.d", "-c", source, "-o", output]
        env = {**os.environ, "LC_ALL": "C"}  # ASCII quotes
        proc = subprocess.run(cmd, cwd=self.build_dir, capture_output=True, text=True, env=env)
        assert proc.returncode != 0, "the test's source was meant to fail"
        return proc.stdout + proc.stderr

    def ninja_log(self, compiler: str, name: str, text: str, *flags: str) -> str:
        """The compile as ninja shows a failed edge."""
        output = self.compile(compiler, name, text, *flags)
        return (
            f"[1/2] Building CXX object k/{name}.o\nFAILED: [code=1] k/{name}.o \n{compiler} -c ../k/{name}\n{output}"
        )

    def assert_absent(self, *texts: str) -> None:
        for text in texts:
            assert self.marker.lower() not in text.lower(), text


@pytest.fixture
def box(tmp_path: Path) -> Sandbox:
    return Sandbox(tmp_path)


def joined(lines: list[str]) -> str:
    return "\n".join(lines)


def outside_include_source(box: Sandbox) -> str:
    relative = Path("..") / ".." / "outside" / "macro.h"  # from repo/k/
    return (
        f'#include "{box.outside / "secret.txt"}"\n'  # errors located in the outside file, with its excerpt
        f'#include "{relative.as_posix()}"\n'
        "SB_FROM_OUTSIDE sb_z;\n" + REPO_CODE  # an error located in the outside macro, noted "in expansion" here
    )


def test_gcc_diagnostics_located_outside_are_left_out_with_their_chain(box: Sandbox) -> None:
    log = box.compile("g++", "a.cpp", outside_include_source(box))
    assert box.marker in log  # what GCC printed quotes the outside file ...
    shown = build_log.safe_diagnostics(log, box.scope.inside)
    job_log = build_log.filtered_log(log, box.scope.inside)
    box.assert_absent(joined(shown), joined(job_log))  # ... neither reader repeats it
    # The repo's own errors are kept, their paths repo-relative: the report's lines are diagnostic lines only.
    assert shown == [
        "k/a.cpp:4:30: error: 'sb_undeclared_on_purpose' was not declared in this scope",
        "k/a.cpp:5:52: error: request for member 'sb_no_such_member' in 't', which is of non-class type 'int'",
    ]
    # The job log keeps them whole (excerpt, caret, the template's "required from" chain) and says what it left out.
    assert "    4 | int sb_repo_error() { return sb_undeclared_on_purpose; }" in job_log
    assert any("required from here" in line for line in job_log)
    assert "[4 lines not shown: a message about a file outside the repository]" in job_log


@pytest.mark.skipif(shutil.which("clang++") is None, reason="clang++ is not installed")
def test_clang_diagnostics_located_outside_are_left_out(box: Sandbox) -> None:
    # clang prints excerpts without a gutter and notes "expanded from macro" at the outside definition.
    log = box.compile("clang++", "a.cpp", outside_include_source(box))
    assert box.marker in log
    shown = build_log.safe_diagnostics(log, box.scope.inside)
    box.assert_absent(joined(shown), joined(build_log.filtered_log(log, box.scope.inside)))
    assert "k/a.cpp:4:30: error: use of undeclared identifier 'sb_undeclared_on_purpose'" in shown


def test_a_name_from_an_outside_file_is_caught_by_the_depfile(box: Sandbox) -> None:
    # The include succeeds: GCC names the file's content from a diagnostic located in the repo's own source.
    text = f'struct\n#include "{box.outside / "token"}"\n{{}} sb_value;\nint sb_int = sb_value;\n'
    log = box.ninja_log("g++", "named.cpp", text)
    assert box.marker in joined(build_log.safe_diagnostics(log, box.scope.inside))  # locations alone miss it
    tainted = build_log.outside_reads(box.build_dir, box.scope)
    assert tainted == {"k/named.cpp.o": "k/named.cpp"}
    shown = build_log.safe_diagnostics(log, box.scope.inside, tainted)
    job_log = build_log.filtered_log(log, box.scope.inside, tainted)
    box.assert_absent(joined(shown), joined(job_log))
    assert shown == ["k/named.cpp: its compile read a file outside the repository; its messages are not shown"]
    assert job_log[:3] == [
        "[1/2] Building CXX object k/named.cpp.o",
        "FAILED: [code=1] k/named.cpp.o ",
        "g++ -c ../k/named.cpp",
    ]
    assert "not shown: the compile of k/named.cpp read a file outside the repository" in job_log[3]
    # A compile reading only the repo and the toolchain's headers is not listed.
    box.ninja_log("g++", "plain.cpp", "#include <vector>\n" + REPO_CODE)
    assert "k/plain.cpp.o" not in build_log.outside_reads(box.build_dir, box.scope)


def test_the_assembler_quoting_an_outside_file_is_left_out(box: Sandbox) -> None:
    secret = box.outside / "secret.txt"
    asm = f'asm(".pushsection .rodata\\n.incbin \\"{secret}\\"\\n.popsection\\n.include \\"{secret}\\"");\n'
    log = box.compile("g++", "asm.cpp", asm)
    assert box.marker.lower() in log.lower()  # the assembler quotes the file's lines (lower-cased)
    box.assert_absent(
        joined(build_log.safe_diagnostics(log, box.scope.inside)),
        joined(build_log.filtered_log(log, box.scope.inside)),
    )


def test_a_path_shaped_like_another_line_is_still_read_as_a_location(box: Sandbox) -> None:
    # A PR names its directories: "ld: " makes an outside path start like a linker's line, "a:b" puts a
    # colon in it. Both are read as the locations they are, so what they quote is left out.
    for directory in ("ld: ", "a:b"):
        (box.repo / "k" / directory).mkdir()
    secret = "../../../outside/secret.txt"
    text = (
        f'#include "{"a:b/" + secret}"\n'  # relative to the including file in k/
        f'asm(".include \\"../k/ld: /{secret}\\"");\n'  # relative to the assembler's directory, the build's
    )
    log = box.compile("g++", "spoof.cpp", text)
    assert box.marker in log and "a:b/../../../outside/secret.txt:1:1: error" in log
    box.assert_absent(
        joined(build_log.safe_diagnostics(log, box.scope.inside)),
        joined(build_log.filtered_log(log, box.scope.inside)),
    )
    asm = box.compile("g++", "spoof_asm.cpp", text.split("\n", 1)[1])
    assert box.marker.lower() in asm.lower() and "ld: /../../../outside/secret.txt: Assembler messages:" in asm
    box.assert_absent(joined(build_log.filtered_log(asm, box.scope.inside)))


def test_output_after_a_ninja_line_in_no_known_shape_is_not_shown(box: Sandbox) -> None:
    log = (
        "[1/3] Generating tables\nFAILED: tables.h \npython3 gen.py\nsome tool's line\n  and its detail\n"
        "[2/3] Building CXX object k/a.o\nninja: build stopped: subcommand failed.\n"
    )
    assert build_log.filtered_log(log, box.scope.inside) == [
        "[1/3] Generating tables",
        "FAILED: tables.h ",
        "python3 gen.py",
        "[2 lines not shown: output not in a compiler's or CMake's shape]",
        "[2/3] Building CXX object k/a.o",
        "ninja: build stopped: subcommand failed.",
    ]


def test_a_log_cut_mid_message_never_shows_its_first_lines(box: Sandbox) -> None:
    log = box.compile("g++", "a.cpp", outside_include_source(box))
    cut = log.split("\n", 2)[2]  # the kept tail starts inside the outside file's excerpt
    assert cut.lstrip().startswith(("1 |", "|"))
    job_log = build_log.filtered_log(cut, box.scope.inside)
    box.assert_absent(joined(job_log))
    assert job_log[0].endswith("not shown: the end of a message whose start was not kept]")


def test_git_files_and_pseudo_files_are_not_the_repository(box: Sandbox) -> None:
    (box.repo / ".git" / "config").write_text(f"{box.marker} = extraheader;\n")  # as if a token were checked out
    log = box.compile("g++", "git.cpp", '#include "../.git/config"\nint sb_ok;\n', "-D1SB")
    assert box.marker in log and "<command-line>" in log
    assert build_log.safe_diagnostics(log, box.scope.inside) == []
    box.assert_absent(joined(build_log.filtered_log(log, box.scope.inside)))
    assert box.scope.inside("<command-line>") is None and box.scope.inside(str(box.repo / ".git" / "config")) is None


def test_at_most_five_error_lines_each_capped(box: Sandbox) -> None:
    long_name = "sb_" + "x" * 400
    text = "".join(f"int sb_f{i}() {{ return sb_missing_{i}; }}\n" for i in range(8)) + f"int a = {long_name};\n"
    log = box.compile("g++", "many.cpp", text)
    shown = build_log.safe_diagnostics(log, box.scope.inside)
    assert len(shown) == build_log.MAX_DIAGNOSTICS
    assert all("error:" in line and len(line) <= build_log.DIAGNOSTIC_CHARS for line in shown)
    capped = build_log.safe_diagnostics(log, box.scope.inside, limit=10)
    assert capped[-1].endswith("…") and len(capped[-1]) == build_log.DIAGNOSTIC_CHARS


def test_cmake_errors_inside_are_kept_and_outside_ones_left_out(box: Sandbox) -> None:
    # Not CMake: its parse error quotes the file.
    (box.outside / "secret.cmake").write_text(f"{box.marker}_a {box.marker}_b\n")
    (box.repo / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.16)\nproject(sb NONE)\n"
        'message(SEND_ERROR "the kernel list is\\n  wrong on purpose")\n'  # an error that lets CMake go on
        f'include("{box.outside / "secret.cmake"}")\n'
    )
    proc = subprocess.run(
        [cmake._tool("cmake"), "-S", str(box.repo), "-B", str(box.build_dir)], capture_output=True, text=True
    )
    assert proc.returncode != 0 and box.marker in proc.stderr
    shown = build_log.safe_diagnostics(proc.stderr, box.scope.inside)
    box.assert_absent(joined(shown), joined(build_log.filtered_log(proc.stderr, box.scope.inside)))
    assert shown == ["CMake Error at CMakeLists.txt:3 (message): the kernel list is wrong on purpose"]


def test_the_job_log_is_redacted_and_never_a_workflow_command(box: Sandbox, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(redact, "_installed", redact.Redactor.of(["sb-token-0123456789"]))
    log = box.compile("g++", "cmd.cpp", '#error "::error::forged ##[group]x sb-token-0123456789 100%"\n')
    written: list[str] = []
    build_log.to_job_log(
        "the output of the failed build of x", build_log.filtered_log(log, box.scope.inside), written.append
    )
    assert (
        written[0] == "the output of the failed build of x:"
        and written[-1] == "end of the output of the failed build of x"
    )
    body = "\n".join(written)
    assert "sb-token-0123456789" not in body and "***" in body
    assert "##[" not in body and "100%" in body
    assert all(not line.lstrip().startswith("::") for line in written)
    assert all(line.startswith("  ") for line in written[1:-1])


def test_a_report_shows_at_most_five_error_lines_whatever_the_artifact_holds() -> None:
    error = "build of x failed: k/a.cpp:1:1: error: one\n" + "\n".join(
        f"k/a.cpp:{i}:1: error: {'y' * 500}" for i in range(30)
    )
    rep = PrReport("main", "a" * 40, "b" * 40, (), (), build_error=error)
    block = comment.render(rep, judged(rep)).split("<pre>", 1)[1].split("</pre>", 1)[0]
    assert len(block.split("\n")) == comment.BUILD_MESSAGES
    assert all(len(line) <= comment.BUILD_MESSAGE_LIMIT for line in block.split("\n"))


def test_a_failed_step_names_every_compile_that_read_an_outside_file(box: Sandbox) -> None:
    # named.cpp read the outside file and compiled (in a real run its object was deleted); plain.cpp failed.
    box.ninja_log(
        "g++", "named.cpp", f'struct\n#include "{box.outside / "token"}"\n{{}} sb_value;\nint sb_int = sb_value;\n'
    )
    log = box.ninja_log("g++", "plain.cpp", REPO_CODE)
    tainted = build_log.outside_reads(box.build_dir, box.scope)
    assert tainted == {"k/named.cpp.o": "k/named.cpp"}
    written: list[str] = []
    error = cmake.failure("build of x", (log, ""), box.scope, tainted, written.append)
    assert (
        error.message
        == "build of x failed: k/plain.cpp:1:30: error: 'sb_undeclared_on_purpose' was not declared in this scope"
    )
    assert error.detail.splitlines()[-1] == "k/named.cpp: its compile read a file outside the repository"
    assert written[0] == "the output of the failed build of x:"
    box.assert_absent(error.message, error.detail, *written)
