"""The one way the bot runs PR-controlled code: CMake and the compiler on the PR's
sources, the runtime and tracer built from them, and the binutils that read
what they produced.

Every child is confined by one of three modes, chosen once per process
(`mode()`, forced with SB_SANDBOX=namespaces|uid|limits) and named in the job log:

- **namespaces** (bubblewrap): the child sees a read-only view of the toolchain
  (/usr, the libraries, the Python that runs CMake's code generator) and of the
  paths its step reads, and can write only the paths its step writes (its build
  or output directory). It has no network, its own PID namespace (no view of
  the bot or of other processes; every process it starts dies with the step),
  its own /tmp, no `.git` of any checkout, and nothing of $HOME, the cache's
  other trees or the runner's files. When the bot runs as root, the child also
  runs as the sandbox uid, so the process limit holds.
- **uid**: where namespaces are refused (Docker's default seccomp profile
  inside a container action), the child runs as a dedicated unprivileged uid,
  which owns nothing but its step's writable paths: it cannot change the tool,
  the base tree or the trusted compiler cache. After the step every process of
  that uid is killed and its files in the shared temp folders are removed. It
  can still read whatever the uid may read.
- **limits**: neither is possible (no namespaces, not root): the child runs as
  the bot's own user, with the limits below only. It could read and change that
  user's files; the job log says so.

In every mode the child also gets
- an allow-listed environment (PATH, locale, compiler and ccache variables...),
  never a token, nothing of the runner (GITHUB_*, INPUT_*, ACTIONS_*, RUNNER_*)
  and nothing named like a secret;
- a wall-clock limit (its whole process group is killed when it is over) and
  limits on processes, file size, address space and CPU time;
- no core dumps, no privilege gain through set-uid programs
  (PR_SET_NO_NEW_PRIVS) and no CAP_SYS_PTRACE;
- bounded output: only the last `Limits.log_bytes` of stdout and of stderr.

A step is `trusted` when it builds the base (the default branch's code): it
runs in the same view, but as the bot's own uid, so it may write the trusted
compiler cache that PR steps only read.
"""

from __future__ import annotations

import contextlib
import ctypes
import enum
import fcntl
import functools
import math
import os
import resource
import selectors
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from bot.errors import BotError, ExitCode
from bot.safety.limits import DEFAULT_LIMITS, MIB, Limits
from bot.safety.redact import current, looks_secret

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
CPU_MARGIN_SECONDS = 5  # SIGXCPU at the soft limit, SIGKILL this much later
_CHUNK = 1 << 16

# The uid PR code runs as (uid mode, and namespaces mode when the bot is root). It must own no
# file of the system: nothing but the paths a step writes is ever given to it.
DEFAULT_SANDBOX_UID = 64_999
# What the namespaces mode shows of the system: the toolchain, read-only. /etc only for the
# dynamic loader, `c++` and friends (alternatives) and user names.
SYSTEM_TREES = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
SYSTEM_FILES = ("/etc/alternatives", "/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d",
                "/etc/passwd", "/etc/group", "/etc/nsswitch.conf", "/etc/localtime")  # fmt: skip
SHARED_TEMP_DIRS = ("/tmp", "/var/tmp", "/dev/shm")  # where a uid-mode child can leave files behind
UID_LOCK_DIR = Path("/run/selective-build")  # uid mode's machine-wide locks (_uid_slot)
SETPRIV = "setpriv"  # util-linux; switches to the sandbox uid inside a bubblewrap started as root

PR_SET_PDEATHSIG = 1
PR_CAPBSET_DROP = 24
PR_SET_NO_NEW_PRIVS = 38
CAP_SYS_PTRACE = 19
_libc = ctypes.CDLL(None, use_errno=True)  # loaded before any fork: no dlopen in the child


class Mode(enum.Enum):
    NAMESPACES = "namespaces"
    UID = "uid"
    LIMITS = "limits"


_DESCRIPTIONS = {
    Mode.NAMESPACES: (
        "PR code sees the toolchain and its checkout read-only, writes only its build or output directory, "
        "has no network and sees no other process"
    ),
    Mode.UID: (
        "no user namespaces here: PR code runs as its own uid with limits on processes, file size, memory and CPU; "
        "it cannot change the tool, the base or the trusted cache, but can read what that uid may read"
    ),
    Mode.LIMITS: (
        "no user namespaces and not root: PR code runs as this user with limits on processes, file size, memory "
        "and CPU only; it could read and change this user's files"
    ),
}


