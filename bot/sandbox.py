"""The one way the bot runs PR-controlled code: CMake and the compiler on the PR's
sources, the runtime and tracer built from them, and the binutils that read
what they produced.

Each child gets
- an allow-listed environment: what toolchains need (PATH, HOME, locale,
  TMPDIR, ccache and compiler variables...), never a token, nothing of the
  runner (GITHUB_*, INPUT_*, ACTIONS_*, RUNNER_*) and nothing named like a
  secret;
- a wall-clock limit: the whole process group is killed when it is over;
- an address-space limit (RLIMIT_AS): `Limits.run_memory_bytes` for the
  runtime, the tracer and binutils; BUILD_MEMORY_BYTES per process for CMake
  and the compilers, which legitimately need more, but not the machine;
  a program built for another architecture runs under qemu-user with its
  guest address space reserved at that same limit (`emulated`);
- no core dumps, no privilege gain through set-uid programs
  (PR_SET_NO_NEW_PRIVS) and no CAP_SYS_PTRACE, so it cannot read the bot's
  memory even when the job runs as root;
- bounded output: only the last `Limits.log_bytes` of stdout and of stderr
  are kept, decoded leniently (PR code need not print UTF-8).

A child that starts its own session escapes the group kill; the bot stops
reading its output when the time is up, so it cannot hang the job either.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import resource
import selectors
import signal
import subprocess
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from bot.errors import BotError, ExitCode
from bot.limits import DEFAULT_LIMITS, MIB, Limits
from bot.redact import current, looks_secret

ALLOWED_NAMES = frozenset(
    {"PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE", "TZ", "TERM", "TMPDIR", "SOURCE_DATE_EPOCH",
     "CC", "CXX", "CPP", "LD", "AR", "NM", "RANLIB", "STRIP", "OBJCOPY", "OBJDUMP",
     "CFLAGS", "CXXFLAGS", "CPPFLAGS", "LDFLAGS", "LIBRARY_PATH", "LD_LIBRARY_PATH", "CPATH", "C_INCLUDE_PATH",
     "CPLUS_INCLUDE_PATH", "PKG_CONFIG_PATH", "MAKEFLAGS", "NINJA_STATUS",
     "ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS", "PYTHONDONTWRITEBYTECODE"}
)  # fmt: skip
ALLOWED_PREFIXES = ("LC_", "CCACHE_", "CMAKE_", "XDG_", "PYENV_")  # PYENV_: compilers and ccache behind pyenv shims
# Per process. Every translation unit of native/ and kernels/ compiles within
# 512 MiB of address space (measured: method.cpp, op_convolution.cpp at -O3);
# this stops a template bomb from taking the machine, not an honest compile.
BUILD_MEMORY_BYTES = 8192 * MIB
# qemu-user's own address space beside the guest's reservation (sandbox.emulated):
# its translation buffer (128 MiB), binary, libraries and heap. Measured with
# qemu-aarch64 7.2: reserving the guest space fails about half the time at
# +200 MiB and never at +256 MiB; the rest is margin for the heap qemu grows
# with the code it translates.
EMULATOR_OVERHEAD_BYTES = 384 * MIB
GRACE_SECONDS = 2.0  # how long output is still read after the process ended
_CHUNK = 1 << 16

PR_SET_PDEATHSIG = 1
PR_CAPBSET_DROP = 24
PR_SET_NO_NEW_PRIVS = 38
CAP_SYS_PTRACE = 19
_libc = ctypes.CDLL(None, use_errno=True)  # loaded before any fork: no dlopen in the child


def child_env(source: Mapping[str, str] | None = None, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment PR code runs with: the allow-listed part of `source` plus `extra`."""
    source = os.environ if source is None else source
    redactor = current()
    env = {
        name: value
        for name, value in source.items()
        if (name in ALLOWED_NAMES or name.startswith(ALLOWED_PREFIXES))
        and not looks_secret(name)
        and not redactor.contains_secret(value)
    }
    env.update(extra or {})
    return env


@dataclass(frozen=True)
class Completed:
    returncode: int  # negative: killed by that signal
    stdout: str  # the last log_bytes of it
    stderr: str

    @property
    def log(self) -> str:
        return self.stdout + self.stderr

    def last_error_line(self) -> str:
        lines = [line.strip() for line in self.stderr.splitlines() if line.strip()]
        return lines[-1] if lines else ""


def _limit_child(memory_bytes: int | None) -> None:
    """Runs in the child between fork and exec: system calls only (no imports, no locks)."""
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    if memory_bytes is not None:
        resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
    _libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
    _libc.prctl(PR_CAPBSET_DROP, CAP_SYS_PTRACE, 0, 0, 0)  # fails harmlessly without CAP_SETPCAP
    _libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)  # the bot killed: its children die too


