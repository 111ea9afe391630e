"""No secret leaves: PR code runs without the token (allow-listed environment, the
bot's own environment and memory closed to it), within time and memory
limits, and whatever it prints passes one redaction step before anything is
written, printed or posted.

The hostile PRs are real commits in a temporary repo, run through the Action
(`python -m bot action`) the way the runner runs it, with GitHub played by
the stateful fake."""

from __future__ import annotations

import base64
import os
import stat
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import quote

import pytest

from bot.build import cmake
from bot.build.runner import run_model
from bot.errors import BotError, ExitCode
from bot.safety import redact, sandbox
from bot.safety.limits import DEFAULT_LIMITS, MIB, Limits
from tests.conftest import REPO_ROOT, ZOO_DIR
from tests.github_fake import FakeGitHub
from tests.scenario_repo import clone_of, commit_all, git
from tests.test_action_contract import TOKEN, opened_event, run_action, runner_env

SECRETS = {
    "INPUT_GITHUB-TOKEN": TOKEN,
    "GITHUB_TOKEN": "ghs_workflow_token_0123456789abcdefghij",
    "ACTIONS_RUNTIME_TOKEN": "ghs_runtime_token_9876543210zyxwvutsrq",
    "ACTIONS_ID_TOKEN_REQUEST_TOKEN": "ghs_oidc_request_token_abcdefabcdef01",
    "DEPLOY_KEY": "ghs_deploy_key_value_5555555555555555",
}
EXTRAHEADER = base64.b64encode(f"x-access-token:{TOKEN}".encode()).decode()

# What a hostile build runs: everything it can find of the bot's secrets.
LEAK_SCRIPT = r"""
import os, re, sys
pattern = re.compile(rb"gh[opsu]_[A-Za-z0-9_]{30,}")  # the shape of a GitHub token
found, memory = set(), {"read": 0, "closed": 0}
def scan(data):
    found.update(m.decode() for m in pattern.findall(data))
def scan_memory(pid):
    try:
        with open(f"/proc/{pid}/maps") as maps, open(f"/proc/{pid}/mem", "rb") as mem:
            for line in maps:
                span, perms = line.split()[:2]
                if perms.startswith("rw"):
                    start, end = (int(x, 16) for x in span.split("-"))
                    try:
                        mem.seek(start)
                        scan(mem.read(end - start))
                    except (OSError, ValueError, OverflowError):
                        pass
        memory["read"] += 1
    except OSError:
        memory["closed"] += 1
scan("\0".join(f"{k}={v}" for k, v in os.environ.items()).encode())
pid = os.getpid()
while True:  # every ancestor up to the test runner: the bot is one of them
    with open(f"/proc/{pid}/status") as status:
        pid = int(re.search(r"PPid:\s+(\d+)", status.read()).group(1))
    if pid <= 1:
        break
    with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
        if any(arg == b"pytest" or arg.endswith(b"/pytest") for arg in cmdline.read().split(b"\0")[:3]):
            break
    try:
        with open(f"/proc/{pid}/environ", "rb") as environ:
            scan(environ.read())
    except OSError:
        pass
    scan_memory(pid)
config = os.path.join(sys.argv[1], "..", ".git", "config")
header = [l.strip() for l in open(config) if "extraheader" in l] if os.path.exists(config) else []
print("LEAKCHECK names", " ".join(sorted(os.environ)))
print("LEAKCHECK found", " ".join(sorted(found)) or "none", "memory", memory)
print("LEAKCHECK git", " ".join(header))
"""

CONFIGURE_LEAK = """
execute_process(COMMAND "${Python3_EXECUTABLE}" "${CMAKE_CURRENT_SOURCE_DIR}/leak.py" "${CMAKE_CURRENT_SOURCE_DIR}"
                OUTPUT_VARIABLE leak ERROR_VARIABLE leak_error)
execute_process(COMMAND env OUTPUT_VARIABLE env_dump)
message(STATUS "${env_dump}")
message(FATAL_ERROR "${leak}${leak_error} token=[$ENV{GITHUB_TOKEN}$ENV{INPUT_GITHUB-TOKEN}]")
"""

# The compiler sees only what CMake hands it: here, whatever tokens its environment held.
COMPILE_FLAGS_LEAK = """
add_compile_definitions("SB_LEAK=\\"[$ENV{GITHUB_TOKEN}|$ENV{INPUT_GITHUB-TOKEN}|$ENV{ACTIONS_RUNTIME_TOKEN}]\\"")
"""
COMPILE_LEAK = """
#pragma message("LEAKCHECK " "found=" SB_LEAK)
#error "LEAKCHECK the kernel refuses to build"
"""

