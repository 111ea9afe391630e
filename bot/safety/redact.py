"""Secrets never leave the bot: one redaction step every emitted text passes through.

The sandbox (`bot/safety/sandbox.py`) keeps secrets out of PR code's reach, so
nothing PR code prints can contain them. Redaction is the second line: a
secret that reaches a text anyway (a checkout's `.git/config` extraheader a
build prints, a secret passed as an input by mistake) is removed before the
text is written, printed or posted. It knows every secret in the environment
at start-up and the forms they are commonly found in: raw, URL-encoded,
HTML- and JSON-escaped, hex, and base64 at any alignment (so also inside
`base64("x-access-token:" + token)`, git's extraheader).

A secret printed reversed, split or otherwise transformed by code that could
read it is beyond any redaction; that is why PR code never gets to read it.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import ctypes
import html
import json
import os
import re
from collections.abc import Iterable, Mapping, MutableMapping
from dataclasses import dataclass
from urllib.parse import quote, quote_plus

REPLACEMENT = "***"
MIN_SECRET_LENGTH = 8  # shorter values ("true", "1") would redact ordinary words
# Names known to hold secrets whatever they are called: the action's token input and the runner's tokens.
KNOWN_SECRET_NAMES = frozenset(
    {"INPUT_GITHUB-TOKEN", "INPUT_GITHUB_TOKEN", "GITHUB_TOKEN", "ACTIONS_RUNTIME_TOKEN",
     "ACTIONS_ID_TOKEN_REQUEST_TOKEN"}
)  # fmt: skip
_SECRET_WORDS = frozenset(
    {"TOKEN", "SECRET", "SECRETS", "PASSWORD", "PASSWD", "PASSPHRASE", "PASS", "CREDENTIAL", "CREDENTIALS", "CREDS",
     "KEY", "APIKEY", "AUTH", "COOKIE", "PRIVATE", "PAT", "SIGNATURE", "CERT"}
)  # fmt: skip
_SECRET_SUFFIXES = ("TOKEN", "SECRET", "PASSWORD", "PASSWD", "KEY")
_NAME_WORDS = re.compile(r"[^A-Za-z0-9]+")


def looks_secret(name: str) -> bool:
    """Whether an environment variable's name says it holds a secret (GITHUB_TOKEN, NPM_AUTH, AWS_SECRET_KEY...)."""
    if name.upper() in KNOWN_SECRET_NAMES:
        return True
    words = [w for w in _NAME_WORDS.split(name.upper()) if w]
    return any(w in _SECRET_WORDS or w.endswith(_SECRET_SUFFIXES) for w in words)


def secrets_in(env: Mapping[str, str]) -> set[str]:
    """Values of the secret-named variables of `env`, of a length worth redacting."""
    return {value for name, value in env.items() if looks_secret(name) and len(value.strip()) >= MIN_SECRET_LENGTH}


