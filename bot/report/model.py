"""The report's data model: what one PR run found, as plain frozen data.

The pipeline (bot/pipeline.py) fills it; the verdict (bot/report/verdict.py) judges it; the comment,
the terminal and the artifact render or carry it. Nothing here does I/O or imports the build, sandbox
or GitHub machinery, so every reader of a report needs only this module.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field

from bot.backends import is_bundled

# Zero-initialised (NOBITS) sections by their GNU names: reported apart from the loadable bytes.
BSS_SECTION = re.compile(r"^\.(t?bss|sbss|noinit|heap|stack)(\..*)?$|^COMMON$")

# Bounds a field's type does not say, for the artifact's schema (bot/report/artifact.py derives the rest).
_COMMIT = {"format": "commit", "description": "a commit sha: 40 (or 64) hex digits"}
_HEAD_COMMIT = {"format": "head-commit", "description": 'a commit sha (40 or 64 hex digits) or "working tree"'}
_SHORT = {"maxLength": 64}  # an architecture, a kernel choice, a -march

# A stale yaml's diff as the report carries it for the comment (the patch beside the report holds it whole).
DIFF_LINES = 200  # lines of hunks
DIFF_CHARS = 16_384  # characters of hunks, newlines included
DIFF_LINE_CHARS = 400  # characters of one line; a longer one is cut with an ellipsis
_HUNKS = {
    "maxLength": DIFF_CHARS,
    "format": "diff-hunks",
    "description": (
        f"a unified diff's hunks: at most {DIFF_LINES} lines of at most {DIFF_LINE_CHARS} characters, "
        "each a hunk header or a line starting with ' ', '+', '-' or '\\'"
    ),
}


@dataclass(frozen=True)
class SizeReport:
    """Sizes of one runtime binary. `vm_size` is the headline; see the module doc.

    `per_op` and `symbols` both sum to `vm_size` exactly.
    """

    vm_size: int  # loadable bytes of the stripped binary (SHF_ALLOC, not NOBITS), no page padding
    bss: int  # zero-initialised memory (NOBITS alloc sections: .bss, .tbss, ...)
    file_size: int  # the stripped file's size (page padded): details only
    sections: dict[str, int]  # every non-empty SHF_ALLOC section -> bytes (NOBITS ones too: section_kind)
    symbols: dict[str, int]  # demangled symbol (or a "(no symbol: ...)" remainder) -> loadable bytes
    per_op: dict[str, int]  # op or bucket (CORE, HELPERS, LIBC, LINKER) -> loadable bytes

    @staticmethod
    def section_kind(name: str) -> str:
        """ "bss" for a zero-initialised (NOBITS) section by its GNU name, else "loadable"."""
        return "bss" if BSS_SECTION.match(name) else "loadable"


@dataclass(frozen=True)
class OpUse:
    op: str
    models: tuple[str, ...]  # models that use it (per the selection it comes from)
    callers: tuple[str, ...]  # kernels that reach it through the dispatcher (empty: a root op)


@dataclass(frozen=True)
class DtypeChange:
    op: str
    before: tuple[str, ...] | None  # None: all dtypes
    after: tuple[str, ...] | None


@dataclass(frozen=True)
class SelectionDiff:
    missing: tuple[OpUse, ...] = ()  # needed but not selected: the model fails at load
    unused: tuple[OpUse, ...] = ()  # selected but needed by no model: wasted bytes
    dtype_changes: tuple[DtypeChange, ...] = ()

    @property
    def stale(self) -> bool:
        return bool(self.missing or self.unused or self.dtype_changes)


@dataclass(frozen=True)
class Cause:
    kind: str  # "model" or "kernel"
    path: str  # the changed file
    detail: str  # one sentence for humans (plain text)
    ops: tuple[str, ...] = field(default=())  # the ops it explains
    kernel: str = ""  # for a kernel cause: the op whose kernel changed
    change: str = ""  # for a kernel cause: "now calls" or "no longer calls"


@dataclass(frozen=True)
class Edge:
    caller: str  # op whose kernel makes the call
    callee: str  # op it calls through the dispatcher
    via: str  # the function holding the reference (demangled-ish symbol)
    source: str  # that function's source file

    def is_helper(self, kernel_source: str) -> bool:
        return self.source != kernel_source

    @property
    def via_name(self) -> str:
        """The referencing function's name when it is not the kernel's own implementation."""
        return "" if self.via.endswith("_impl") else self.via


CLASSIFIED_CHARS = 1024  # of a failure's message, read by `cannot_fix`
# The runtime's error lines (native/core: registry.cpp, program.cpp, method.cpp, executor_runner.cpp) and the
# bot's own (bot/selection/trace.py, bot/build/runner.py) that no yaml can change, after "<model file>: ".
_MISSING_BACKEND = re.compile(r"(?:^|: )missing (?:operators? .+ and )?(?P<what>backends?) (?P<names>.+?) \(needed by ")
_INVALID_PROGRAM = re.compile(r"(?:^|: )invalid program: ")
_NO_KERNEL = re.compile(r"(?:^|: )no kernel library implements ")
_MISSING_INPUTS = re.compile(r"(?:^|: )(?:\S+ takes \d+ inputs?, \d+ given|input file not found)")
_WRONG_INPUT = re.compile(r"(?:^|: )input \d+ has (?:dtype|shape) .+, the model expects |: not a usable \.npy file: ")


@dataclass(frozen=True)
class CannotFix:
    """Why regenerating the yaml cannot fix a model's failure, and what does (plain text: it may name a
    PR's backend, so it is escaped wherever it is shown)."""

    reason: str  # "the runtime has no backend XnnpackBackend"
    fix: str  # what does fix it

    @property
    def line(self) -> str:
        return f"regenerating cannot fix this: {self.reason} ({self.fix})"