# A kernel whose static initializer runs in every runtime and tracer built with it.
RUNTIME_LEAK = r"""
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unistd.h>

extern char** environ;

namespace {

void scan_file(const char* path, char* found, size_t cap) {
  FILE* file = std::fopen(path, "rb");
  if (file == nullptr) return;
  static char data[1 << 16];
  size_t n = std::fread(data, 1, sizeof(data) - 1, file);
  std::fclose(file);
  data[n] = 0;
  for (size_t i = 0; i + 4 < n; ++i) {
    if (data[i] != 'g' || data[i + 1] != 'h' || data[i + 3] != '_') continue;
    size_t end = i + 4;
    while (end < n && (std::isalnum(static_cast<unsigned char>(data[end])) || data[end] == '_')) ++end;
    if (end - i >= 34) {  // the shape of a GitHub token
      size_t used = std::strlen(found);
      std::snprintf(found + used, cap - used, "%.*s,", static_cast<int>(end - i), data + i);
    }
  }
}

int leak_check() {
  char found[2048] = "";
  scan_file("/proc/self/environ", found, sizeof(found));
  char parent[64];
  std::snprintf(parent, sizeof(parent), "/proc/%d/environ", static_cast<int>(getppid()));
  scan_file(parent, found, sizeof(found));
  char names[1024] = "";
  for (char** entry = environ; *entry != nullptr; ++entry) {
    size_t used = std::strlen(names);
    const char* eq = std::strchr(*entry, '=');
    int length = eq == nullptr ? 0 : static_cast<int>(eq - *entry);
    std::snprintf(names + used, sizeof(names) - used, "%.*s ", length, *entry);
  }
  std::fprintf(stderr, "error: LEAKCHECK found=[%s] names=%s\n", found, names);
  std::_Exit(3);
}

[[maybe_unused]] const int leak_checked = leak_check();

}  // namespace
"""


def everything_published(tmp_path: Path, proc: subprocess.CompletedProcess[str], fake: FakeGitHub) -> dict[str, str]:
    """Every text the run produced, by where it went."""
    texts = {"stdout": proc.stdout, "stderr": proc.stderr, "api": repr(fake.payloads)}
    for name in ("report.md", "report.json", "report.patch", "github_output", "step_summary"):
        path = tmp_path / name
        texts[name] = path.read_text() if path.exists() else ""
    return texts


def assert_no_secret(texts: dict[str, str]) -> None:
    forms = {value for value in SECRETS.values()}
    forms |= {EXTRAHEADER, quote(TOKEN, safe=""), *redact._base64_cores(TOKEN.encode())}
    for where, text in texts.items():
        for form in forms:
            allowed = 1 if (where == "stdout" and form == TOKEN) else 0  # the ::add-mask:: line itself
            assert text.count(form) == allowed, f"{form[:12]}... appears in {where}"


def make_configure_leak(repo: Path) -> None:
    (repo / "native" / "leak.py").write_text(LEAK_SCRIPT)
    with (repo / "native" / "CMakeLists.txt").open("a") as cmake:
        cmake.write(CONFIGURE_LEAK)


def make_compile_leak(repo: Path) -> None:
    with (repo / "native" / "CMakeLists.txt").open("a") as cmake:
        cmake.write(COMPILE_FLAGS_LEAK)
    kernel = repo / "kernels" / "portable" / "op_relu.cpp"
    kernel.write_text(COMPILE_LEAK + kernel.read_text())


def make_runtime_leak(repo: Path) -> None:
    kernel = repo / "kernels" / "portable" / "op_relu.cpp"
    kernel.write_text(kernel.read_text() + RUNTIME_LEAK)


@pytest.mark.parametrize(
    ("make_pr", "inputs"),
    [
        pytest.param(make_configure_leak, {}, id="cmake-configure-dumps-env-and-proc"),
        pytest.param(make_compile_leak, {}, id="kernel-prints-tokens-at-compile-time"),
        pytest.param(make_runtime_leak, {"targets": "seq"}, id="kernel-static-initializer-at-runtime"),
    ],
)
def test_a_hostile_pr_never_sees_or_publishes_a_secret(
    make_pr, inputs: dict[str, str], base_repo: Path, tmp_path: Path
) -> None:
    repo = clone_of(base_repo, tmp_path / "workspace")
    base_sha = git(repo, "rev-parse", "HEAD").strip()
    # What actions/checkout leaves behind with persist-credentials: true.
    git(repo, "config", "http.https://github.com/.extraheader", f"AUTHORIZATION: basic {EXTRAHEADER}")
    make_pr(repo)
    head_sha = commit_all(repo, "hostile")

    fake = FakeGitHub().start()
    try:
        event = opened_event(base_sha, head_sha, fake)
        env = runner_env(tmp_path, repo, event, fake, {"post": "true", "report": str(tmp_path / "report"), **inputs})
        env.update(SECRETS)
        proc = run_action(env, repo)
    finally:
        fake.stop()

    assert "Traceback" not in proc.stderr, proc.stderr
    # A failed build or trace fails the job.
    assert proc.returncode in (ExitCode.FINDINGS, ExitCode.BUILD), proc.stdout + proc.stderr
    texts = everything_published(tmp_path, proc, fake)
    assert_no_secret(texts)
    assert len(fake.comments) == 1  # the report was posted, redacted
    shown = (texts["report.md"] + texts["stdout"]).replace("\\", "")  # markdown escapes off
    assert "LEAKCHECK" in shown, "the hostile code did not run, or its output was lost"
    for line in shown.splitlines():
        if "LEAKCHECK names" in line or "names=" in line:
            assert not any(p in line for p in ("GITHUB_", "INPUT_", "ACTIONS_", "RUNNER_", "DEPLOY_KEY")), line
        if "LEAKCHECK found" in line:
            assert any(nothing in line for nothing in ("LEAKCHECK found none", "found=[]", "found=[||]")), line
    for name in SECRETS:
        assert f"{name}=" not in shown