@dataclass(frozen=True)
class View:
    """What a step may touch beyond the toolchain: paths it reads, paths it writes (created if missing).

    `trusted`: the step builds the base (the default branch's code), not PR code."""

    reads: tuple[Path, ...] = ()
    writes: tuple[Path, ...] = ()
    trusted: bool = False


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


def sandbox_uid() -> int:
    value = os.environ.get("SB_SANDBOX_UID", "")
    try:
        uid = int(value) if value else DEFAULT_SANDBOX_UID
    except ValueError:
        raise BotError(f"SB_SANDBOX_UID must be a number, got {value!r}", ExitCode.USAGE) from None
    if uid <= 0 or uid == os.getuid():
        raise BotError(f"SB_SANDBOX_UID {uid} is not a uid of its own", ExitCode.USAGE)
    return uid


def _is_root() -> bool:
    return os.geteuid() == 0


@functools.cache
def mode() -> Mode:
    """The strongest mode this machine allows, or the one SB_SANDBOX asks for (refused if impossible)."""
    asked = os.environ.get("SB_SANDBOX", "").strip().lower() or "auto"
    if asked not in ("auto", *(m.value for m in Mode)):
        raise BotError(f"SB_SANDBOX must be auto, namespaces, uid or limits, got {asked!r}", ExitCode.USAGE)
    if asked in ("auto", Mode.NAMESPACES.value):
        problem = _namespaces_problem()
        if problem is None:
            return Mode.NAMESPACES
        if asked == Mode.NAMESPACES.value:
            raise BotError(f"SB_SANDBOX=namespaces, but {problem}", ExitCode.USAGE)
    if asked in ("auto", Mode.UID.value):
        if _is_root():
            return Mode.UID
        if asked == Mode.UID.value:
            raise BotError("SB_SANDBOX=uid needs root (to run PR code as another uid)", ExitCode.USAGE)
    return Mode.LIMITS


def describe() -> str:
    """The job log's line saying how PR code is confined."""
    chosen = mode()
    who = f" as uid {sandbox_uid()}" if chosen is not Mode.LIMITS and _is_root() else ""
    name = {Mode.NAMESPACES: "namespaces (bubblewrap)", Mode.UID: "uid fallback", Mode.LIMITS: "limits only"}[chosen]
    return f"sandbox: {name}{who}: {_DESCRIPTIONS[chosen]}"


def _namespaces_problem() -> str | None:
    """Why bubblewrap cannot confine PR code here (None: it can): tried once, as steps will use it."""
    if shutil.which("bwrap") is None:
        return "bubblewrap (bwrap) is not installed"
    if _is_root() and shutil.which(SETPRIV) is None:
        return "setpriv (util-linux) is not installed"
    uid = sandbox_uid() if _is_root() else None
    command = _bwrap_command(["true"], View(), Path("/"), tmp_bytes=MIB, uid=uid)
    try:
        proc = subprocess.run(command, env=child_env(), capture_output=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"bubblewrap could not start ({exc.__class__.__name__})"
    if proc.returncode != 0:
        reason = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        return f"bubblewrap is refused here ({reason[-1] if reason else f'exit {proc.returncode}'})"
    return None


def child_uid(view: View) -> int | None:
    """The uid a step runs as when it is not the bot's own: PR code, whenever the bot is root."""
    if view.trusted or not _is_root() or mode() is Mode.LIMITS:
        return None
    return sandbox_uid()


def _system_view() -> list[str]:
    """bubblewrap arguments showing the toolchain read-only."""
    args: list[str] = []
    for tree in SYSTEM_TREES:
        if os.path.islink(tree):
            args += ["--symlink", os.readlink(tree), tree]
        elif os.path.isdir(tree):
            args += ["--ro-bind", tree, tree]
    for path in SYSTEM_FILES:
        args += ["--ro-bind-try", path, path]
    # The Python running CMake's code generator (`python -m bot.selection.codegen`), cmake and ninja from PyPI,
    # and the tool's own package: read-only.
    from bot.build import bundle

    extra = {Path(p).resolve() for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)}
    extra.add(Path(sys.executable).resolve().parent)
    extra.add(bundle.PACKAGE_DIR)
    extra |= {bundle.root() / bundle.RUNTIME_DIR, bundle.root() / "kernels"}
    for path in sorted(extra):
        if not any(path.is_relative_to(tree) for tree in SYSTEM_TREES if os.path.isdir(tree)):
            args += ["--ro-bind-try", str(path), str(path)]
    return args