@functools.lru_cache(maxsize=1024)  # the comment is rendered at several levels of detail: classified once
def cannot_fix(message: str) -> CannotFix | None:
    """Whether a model's load or trace failure (its one error line) is one no regenerated yaml fixes: a
    backend the runtime lacks, a program that is not valid, an op no kernel library implements (the
    tracer's missing ops: it registers them all), inputs that are missing or do not fit the program.
    None when regenerating can fix it (missing operators, which a regenerated yaml selects) or nothing
    says it cannot. Decided here, once: the verdict, the comment, the terminal and `regenerate`
    read it.

    Only the first CLASSIFIED_CHARS are read: an error line is shorter (the runtime's is at most 256 bytes,
    after the model's file name), and a message from an artifact, hostile and up to 64 KiB, cannot make
    the patterns' backtracking slow."""
    message = message[:CLASSIFIED_CHARS]
    backend = _MISSING_BACKEND.search(message)
    # A bundled backend (XnnpackBackend) is registered by the node kinds a regenerated yaml selects.
    if backend and not all(is_bundled(name.strip()) for name in backend.group("names").split(",")):
        what, names = backend.group("what"), backend.group("names")
        it = "them" if what == "backends" else "it"
        return CannotFix(
            f"the runtime has no {what} {names}",
            f"build a runtime with the {what}, or export the model without delegating to {it}",
        )
    if _INVALID_PROGRAM.search(message):
        return CannotFix("the program is not valid", "export the model again")
    if _NO_KERNEL.search(message):
        return CannotFix(
            "no kernel library of the runtime implements an op it needs",
            "add a kernel for it to a kernel library, or export the model without it",
        )
    if _MISSING_INPUTS.search(message):
        return CannotFix(
            "the model is not given the inputs it takes",
            "list its inputs in .selective-build.yml, or none for generated ones",
        )
    if _WRONG_INPUT.search(message):
        return CannotFix("the model's inputs do not fit the program", "give the model inputs of its dtypes and shapes")
    return None


@dataclass(frozen=True)
class LoadFailure:
    model: str
    message: str

    @property
    def cannot_fix(self) -> CannotFix | None:
        """Why regenerating cannot fix this failure (None: it can, or nothing says it cannot)."""
        return cannot_fix(self.message)


@dataclass(frozen=True)
class ClosureChange:
    """A model whose static op closure differs between base and head kernels."""

    model: str
    added: tuple[str, ...]
    removed: tuple[str, ...]
    lacking: tuple[str, ...]  # ops of the new closure the checked-in yaml does not select


@dataclass(frozen=True)
class NotTraced:
    """Ops a model can reach (static graph) that no traced run reached."""

    model: str
    ops: tuple[str, ...]


@dataclass(frozen=True)
class ArchSizes:
    """One target's selective runtime on one architecture: base and head measured, or why not."""

    arch: str = field(metadata={"schema": _SHORT})
    base: SizeReport | None
    head: SizeReport | None
    build_error: str = ""  # the head's build for this arch failed (other arches may have passed)
    base_error: str = ""  # the base could not be built for this arch (it may predate it): nothing to compare with
    kernels: str = field(
        default="portable", metadata={"schema": _SHORT}
    )  # the target's kernel choice (config `kernels:`), as Target.kernel_choice names it
    cpu: str | None = None  # the -march the head was built for (None: the toolchain's default)
    # For a target with optimized kernels: the head's selection built with portable kernels only, so the
    # comment can say what the choice costs in bytes.
    portable: SizeReport | None = None
    # The base's kernel choice and cpu, when the base was built: a change is a cause of the size change.
    base_kernels: str | None = None
    base_cpu: str | None = None

    @property
    def optimized_cost(self) -> int | None:
        """VM bytes the kernel choice adds over the portable runtime of the same selection."""
        if self.portable is None or self.head is None:
            return None
        return self.head.vm_size - self.portable.vm_size

    @property
    def choice_changed(self) -> bool:
        """The PR changed the kernel choice or cpu of this runtime (base built with another)."""
        return self.base_kernels is not None and (self.base_kernels, self.base_cpu) != (self.kernels, self.cpu)

    @property
    def delta(self) -> int | None:
        if self.base is None or self.head is None:
            return None
        return self.head.vm_size - self.base.vm_size