# --- the redaction step alone ------------------------------------------------------------------


def test_redaction_removes_every_form_a_secret_arrives_in() -> None:
    token = "ghp_R3dact10nTest_abcdefghijklmnopqrstu"
    redactor = redact.Redactor.from_env({"INPUT_GITHUB-TOKEN": token, "HOME": "/home/runner", "CI": "true"})
    assert redactor.secrets == {token}
    header = base64.b64encode(f"x-access-token:{token}".encode()).decode()
    arrivals = [
        f"plain {token} in a log",
        f"AUTHORIZATION: basic {header}",  # git's extraheader
        "any prefix: " + base64.b64encode(f"{'x' * 7}:{token}!".encode()).decode(),  # base64 at another alignment
        base64.urlsafe_b64encode(f"u:{token}".encode()).decode(),
        f"https://example.com/?t={quote(token, safe='')}",
        f"https://x-access-token:{token}@github.com/org/repo.git",
        token.encode().hex(),
        '{"token": "' + token + '"}',
    ]
    for text in arrivals:
        cleaned = redactor.text(text)
        assert token not in cleaned and redact.REPLACEMENT in cleaned, text
        assert header not in cleaned
        for core in redact._base64_cores(token.encode()):
            assert core not in cleaned
    nested = redactor.data({"a": [f"x{token}y", {token: 1}], "n": 3})
    assert token not in repr(nested) and nested["n"] == 3
    # Ordinary text and short values are untouched.
    assert redactor.text("CI true /home/runner selective build") == "CI true /home/runner selective build"


@pytest.mark.parametrize(
    ("name", "secret"),
    [
        ("GITHUB_TOKEN", True),
        ("INPUT_GITHUB-TOKEN", True),
        ("ACTIONS_ID_TOKEN_REQUEST_TOKEN", True),
        ("NPM_AUTH", True),
        ("AWS_SECRET_ACCESS_KEY", True),
        ("DB_PASSWORD", True),
        ("MY_APITOKEN", True),
        ("PATH", False),
        ("HOME", False),
        ("GIT_AUTHOR_NAME", False),
        ("PWD", False),
    ],
)
def test_secret_names(name: str, secret: bool) -> None:
    assert redact.looks_secret(name) is secret


def test_children_get_an_allow_listed_environment() -> None:
    source = {
        "PATH": "/usr/bin:/bin",
        "HOME": "/home/runner",
        "LANG": "C.UTF-8",
        "LC_ALL": "C",
        "CCACHE_DIR": "/cache",
        "CXXFLAGS": "-O2",
        **SECRETS,
        "RUNNER_TEMP": "/tmp/runner",
        "GITHUB_EVENT_PATH": "/github/event.json",
        "INPUT_BASE": "main",
        "CCACHE_SECRET": "ghs_named_like_a_secret_0000000000",
        "TMPDIR": f"/tmp/{TOKEN}",  # an allowed name carrying a secret value
    }
    with_secrets = redact.Redactor.from_env(source)
    original, redact._installed = redact._installed, with_secrets
    try:
        env = sandbox.child_env(source)
    finally:
        redact._installed = original
    assert env == {
        "PATH": "/usr/bin:/bin",
        "HOME": "/home/runner",
        "LANG": "C.UTF-8",
        "LC_ALL": "C",
        "CCACHE_DIR": "/cache",
        "CXXFLAGS": "-O2",
    }


# --- time, memory and output limits of PR code ---------------------------------------------------


def hostile_runner(tmp_path: Path, body: str) -> Path:
    """An executable standing in for a runtime built from hostile kernels."""
    script = tmp_path / "executor_runner"
    script.write_text("#!/bin/sh\n" + body + "\n")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return script