def _hide_git(directory: Path) -> list[str]:
    """A checkout's .git holds credentials (checkout's extraheader) and other trees' paths: never shown."""
    git = directory / ".git"
    if git.is_dir() and not git.is_symlink():
        return ["--tmpfs", str(git), "--remount-ro", str(git)]
    if git.exists() or git.is_symlink():
        return ["--ro-bind", "/dev/null", str(git)]
    return []


def _bwrap_command(cmd: Sequence[str], view: View, cwd: Path, *, tmp_bytes: int, uid: int | None) -> list[str]:
    """bubblewrap around `cmd`. Started as root it needs no user namespace, and the child switches to
    `uid` (setpriv) once the view is built; started as a user, the namespaces come with a user namespace."""
    args = ["bwrap", "--die-with-parent", "--new-session", "--unshare-ipc", "--unshare-pid", "--unshare-net",
            "--unshare-uts", "--unshare-cgroup-try"]  # fmt: skip
    if not _is_root():
        args.append("--unshare-user")
    args += ["--proc", "/proc", "--dev", "/dev", "--perms", "1777", "--size", str(tmp_bytes), "--tmpfs", "/tmp"]
    args += _system_view()
    for option, paths in (("--ro-bind-try", view.reads), ("--bind", view.writes)):
        for path in paths:
            # At its real path and at the path the command names (which may pass through a symlink).
            for shown in dict.fromkeys((os.path.realpath(path), os.path.abspath(path))):
                args += [option, os.path.realpath(path), shown]
                if option == "--ro-bind-try" and os.path.isdir(shown):
                    args += _hide_git(Path(shown))
    args += _traversable_parents(args)
    args += ["--setenv", "HOME", "/tmp", "--setenv", "TMPDIR", "/tmp", "--chdir", str(cwd)]
    if uid is not None:
        args += ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID", "--", SETPRIV, "--reuid", str(uid),
                 "--regid", str(uid), "--clear-groups", "--"]  # fmt: skip
    else:
        args.append("--")
    return args + list(cmd)


_MOUNTS = {"--ro-bind": 2, "--ro-bind-try": 2, "--bind": 2, "--bind-try": 2, "--symlink": 2, "--tmpfs": 1}


def _traversable_parents(args: Sequence[str]) -> list[str]:
    """bubblewrap creates the folders leading to a mount point as 0700 root; a child running as the sandbox
    uid must pass through them (only the folders it created: every other one is a mount, read-only)."""
    mounted, read_only = set(), set()
    i = 0
    while i < len(args):
        arity = _MOUNTS.get(args[i], 0)
        if arity:
            mounted.add(Path(args[i + arity]))
            if args[i] != "--tmpfs":
                read_only.add(Path(args[i + arity]))
            i += arity
        i += 1
    created = {p for m in mounted for p in m.parents if p != Path("/")} - mounted
    created = {p for p in created if not any(p.is_relative_to(m) for m in read_only)}
    return [arg for p in sorted(created) for arg in ("--chmod", "0755", str(p))]


# Per process, (directory, uid) -> (mtime, ctime, subdirectories) of a directory whose entries `_grant` left
# as they must be: unchanged since (the same times), it holds the same entries with the same owners.
_handed_over: dict[tuple[str, int], tuple[int, int, tuple[str, ...]]] = {}
# A directory changed this recently may change again within the same timestamp tick: listed every time.
RACY_NANOSECONDS = 2_000_000_000
MAX_REMEMBERED = 200_000