@dataclass(frozen=True)
class TargetReport:
    name: str
    yaml: str
    yaml_exists: bool
    diff: SelectionDiff
    causes: tuple[Cause, ...]
    load_failures: tuple[LoadFailure, ...]
    sizes: tuple[ArchSizes, ...] = ()  # one per configured architecture, in config order
    models_without_yaml: tuple[str, ...] = ()  # models new in this PR that no checked-in yaml covers
    closure_changes: tuple[ClosureChange, ...] = ()
    not_traced: tuple[NotTraced, ...] = ()
    yaml_error: str = ""  # the checked-in yaml cannot be used (not YAML, breaks the schema, unreadable)
    # Models of the target the tracer could not run that no checked-in per-model yaml stands in for:
    # `regenerate` leaves the target's yaml as checked in until they can be traced (selection/regenerate.py).
    untraced_models: tuple[str, ...] = ()

    def size(self, arch: str) -> ArchSizes | None:
        return next((s for s in self.sizes if s.arch == arch), None)

    @property
    def build_errors(self) -> tuple[ArchSizes, ...]:
        return tuple(s for s in self.sizes if s.build_error)

    @property
    def build_error(self) -> str:
        """The first failing architecture's build error ("" if every build passed), named by its arch."""
        failed = self.build_errors
        if not failed:
            return ""
        first = failed[0]
        return first.build_error if len(self.sizes) == 1 else f"{first.arch}: {first.build_error}"

    @property
    def delta(self) -> int | None:
        """VM bytes, summed over the architectures measured on both sides (None: none was)."""
        known = [s.delta for s in self.sizes if s.delta is not None]
        return sum(known) if known else None


@dataclass(frozen=True)
class PolicyChange:
    """A change the PR's own config makes to the policy: it applies once merged, never to the PR itself."""

    target: str  # "" for a repo-wide setting
    arch: str  # "" for a setting of every architecture
    # "size_limits.<warn|fail>.<size|growth|growth_percent|op_growth>", "noise_floor", "fail_on.stale" or
    # "fail_on.budget" ("size_budget" in reports written before size limits: the fail level's size)
    setting: str
    before: int | float | bool | None  # bytes or percent for a limit (None: none), bytes for the noise floor, on/off
    after: int | float | bool | None


@dataclass(frozen=True)
class YamlDiff:
    """One stale yaml's change, as the patch beside the report makes it (bot/report/patch.py): its hunks,
    capped for the comment at DIFF_LINES lines, DIFF_CHARS characters and DIFF_LINE_CHARS per line.
    PR-controlled text (the yaml's content and path): escaped wherever it is shown."""

    path: str  # repo-relative, as the patch names it
    hunks: str = field(metadata={"schema": _HUNKS})  # the diff's hunk lines, joined by newlines
    lines: int  # hunk lines of the whole diff: more than `hunks` holds when it was cut
    added: int  # lines the whole diff adds
    removed: int  # lines it removes
    new: bool = False  # the file does not exist yet: the patch creates it

    @property
    def cut(self) -> int:
        """Hunk lines of the whole diff that `hunks` leaves out (the patch has them)."""
        shown = self.hunks.count("\n") + 1 if self.hunks else 0
        return max(0, self.lines - shown)


@dataclass(frozen=True)
class PrReport:
    base_ref: str
    base_sha: str = field(metadata={"schema": _COMMIT})
    head_sha: str = field(metadata={"schema": _HEAD_COMMIT})  # "working tree" when run on uncommitted changes
    targets: tuple[TargetReport, ...]
    stale_files: tuple[str, ...]  # every regenerated yaml whose content differs from the checked-in one
    changed_files: tuple[str, ...] = field(default=())
    graph_added: tuple[Edge, ...] = ()  # op -> op edges new in head's kernels
    graph_removed: tuple[Edge, ...] = ()
    build_error: str = ""  # the head's kernels do not build: nothing else could be checked
    model_failures: tuple[LoadFailure, ...] = ()  # models the tracer could not run (error, time or memory limit)
    # What the PR's config would change in the policy (bot/report/verdict.py): shown, applied once merged.
    policy_changes: tuple[PolicyChange, ...] = ()
    runtime: str = ""  # the runtime built, e.g. "bundled runtime of selective-build 0.1.0" ("": not recorded)
    # Each stale yaml's diff, capped, in the order of `stale_files` (the patch beside the report holds it whole).
    yaml_diffs: tuple[YamlDiff, ...] = ()

    def yaml_diff(self, path: str) -> YamlDiff | None:
        return next((d for d in self.yaml_diffs if d.path == path), None)

    def first_build_error(self) -> str:
        """The first failing build's message line, or ""."""
        errors = [self.build_error] + [f"target {t.name}: {t.build_error}" for t in self.targets if t.build_error]
        return next((e.split("\n", 1)[0] for e in errors if e), "")

    @property
    def stale(self) -> bool:
        return any(
            t.diff.stale
            or any(f.cannot_fix is None for f in t.load_failures)  # the others no yaml fixes: not stale
            or not t.yaml_exists
            or t.yaml_error
            or any(c.lacking for c in t.closure_changes)
            for t in self.targets
        )

    @property
    def size_delta(self) -> int:
        return sum(t.delta or 0 for t in self.targets)