class _Tail:
    """The last `limit` bytes written to it."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.data = bytearray()

    def add(self, chunk: bytes) -> None:
        self.data += chunk
        if len(self.data) > 2 * self.limit:
            del self.data[: len(self.data) - self.limit]

    def text(self) -> str:
        return bytes(self.data[-self.limit :]).decode("utf-8", errors="replace")


def _kill_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


def _signal_name(returncode: int) -> str:
    try:
        return signal.Signals(-returncode).name
    except ValueError:
        return f"signal {-returncode}"


def run(
    cmd: Sequence[str | os.PathLike[str]],
    *,
    what: str,
    exit_code: ExitCode,
    seconds: float,
    memory_bytes: int | None,
    log_bytes: int = DEFAULT_LIMITS.log_bytes,
    cwd: Path | None = None,
    stdin_text: str | None = None,
    extra_env: Mapping[str, str] | None = None,
) -> Completed:
    """Runs `cmd` sandboxed. Over time: BotError "<what> exceeded N s" (exit_code).
    Killed by a signal under a memory limit: BotError naming the signal and the limit.
    Any other exit status is the caller's to judge."""
    with contextlib.ExitStack() as stack:
        stdin: int | object = subprocess.DEVNULL
        if stdin_text is not None:
            # A file, not a pipe: a child that never reads its input cannot block the bot.
            handle = stack.enter_context(tempfile.TemporaryFile())
            handle.write(stdin_text.encode("utf-8", errors="replace"))
            handle.seek(0)
            stdin = handle
        try:
            proc = subprocess.Popen(
                [os.fspath(c) for c in cmd],
                cwd=cwd,
                env=child_env(extra=extra_env),
                stdin=stdin,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,
                preexec_fn=lambda: _limit_child(memory_bytes),  # only setrlimit and prctl
            )
        except OSError as exc:
            raise BotError(f"{what} could not start: {exc.strerror}", exit_code) from None
        try:
            out, err, timed_out = _collect(proc, seconds, log_bytes)
        finally:
            _kill_group(proc.pid)  # whatever it left behind
            proc.kill()
            proc.wait()
    if timed_out:
        raise BotError(f"{what} exceeded {seconds:g} s", exit_code)
    if proc.returncode < 0 and memory_bytes is not None and proc.returncode != -signal.SIGPIPE:
        raise BotError(
            f"{what} was killed by {_signal_name(proc.returncode)} (under its {memory_bytes // MIB} MiB memory limit)",
            exit_code,
        )
    return Completed(proc.returncode, out, err)


def _collect(proc: subprocess.Popen[bytes], seconds: float, log_bytes: int) -> tuple[str, str, bool]:
    """Reads both pipes until they close (or, once the process has ended, a grace
    period is over), then waits for the process until the deadline.
    Returns (stdout tail, stderr tail, timed out)."""
    assert proc.stdout is not None and proc.stderr is not None
    out, err = _Tail(log_bytes), _Tail(log_bytes)
    tails = {proc.stdout.fileno(): out, proc.stderr.fileno(): err}
    deadline = time.monotonic() + seconds
    exited_at: float | None = None
    with selectors.DefaultSelector() as selector:
        for fd in tails:
            os.set_blocking(fd, False)
            selector.register(fd, selectors.EVENT_READ)
        while selector.get_map():
            now = time.monotonic()
            if exited_at is None and proc.poll() is not None:
                exited_at = now
                _kill_group(proc.pid)  # stragglers holding the pipes open
            if now >= deadline or (exited_at is not None and now - exited_at > GRACE_SECONDS):
                break
            for key, _ in selector.select(timeout=min(0.2, deadline - now)):
                try:
                    chunk = os.read(key.fd, _CHUNK)
                except BlockingIOError:
                    continue
                if chunk:
                    tails[key.fd].add(chunk)
                else:
                    selector.unregister(key.fd)
    timed_out = False
    if proc.poll() is None:
        try:
            proc.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            timed_out = True
    proc.stdout.close()
    proc.stderr.close()
    return out.text(), err.text(), timed_out


def emulated(emulator: Sequence[str], cmd: Sequence[str | os.PathLike[str]], memory_bytes: int) -> list[str]:
    """`cmd` under a qemu-user `emulator` prefix, its guest confined to `memory_bytes` of address space.

    qemu-user runs the guest inside its own process, so RLIMIT_AS on that process
    counts the guest's mappings plus qemu's own (its 128 MiB translation buffer,
    its code and heap). Left alone, qemu maps guest memory on demand and the guest
    would get the limit minus that overhead. `-R` (reserved_va) makes qemu reserve
    the guest's whole address space up front in one mapping and place every guest
    mapping inside it: the guest then has exactly `memory_bytes`, as a native run
    under RLIMIT_AS does (malloc returns NULL past it), and the process limit is
    that plus EMULATOR_OVERHEAD_BYTES for qemu itself.
    """
    return [*emulator, "-R", str(memory_bytes), *(os.fspath(c) for c in cmd)]


def run_program(
    cmd: Sequence[str | os.PathLike[str]],
    *,
    what: str,
    limits: Limits,
    exit_code: ExitCode = ExitCode.RUNTIME,
    stdin_text: str | None = None,
    emulator: Sequence[str] = (),
) -> Completed:
    """A program built from PR code (the runtime, the tracer), or a tool reading its output (strip, c++filt).

    With an `emulator` (qemu-user, bot/arch.py) the program runs under it, with the same limits (see `emulated`).
    """
    memory_bytes = limits.run_memory_bytes
    if emulator:
        cmd = emulated(emulator, cmd, memory_bytes)
        memory_bytes += EMULATOR_OVERHEAD_BYTES
    return run(
        cmd,
        what=what,
        exit_code=exit_code,
        seconds=limits.run_seconds,
        memory_bytes=memory_bytes,
        log_bytes=limits.log_bytes,
        stdin_text=stdin_text,
    )


def run_build(
    cmd: Sequence[str | os.PathLike[str]], *, what: str, limits: Limits, cwd: Path, extra_env: Mapping[str, str]
) -> Completed:
    """CMake configure or build of PR sources."""
    return run(
        cmd,
        what=what,
        exit_code=ExitCode.BUILD,
        seconds=limits.build_seconds,
        memory_bytes=max(BUILD_MEMORY_BYTES, limits.run_memory_bytes),
        log_bytes=limits.log_bytes,
        cwd=cwd,
        extra_env=extra_env,
    )