def _grant(path: Path, uid: int) -> None:
    """Makes `path` (a step's writable directory) writable by `uid`.

    Only what the bot created there is handed over; a file with more than one link
    (a hard link PR code made to a file it may not change) is never chowned.

    Every directory is looked at before every step, but one unchanged since it was last handed over is
    not listed again: a PR compiler cache (tens of thousands of files) was walked whole before each step.
    Anything another identity adds (the bot, a root step in limits mode) changes its directory's times."""
    settled_before = time.time_ns() - RACY_NANOSECONDS
    if len(_handed_over) > MAX_REMEMBERED:  # trees of finished runs (temp folders) pile up in a long process
        _handed_over.clear()
    top = os.fspath(path)
    pending = [top] if os.path.isdir(top) else []
    _hand_over(top, uid)
    while pending:
        directory = pending.pop()
        try:
            info = os.lstat(directory) if directory != top else os.stat(directory)
        except OSError:
            continue
        if directory != top:
            if not stat.S_ISDIR(info.st_mode):  # no longer a directory (a symlink now): never listed through
                continue
            _hand_over(directory, uid, info)
        key = (directory, uid)
        known = _handed_over.get(key)
        if known is not None and known[:2] == (info.st_mtime_ns, info.st_ctime_ns):
            pending += [os.path.join(directory, name) for name in known[2]]
            continue
        subdirs = []
        try:
            with os.scandir(directory) as entries:
                for entry in entries:
                    if _hand_over(entry.path, uid) and entry.is_dir(follow_symlinks=False):
                        subdirs.append(entry.name)
        except OSError:
            _handed_over.pop(key, None)
            continue
        pending += [os.path.join(directory, name) for name in subdirs]
        if max(info.st_mtime_ns, info.st_ctime_ns) < settled_before:
            _handed_over[key] = (info.st_mtime_ns, info.st_ctime_ns, tuple(subdirs))
        else:
            _handed_over.pop(key, None)


def _hand_over(path: str, uid: int, info: os.stat_result | None = None) -> bool:
    """chowns one entry to `uid` unless it is the uid's already or a file with more than one link.
    False: it is gone."""
    try:
        info = info or os.lstat(path)
        if info.st_uid == uid or (stat.S_ISREG(info.st_mode) and info.st_nlink > 1):
            return True
        os.chown(path, uid, uid, follow_symlinks=False)
    except FileNotFoundError:
        return False
    return True


def _reachable(path: Path) -> None:
    """uid mode: the sandbox uid must be able to reach the toolchain and its step's paths (a Python under
    /root, a cache under $HOME): each parent directory the bot owns gets o+x (traverse, not list)."""
    for parent in [path, *path.parents][::-1]:
        with contextlib.suppress(OSError):
            info = parent.stat()
            if stat.S_ISDIR(info.st_mode) and info.st_uid == os.geteuid() and not info.st_mode & stat.S_IXOTH:
                os.chmod(parent, stat.S_IMODE(info.st_mode) | stat.S_IXOTH)


def _uid_lock_dir() -> Path:
    """Where the uid slots' locks live: UID_LOCK_DIR, the bot's own (uid mode runs as root, which /run is
    writable for), never one the sandbox uid could have made or swapped for a symlink."""
    try:
        UID_LOCK_DIR.mkdir(mode=0o700, exist_ok=True)
        info = UID_LOCK_DIR.lstat()
    except OSError as exc:
        raise BotError(f"{UID_LOCK_DIR}: cannot keep the sandbox's locks: {exc.strerror}", ExitCode.IO) from None
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.geteuid() or info.st_mode & 0o022:
        raise BotError(f"{UID_LOCK_DIR}: not a directory of this user's alone; remove it", ExitCode.IO)
    return UID_LOCK_DIR


@contextlib.contextmanager
def _uid_slot() -> Iterator[None]:
    """uid mode: one step of this uid at a time on this machine, since its end kills every process of the uid.
    The lock is the machine's, not the cache's: two runs with caches of their own (two jobs of one runner,
    two checkouts) still share the uid."""
    lock = _uid_lock_dir() / f"uid-{sandbox_uid()}.lock"
    fd = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def _in_shared_temp(path: Path) -> bool:
    return os.path.dirname(os.path.abspath(path)) in SHARED_TEMP_DIRS


def _left_in_shared_temp(uid: int) -> frozenset[str]:
    """The entries of the shared temp folders that `uid` owns: before a step, the write paths other runs
    handed over (kept); after it, those and what the step left."""
    found = set()
    for shared in SHARED_TEMP_DIRS:
        with contextlib.suppress(OSError):
            for entry in os.scandir(shared):
                with contextlib.suppress(OSError):
                    if entry.stat(follow_symlinks=False).st_uid == uid:
                        found.add(entry.path)
    return frozenset(found)