def _base64_cores(secret: bytes) -> set[str]:
    """The base64 characters that depend only on `secret`, for each of the three
    alignments it can have inside a longer encoded string."""
    cores = set()
    for offset in range(3):
        encoded = base64.b64encode(b"\0" * offset + secret).decode().rstrip("=")
        first = -(-8 * offset // 6)  # the first character holding no bit of the padding before
        last = 8 * (offset + len(secret)) // 6  # characters from here on mix in what follows
        core = encoded[first:last]
        cores |= {core, core.replace("+", "-").replace("/", "_")}
    return cores


def encoded_forms(secret: str) -> set[str]:
    """Every form of `secret` the redactor removes."""
    raw = secret.strip()
    data = raw.encode()
    forms = {
        raw,
        quote(raw, safe=""),
        quote_plus(raw),
        html.escape(raw, quote=True),
        json.dumps(raw)[1:-1],
        binascii.hexlify(data).decode(),
        binascii.hexlify(data).decode().upper(),
        *_base64_cores(data),
    }
    # A core shorter than this would match too much ordinary text.
    return {form for form in forms if len(form) >= MIN_SECRET_LENGTH}


@dataclass(frozen=True)
class Redactor:
    secrets: frozenset[str]  # the raw values
    _pattern: re.Pattern[str] | None

    @staticmethod
    def of(secrets: Iterable[str]) -> Redactor:
        raw = frozenset(s.strip() for s in secrets if len(s.strip()) >= MIN_SECRET_LENGTH)
        forms = sorted({form for s in raw for form in encoded_forms(s)}, key=len, reverse=True)
        pattern = re.compile("|".join(re.escape(f) for f in forms)) if forms else None
        return Redactor(raw, pattern)

    @staticmethod
    def from_env(*envs: Mapping[str, str], extra: Iterable[str] = ()) -> Redactor:
        found: set[str] = set(extra)
        for env in envs:
            found |= secrets_in(env)
        return Redactor.of(found)

    def text(self, value: str) -> str:
        if self._pattern is None:
            return value
        return self._pattern.sub(REPLACEMENT, value)

    def contains_secret(self, value: str) -> bool:
        return self._pattern is not None and self._pattern.search(value) is not None

    def data(self, value: object) -> object:
        """JSON-like data (dicts, lists, tuples, strings) with every string redacted, keys included."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            return {self.data(k): self.data(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return [self.data(v) for v in value]
        return value


NOTHING = Redactor.of(())
_installed: Redactor | None = None


def current() -> Redactor:
    """The process's redactor: what `install` saw, else the secrets of the environment now."""
    return _installed if _installed is not None else Redactor.from_env(os.environ)


def redact(value: str) -> str:
    return current().text(value)


def install(env: Mapping[str, str], extra: Iterable[str] = ()) -> Redactor:
    """At start-up: remember the secrets of `env` and hide them from child processes.

    Children get an allow-listed environment (bot/safety/sandbox.py), but they could
    still read this process's initial environment from /proc/<pid>/environ
    (same user), or its memory. So the secret values are overwritten in that
    block (Python keeps its own copy in os.environ), and the process is made
    non-dumpable, which closes /proc/<pid>/environ and /proc/<pid>/mem to
    anything without CAP_SYS_PTRACE (sandboxed children drop it).
    """
    global _installed
    _installed = Redactor.from_env(env, extra=extra)
    _scrub_initial_environment(_installed.secrets)
    _set_non_dumpable()
    return _installed


def _environment_block() -> tuple[int, int] | None:
    """Start and end address of this process's initial environment (fields 50 and 51 of /proc/self/stat)."""
    try:
        with open("/proc/self/stat") as handle:
            fields = handle.read().rsplit(")", 1)[1].split()
        return int(fields[47]), int(fields[48])  # fields after "(comm)" start at number 3
    except (OSError, IndexError, ValueError):
        return None


def _scrub_initial_environment(secrets: Iterable[str]) -> None:
    block = _environment_block()
    if block is None or not secrets:
        return
    start, end = block
    try:
        with open("/proc/self/mem", "r+b", buffering=0) as mem:
            mem.seek(start)
            data = mem.read(end - start)
            scrubbed = data
            for secret in secrets:
                encoded = secret.encode()
                scrubbed = scrubbed.replace(encoded, b"*" * len(encoded))
            if scrubbed != data:
                mem.seek(start)
                mem.write(scrubbed)
    except OSError:
        pass  # not Linux, or /proc is not mounted: the environment of children is still allow-listed


PR_SET_DUMPABLE = 4


def _set_non_dumpable() -> None:
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)


def take_secrets(environ: MutableMapping[str, str]) -> dict[str, str]:
    """Removes every secret-named variable from `environ` (the process's own os.environ: nothing later
    reads a token from there, or passes it on), returning them."""
    taken = {name: environ[name] for name in list(environ) if looks_secret(name)}
    for name in taken:
        del environ[name]
    return taken