@pytest.mark.parametrize(
    "body",
    [
        pytest.param("sleep 600", id="sleeps"),
        pytest.param("while :; do :; done", id="spins"),
        pytest.param("trap '' TERM; (trap '' TERM; sleep 600) & sleep 600", id="ignores-sigterm-and-forks"),
    ],
)
def test_a_runtime_past_its_time_limit_is_killed_promptly(tmp_path: Path, body: str) -> None:
    limits = Limits(run_seconds=1.0)
    start = time.monotonic()
    with pytest.raises(BotError) as failed:
        run_model(hostile_runner(tmp_path, body), ZOO_DIR / "gru.pte", [], tmp_path / "out", limits=limits)
    assert time.monotonic() - start < 1.0 + sandbox.GRACE_SECONDS + 2
    assert failed.value.message == "model gru.pte exceeded 1 s"
    assert failed.value.exit_code == ExitCode.RUNTIME


def test_a_runtime_past_its_memory_limit_fails_in_one_line(tmp_path: Path) -> None:
    limits = Limits(run_memory_bytes=256 * MIB)
    grab = "exec python3 -c 'chunks = [bytearray(64 << 20) for _ in range(64)]'"  # 4 GiB
    with pytest.raises(BotError) as failed:
        run_model(hostile_runner(tmp_path, grab), ZOO_DIR / "gru.pte", [], tmp_path / "out", limits=limits)
    assert failed.value.exit_code == ExitCode.RUNTIME
    assert "\n" not in failed.value.message and failed.value.message.startswith("gru.pte: ")
    assert "MemoryError" in failed.value.message

    crash = "exec python3 -c 'import ctypes; ctypes.string_at(0)'"  # a crash under the limit: named, one line
    with pytest.raises(BotError) as crashed:
        run_model(hostile_runner(tmp_path, crash), ZOO_DIR / "gru.pte", [], tmp_path / "out", limits=limits)
    assert crashed.value.message == "model gru.pte was killed by SIGSEGV (under its 256 MiB memory limit)"


def test_a_runtime_flooding_its_output_is_kept_to_the_log_limit(tmp_path: Path) -> None:
    limits = Limits(log_bytes=4096)
    flood = "yes 'error: spam' | head -n 10000000 >&2; echo 'error: the last line' >&2; exit 1"
    with pytest.raises(BotError) as failed:
        run_model(hostile_runner(tmp_path, flood), ZOO_DIR / "gru.pte", [], tmp_path / "out", limits=limits)
    assert failed.value.message == "gru.pte: the last line"
    kept = sandbox.run_program([hostile_runner(tmp_path, "yes | head -c 50000000")], what="flood", limits=limits)
    assert len(kept.stdout) == limits.log_bytes


def test_a_build_past_its_time_limit_names_the_step(tmp_path: Path) -> None:
    limits = Limits(build_seconds=0.2)
    with pytest.raises(BotError) as failed:
        cmake.build(cmake.ALL_OPS, build_dir=tmp_path / "build", limits=limits)
    assert failed.value.message == "CMake configure of all-ops exceeded 0.2 s"
    assert failed.value.exit_code == ExitCode.BUILD


def test_the_bots_environment_and_memory_are_closed_to_children(tmp_path: Path) -> None:
    """In a fresh process, as the Action runs: after `install`, a sandboxed child finds
    the secrets neither in its environment, nor in the bot's /proc environ, nor in the
    bot's memory (which holds them), even when everything runs as root."""
    (tmp_path / "leak.py").write_text(LEAK_SCRIPT)
    tmp_path.chmod(0o755)  # pytest makes it 0700: the sandbox uid must read the script
    program = (
        "import os, sys\n"
        "from pathlib import Path\n"
        "from bot.safety import redact, sandbox\n"
        "from bot.errors import ExitCode\n"
        "redact.install(os.environ)\n"
        "held = dict(os.environ)  # the bot keeps its inputs in memory\n"
        "out = sandbox.run([sys.executable, sys.argv[1], sys.argv[2]], what='leak', exit_code=ExitCode.RUNTIME,"
        " seconds=300, memory_bytes=None, view=sandbox.View(reads=(Path(sys.argv[2]),)))\n"
        "print(out.stdout, out.stderr)\n"
    )
    env = {k: v for k, v in os.environ.items() if not redact.looks_secret(k)}
    env.update(SECRETS, PYTHONPATH=str(REPO_ROOT))
    command = [sys.executable, "-c", program, str(tmp_path / "leak.py"), str(tmp_path)]
    proc = subprocess.run(command, env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert "LEAKCHECK found none" in proc.stdout, proc.stdout
    assert "'read': 0" in proc.stdout, proc.stdout  # the bot's memory: not opened (nor, in a PID namespace, seen)
    assert not any(value in proc.stdout for value in SECRETS.values())


def test_limits_default_to_the_shared_ones() -> None:
    assert sandbox.run_program(["true"], what="true", limits=DEFAULT_LIMITS).returncode == 0