def _end_uid(uid: int, keep: frozenset[str]) -> None:
    """uid mode, after a step: every process of the uid killed (a detached one too), and what it left in the
    shared temp folders removed: the uid's entries there but those in `keep` (the ones it owned before)."""
    for _ in range(20):
        if not _processes_of(uid):
            break
        # kill(-1) as the uid reaches every process of that uid, whatever session or group it is in.
        subprocess.run(
            [sys.executable, "-S", "-c", "import os, signal; os.kill(-1, signal.SIGKILL)"],
            user=uid, group=uid, extra_groups=[], capture_output=True, env={},
        )  # fmt: skip
        time.sleep(0.05)
    for path in _left_in_shared_temp(uid) - keep:
        with contextlib.suppress(OSError):
            if os.path.isdir(path) and not os.path.islink(path):
                shutil.rmtree(path, ignore_errors=True)
            else:
                os.unlink(path)


def _processes_of(uid: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            with contextlib.suppress(OSError):
                if os.stat(f"/proc/{entry}").st_uid == uid:
                    found.append(int(entry))
    return found


@dataclass(frozen=True)
class Completed:
    returncode: int  # negative: killed by that signal
    stdout: str  # the last log_bytes of it
    stderr: str

    def last_error_line(self) -> str:
        lines = [line.strip() for line in self.stderr.splitlines() if line.strip()]
        return lines[-1] if lines else ""


def _limit_child(memory_bytes: int | None, cpu_seconds: int, processes: int | None, file_bytes: int) -> None:
    """Runs in the child between fork and exec: system calls only (no imports, no locks)."""
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    if memory_bytes is not None:
        resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
    resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds + CPU_MARGIN_SECONDS))
    resource.setrlimit(resource.RLIMIT_FSIZE, (file_bytes, file_bytes))
    if processes is not None:
        resource.setrlimit(resource.RLIMIT_NPROC, (processes, processes))
    _libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
    _libc.prctl(PR_CAPBSET_DROP, CAP_SYS_PTRACE, 0, 0, 0)  # fails harmlessly without CAP_SETPCAP
    _libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)  # the bot killed: its children die too


def _process_limit(limit: int, uid: int | None) -> int | None:
    """RLIMIT_NPROC counts every process of the child's real uid. The sandbox uid (and a user namespace's
    own count) start from nothing; a child left as the bot's non-root user shares its count."""
    if uid is not None or (mode() is Mode.NAMESPACES and not _is_root()):
        return limit
    if _is_root():
        return None  # root is exempt from the limit: only a trusted step runs as root
    return len(_processes_of(os.getuid())) + limit


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
    view: View = View(),
    limits: Limits = DEFAULT_LIMITS,
    log_bytes: int | None = None,
    cwd: Path | None = None,
    stdin_text: str | None = None,
    extra_env: Mapping[str, str] | None = None,
) -> Completed:
    """Runs `cmd` sandboxed, seeing the toolchain and `view`. Over time: BotError "<what> exceeded N s"
    (exit_code). Killed by a signal under a memory limit: BotError naming the signal and the limit.
    Any other exit status is the caller's to judge."""
    chosen, uid = mode(), child_uid(view)
    for path in view.writes:
        Path(path).mkdir(parents=True, exist_ok=True)
        if uid is not None:
            # A write path right in a shared temp folder is what a uid-mode step's cleanup looks at: handed
            # over between steps, never during one, so no step takes it for something it left behind.
            with _uid_slot() if _in_shared_temp(Path(path)) else contextlib.nullcontext():
                _grant(Path(path), uid)
    workdir = Path(os.path.abspath(cwd if cwd is not None else (view.writes[0] if view.writes else "/")))
    command = [os.fspath(c) for c in cmd]
    env = child_env(extra=extra_env)
    identity: dict[str, object] = {}
    if chosen is Mode.NAMESPACES:
        command = _bwrap_command(command, view, workdir, tmp_bytes=limits.file_bytes, uid=uid)
    elif uid is not None:  # uid mode: switched before exec
        identity = {"user": uid, "group": uid, "extra_groups": []}
        env["HOME"] = str(workdir)
        for path in (*view.reads, *view.writes, workdir, Path(sys.executable).resolve(), Path(command[0])):
            _reachable(Path(os.path.abspath(path)))
    cpu_seconds = max(1, math.ceil(seconds))
    processes = _process_limit(limits.processes, uid)
    ends_uid = chosen is Mode.UID and uid is not None
    slot = _uid_slot() if ends_uid else contextlib.nullcontext()
    with contextlib.ExitStack() as stack:
        stack.enter_context(slot)
        before = _left_in_shared_temp(uid) if ends_uid and uid is not None else frozenset()
        stdin: int | object = subprocess.DEVNULL
        if stdin_text is not None:
            # A file, not a pipe: a child that never reads its input cannot block the bot.
            handle = stack.enter_context(tempfile.TemporaryFile())
            handle.write(stdin_text.encode("utf-8", errors="replace"))
            handle.seek(0)
            stdin = handle
        try:
            proc = subprocess.Popen(
                command,
                cwd=workdir if chosen is not Mode.NAMESPACES else None,
                env=env,
                stdin=stdin,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,
                preexec_fn=lambda: _limit_child(memory_bytes, cpu_seconds, processes, limits.file_bytes),
                **identity,  # type: ignore[arg-type]
            )
        except OSError as exc:
            raise BotError(f"{what} could not start: {exc.strerror}", exit_code) from None
        try:
            out, err, timed_out = _collect(proc, seconds, log_bytes or limits.log_bytes)
        finally:
            _kill_group(proc.pid)  # whatever it left behind
            proc.kill()
            proc.wait()
            if ends_uid and uid is not None:
                _end_uid(uid, keep=before)
    returncode = proc.returncode
    if chosen is Mode.NAMESPACES and returncode > 128:
        returncode = 128 - returncode  # bubblewrap exits 128+N for a child killed by signal N, as a shell does
    if timed_out:
        raise BotError(f"{what} exceeded {seconds:g} s", exit_code)
    if returncode == -signal.SIGXCPU:
        raise BotError(f"{what} exceeded its {cpu_seconds} s of CPU time", exit_code)
    if returncode == -signal.SIGXFSZ:
        raise BotError(f"{what} wrote a file over its {limits.file_bytes // MIB} MiB limit", exit_code)
    if returncode < 0 and memory_bytes is not None and returncode != -signal.SIGPIPE:
        raise BotError(
            f"{what} was killed by {_signal_name(returncode)} (under its {memory_bytes // MIB} MiB memory limit)",
            exit_code,
        )
    return Completed(returncode, out, err)


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
    view: View = View(),
    exit_code: ExitCode = ExitCode.RUNTIME,
    stdin_text: str | None = None,
    emulator: Sequence[str] = (),
) -> Completed:
    """A program built from PR code (the runtime, the tracer), or a tool reading its output (strip, c++filt),
    seeing `view` (the program itself is read-only in it).

    With an `emulator` (qemu-user, bot/build/arch.py) the program runs under it, with the same limits (see `emulated`).
    """
    memory_bytes = limits.run_memory_bytes
    program = Path(os.fspath(cmd[0]))
    if program.is_absolute():
        view = View((*view.reads, program), view.writes, view.trusted)
    if emulator:
        cmd = emulated(emulator, cmd, memory_bytes)
        memory_bytes += EMULATOR_OVERHEAD_BYTES
    return run(
        cmd,
        what=what,
        exit_code=exit_code,
        seconds=limits.run_seconds,
        memory_bytes=memory_bytes,
        view=view,
        limits=limits,
        stdin_text=stdin_text,
    )


def run_build(
    cmd: Sequence[str | os.PathLike[str]],
    *,
    what: str,
    limits: Limits,
    cwd: Path,
    extra_env: Mapping[str, str],
    view: View,
) -> Completed:
    """CMake configure or build of PR sources (or, `view.trusted`, of the base's)."""
    return run(
        cmd,
        what=what,
        exit_code=ExitCode.BUILD,
        seconds=limits.build_seconds,
        memory_bytes=max(BUILD_MEMORY_BYTES, limits.run_memory_bytes),
        view=view,
        limits=limits,
        cwd=cwd,
        extra_env=extra_env,
    )
