"""The PR pipeline: regenerate, detect stale yaml, smoke-run, build base and head, measure.

`run_pr` does the I/O (git, builds, runs) and returns a `PrReport`, plain
data that report.py renders and github.py posts.
"""

from __future__ import annotations

import dataclasses
import functools
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from bot import config, git
from bot.backends import BUNDLED_BACKENDS
from bot.build import arch as arches
from bot.build import bundle, cmake, lock, size
from bot.build.runner import run_model
from bot.errors import BotError, ExitCode
from bot.progress import LogProgress, Progress
from bot.report import patch, verdict
from bot.report.model import (
    ArchSizes,
    ClosureChange,
    LoadFailure,
    NotTraced,
    PolicyChange,
    PrReport,
    SelectionDiff,
    SizeReport,
    TargetReport,
)
from bot.safety import safe_files, sandbox
from bot.selection import depgraph, features, oplist, pte, regenerate, stale, trace
from bot.selection.kernel_library import KernelEntry, KernelLibraryError, load_libraries, op_sources
from bot.selection.oplist import SelectedOps

KEEP = (f"{cmake.BUILD_DIR_NAME}/",)  # a worktree's build directories outlive its checkouts


@dataclass(frozen=True)
class Checkout:
    """One side of the PR: a source tree, its config, and where its kernels live."""

    root: Path
    cfg: config.Config | None  # None: the base predates the config
    ops_by_source: dict[str, list[str]]  # kernel object stem -> ops (size attribution)
    kernel_files: dict[str, str]  # op -> repo-relative kernel source (causes)
    library: dict[str, KernelEntry] = field(default_factory=dict)
    build_options: dict[str, str] = field(default_factory=dict)  # CMake options of the app's kernel libraries
    # The base (default branch's code): built before any PR code runs, as trusted (bot/safety/sandbox.py).
    trusted: bool = False
    commit: str = ""  # the commit a trusted checkout must hold when it is used

    @staticmethod
    def open(root: Path, cfg: config.Config | None, trusted: bool = False, commit: str = "") -> Checkout:
        """Raises BotError(BUILD) when the checkout's kernels cannot be built as they are."""
        if cfg is None:
            return Checkout(root, None, {}, {}, trusted=trusted, commit=commit)
        # The tool's bundled runtime and portable library are trusted; the repo's own trees are checked.
        declared = (cfg.runtime_source, *{lib.folder() for lib in cfg.libraries()})
        trees = [root / p for p in declared if not cfg.trusted(p)]
        leaving = safe_files.symlinks_leaving(root, trees, cfg.limits)
        if leaving:
            where = leaving[0].relative_to(root).as_posix()
            raise BotError(f"{where} is a symlink that leads outside the repository; refusing to build", ExitCode.BUILD)
        try:
            library = load_libraries(config.selection_libraries(cfg), cfg.limits.yaml_bytes)
            # Kernel sources live beside their library's functions.yaml (an app library may name them).
            libraries = cfg.libraries()
            sources = sorted(
                {
                    src
                    for lib in libraries
                    for src in (lib.tree_sources(root) if lib.portable else lib.source_files(root))
                }
            )
            _one_file_per_name(sources, root)
            options = cmake.kernel_library_options(root, libraries)
            bundled = [src for src in sources if cfg.trusted(src)]
            by_op = op_sources(library, bundled) | op_sources(library, [s for s in sources if s not in bundled], root)
            optimized = _optimized_library(root, cfg)
            by_optimized_op = op_sources(optimized, sources) if optimized else {}
        except KernelLibraryError as exc:
            raise BotError(str(exc), ExitCode.BUILD) from None
        by_source: dict[str, list[str]] = {}
        for op, path in (*by_op.items(), *by_optimized_op.items()):
            by_source.setdefault(path.name, []).append(op)
        for backend in BUNDLED_BACKENDS:  # a registered backend's own bytes, beside its node kinds
            for src in sorted((root / cfg.runtime_source / "backends" / backend.namespace).glob("*.cpp")):
                by_source.setdefault(src.name, []).append(size.backend_bucket(backend.backend_id))
        shown = {op: path.relative_to(bundle.root() if cfg.trusted(path) else root) for op, path in by_op.items()}
        files = {op: path.as_posix() for op, path in shown.items()}
        return Checkout(root, cfg, by_source, files, library, options, trusted, commit)

    def verify(self) -> None:
        """A trusted checkout is checked again just before each use: it still holds its commit, unchanged."""
        if self.trusted:
            git.verify_checkout(self.root, self.commit, keep=f"{cmake.BUILD_DIR_NAME}/")

    def graph(self) -> depgraph.Graph | None:
        if self.cfg is None:
            return None
        self.verify()
        try:
            return depgraph.graph_for_checkout(
                self.root / self.cfg.runtime_source,
                self.library,
                self.cfg.limits,
                self.build_options,
                repo_root=self.root,
                trusted=self.trusted,
            )
        except BotError as exc:
            if exc.exit_code != ExitCode.BUILD:
                raise
            return None  # a base that does not build has no graph to compare with

    def build_runtime(self, yaml_file: Path, target: config.Target, arch: arches.Arch, smoke: bool) -> Path:
        """`smoke`: also the runner (a runtime the checked-in yaml's models run on); else the size probe only.
        The target gives the dtype selection and the kernel choice (portable/optimized, cpu)."""
        assert self.cfg is not None
        self.verify()
        lenient = self.cfg.include == "traced"
        flavour = cmake.selective_flavour(
            yaml_file, target.dtype_selective, lenient, arch.name, target.kernels, self.core_parts(target)
        )
        return cmake.build(
            cmake.with_options(flavour, self.build_options),
            targets=cmake.runtime_targets(arch) if smoke else cmake.size_targets(arch),
            source_dir=self.root / self.cfg.runtime_source,
            limits=self.cfg.limits,
            trusted=self.trusted,
            repo_root=self.root,
        )

    def core_parts(self, target: config.Target) -> frozenset[str]:
        """The core's optional parts the target's runtime keeps: those its programs need (every one when a
        program cannot be read: its load then fails in the report as it would anyway)."""
        assert self.cfg is not None
        try:
            parts = features.needed_by((self.root / m.path for m in target.models), self.cfg.limits.model_bytes)
        except pte.PteError:
            return features.ALL
        return parts | ({features.EXTERNAL_DATA} if target.external_data else frozenset())

    def measure(self, build_dir: Path, work: Path, arch: arches.Arch) -> SizeReport:
        assert self.cfg is not None
        probe = build_dir / cmake.SIZE_PROBE
        return size.analyse(
            probe, build_dir / f"{cmake.SIZE_PROBE}.map", self.ops_by_source, work, arch=arch, limits=self.cfg.limits
        )


def _optimized_library(root: Path, cfg: config.Config) -> dict[str, KernelEntry]:
    """The runtime's optimized kernel library (kernels/optimized beside the portable one), if it has one:
    its kernels' bytes belong to their ops too."""
    path = config.optimized_library(dataclasses.replace(cfg, root=root))
    return load_libraries([path], cfg.limits.yaml_bytes) if path is not None else {}


def _one_file_per_name(sources: list[Path], root: Path) -> None:
    """Size attribution goes by object file name: two kernel sources of one name would share their bytes."""
    seen: dict[str, Path] = {}
    for source in sources:
        other = seen.setdefault(source.name, source)
        if other != source:
            shown = [p.relative_to(root).as_posix() if p.is_relative_to(root) else p.name for p in (other, source)]
            raise KernelLibraryError(f"kernel sources {shown[0]} and {shown[1]} have one file name; rename one")


def _as_progress(progress: Progress | Callable[[str], None]) -> Progress:
    """A Progress; a plain message callback (older callers, tests) gets one line per step start and end."""
    return progress if isinstance(progress, Progress) else LogProgress(write=progress)


@dataclass(frozen=True)
class PrRun:
    """What a PR run found, and the patch that fixes its stale yamls."""

    report: PrReport
    # Each stale yaml's diff to its regenerated content, as `git apply` takes it (bot/report/patch.py), in
    # the order of report.stale_files: the patch written beside the report, once its commits are final.
    diffs: tuple[str, ...] = ()


def run_pr(
    repo: Path,
    base_ref: str,
    head_ref: str | None,
    progress: Progress | Callable[[str], None],
    only_targets: set[str] | None = None,
) -> PrReport:
    """The report of `analyze`."""
    return analyze(repo, base_ref, head_ref, progress, only_targets).report


def analyze(
    repo: Path,
    base_ref: str,
    head_ref: str | None,
    progress: Progress | Callable[[str], None],
    only_targets: set[str] | None = None,
) -> PrRun:
    """`only_targets` runs a shard: just those targets (all when None).

    Runs in one clone are serialized: they share its worktrees and build directories.
    """
    shown = _as_progress(progress)
    repo = git.toplevel(repo)
    with lock.clone(repo, cmake.cache_dir(), on_wait=shown.note):
        return _run_pr(repo, base_ref, head_ref, shown, only_targets)


def _run_pr(
    repo: Path, base_ref: str, head_ref: str | None, progress: Progress, only_targets: set[str] | None
) -> PrRun:
    cache = cmake.cache_dir()
    head_commit = git.resolve(repo, head_ref) if head_ref else git.resolve(repo, "HEAD")
    base_sha = git.merge_base(repo, git.resolve(repo, base_ref), head_commit)
    head_root = git.worktree(repo, head_commit, cache, role="head", keep=KEEP) if head_ref else repo
    changed = git.changed_files(repo, base_sha, head_commit if head_ref else None)
    head_label = head_commit if head_ref else "working tree"

    cfg = config.load(head_root)
    if only_targets:
        unknown = only_targets - {t.name for t in cfg.targets}
        if unknown:
            raise BotError(f"no target named {sorted(unknown)[0]!r} in {config.CONFIG_NAME}", ExitCode.CONFIG)
        cfg = dataclasses.replace(cfg, targets=tuple(t for t in cfg.targets if t.name in only_targets))
    base_root = git.worktree(repo, base_sha, cache, role="base", keep=KEEP)
    base = _open_or_bare(base_root, base_sha)
    policy_changes = _policy_changes(base.cfg, cfg)
    progress.note(sandbox.describe())

    # The base first: its code is trusted, and it is built and measured before any PR code runs,
    # so nothing the PR runs can reach what the base's figures come from.
    with tempfile.TemporaryDirectory(prefix="sb-base-") as tmp:
        with progress.step("reading the op graph of base kernels"):
            base_graph = base.graph()
        base_sizes = {
            (target.name, arch_name): _measure_base(target, arches.get(arch_name), base, Path(tmp), progress)
            for target in cfg.targets
            for arch_name in target.architectures
        }

    try:
        with progress.step("building the model tracer at head"):
            head = Checkout.open(head_root, cfg)
            tracer = cmake.with_options(trace.TRACER, head.build_options)
            tracer_build = cmake.build(tracer, source_dir=head_root / cfg.runtime_source, limits=cfg.limits)
            tracer = cmake.runner_path(tracer_build)
    except BotError as exc:
        if exc.exit_code != ExitCode.BUILD:
            raise
        failed = PrReport(
            base_ref=base_ref,
            base_sha=base_sha,
            head_sha=head_label,
            targets=(),
            stale_files=(),
            changed_files=tuple(changed),
            build_error=exc.message + ("\n" + exc.detail if exc.detail else ""),
            policy_changes=policy_changes,
            runtime=cfg.runtime_label(),
        )
        return PrRun(failed)
    # A model the tracer cannot run is a finding (model_failures), not the end of the run: its checked-in
    # per-model selection (else its static root ops) stands in, so it is not also reported as a stale yaml.
    tracing = functools.partial(trace.trace_model, limits=cfg.limits)
    regenerated = regenerate.regenerate(cfg, tracer, tracing, progress)
    stale_diffs = {p.as_posix(): diff for p, diff in regenerate.stale_files(cfg, regenerated).items()}
    with progress.step("reading the op graph of head kernels"):
        head_graph = head.graph()
    graph_change = depgraph.diff(base_graph, head_graph) if head_graph and base_graph else None

    targets = []
    with tempfile.TemporaryDirectory(prefix="sb-pr-") as tmp:
        for target in cfg.targets:
            work = Path(tmp) / target.name
            report = _target_report(
                target, regenerated.per_target[target.name], head, base, base_sizes, changed, work, progress
            )
            untraced = tuple(m.path.as_posix() for m in regenerated.untraced_models(cfg, target))
            report = dataclasses.replace(report, untraced_models=untraced)
            if head_graph is not None:
                report = _with_graph_findings(report, target, head, head_graph, base_graph, regenerated)
            targets.append(report)
    report = PrReport(
        base_ref=base_ref,
        base_sha=base_sha,
        head_sha=head_label,
        targets=tuple(targets),
        stale_files=tuple(stale_diffs),
        changed_files=tuple(changed),
        graph_added=graph_change.added if graph_change else (),
        graph_removed=graph_change.removed if graph_change else (),
        model_failures=regenerated.failures,
        policy_changes=policy_changes,
        runtime=cfg.runtime_label(),
        yaml_diffs=patch.diffs_for(stale_diffs),
    )
    return PrRun(report, tuple(stale_diffs.values()))


def _policy_changes(base: config.Config | None, head: config.Config) -> tuple[PolicyChange, ...]:
    """What the PR's config changes in the policy of the targets it checks (the base's stays in force)."""
    base_policy = base.policy() if base is not None else verdict.Policy()
    names = {t.name for t in head.targets}
    return tuple(c for c in verdict.policy_changes(base_policy, head.policy()) if not c.target or c.target in names)


def _load_selection(path: Path) -> tuple[SelectedOps | None, str]:
    """A checked-in yaml, or None and the one-line reason it cannot be used (absent: None, "")."""
    if not path.is_file() and not path.is_symlink():
        return None, ""
    try:
        return oplist.load(path), ""
    except oplist.OplistError as exc:
        return None, str(exc)
    except BotError as exc:
        if exc.exit_code not in (ExitCode.BAD_INPUT, ExitCode.CONFIG):
            raise
        return None, exc.message


def _with_graph_findings(
    report: TargetReport,
    target: config.Target,
    head: Checkout,
    head_graph: depgraph.Graph,
    base_graph: depgraph.Graph | None,
    regenerated: regenerate.Regenerated,
) -> TargetReport:
    """Static closures per model: what changed with the kernels (even on paths no
    input reaches), what the checked-in yaml lacks, and what tracing never saw."""
    checked_in, _ = _load_selection(head.root / target.yaml)
    selected = checked_in.names() if checked_in is not None else set()
    changes, not_traced = [], []
    assert head.cfg is not None
    for model in target.models:
        label = model.path.as_posix()
        try:
            roots = pte.load(head.root / model.path, head.cfg.limits.model_bytes).plan().operators
        except pte.PteError:
            # Not a program the reader can use (not a .pte, corrupt, no forward method): its closure is
            # unknown. Tracing read it the same way and failed, so it is a finding already (model_failures).
            continue
        closure = head_graph.closure(roots)
        if base_graph is not None:
            before = base_graph.closure(roots)
            if closure != before:
                changes.append(
                    ClosureChange(
                        label,
                        tuple(sorted(closure - before)),
                        tuple(sorted(before - closure)),
                        tuple(sorted(closure - selected)),
                    )
                )
        traced = regenerated.per_model[head.cfg.per_model_yaml(model)]
        unseen = sorted(op for op in closure if op not in traced.operators or not traced.operators[op].traced)
        if unseen:
            not_traced.append(NotTraced(label, tuple(unseen)))
    return dataclasses.replace(report, closure_changes=tuple(changes), not_traced=tuple(not_traced))


def _open_or_bare(root: Path, commit: str) -> Checkout:
    """The base checkout (trusted); one whose config or kernels cannot be used has nothing to compare with."""
    root.chmod(0o700)  # PR code running as the sandbox uid (bot/safety/sandbox.py) cannot even read the base tree
    try:
        return Checkout.open(root, config.load(root), trusted=True, commit=commit)
    except BotError:
        return Checkout.open(root, None, trusted=True, commit=commit)


def _smoke_run(
    checkout: Checkout, target: config.Target, runtime: Path, work: Path, arch: arches.Arch, progress: Progress
) -> list[LoadFailure]:
    """Runs every model of the target on the runtime built from the checked-in yaml (under `arch`'s emulator)."""
    assert checkout.cfg is not None
    limits = checkout.cfg.limits
    failures = []
    with progress.step(f"target {target.name}: smoke run on {arch.name}", total=len(target.models)) as step:
        for model in target.models:
            step.working_on(model.path.as_posix())
            try:
                inputs = [checkout.root / p for p in model.inputs]
                feeds = model.feeds.under(checkout.root)
                run_model(
                    cmake.runner_path(runtime),
                    checkout.root / model.path,
                    inputs,
                    work / model.name,
                    limits=limits,
                    arch=arch,
                    data=feeds.data,
                    steps=feeds.steps,
                )
            except BotError as exc:
                failures.append(LoadFailure(model.path.as_posix(), exc.message))
            step.advance(model.path.as_posix())
    return failures


def _merge_failures(per_arch: dict[str, list[LoadFailure]]) -> tuple[LoadFailure, ...]:
    """One finding per model and message: named by architecture only when the architectures disagree."""
    ran = list(per_arch)
    seen: dict[tuple[str, str], list[str]] = {}
    for arch_name, failures in per_arch.items():
        for f in failures:
            seen.setdefault((f.model, f.message), []).append(arch_name)
    merged = []
    for (model, message), where in seen.items():
        everywhere = len(ran) == 1 or sorted(where) == sorted(ran)
        merged.append(LoadFailure(model, message if everywhere else f"on {', '.join(where)}: {message}"))
    return tuple(merged)


def _error(exc: BotError) -> str:
    return exc.message + ("\n" + exc.detail if exc.detail else "")


@dataclass(frozen=True)
class BaseMeasure:
    """The base's runtime of one target on one architecture, measured before any PR code ran."""

    size: SizeReport | None
    error: str = ""  # the base could not be built for this arch (it may predate it): nothing to compare with
    kernels: str | None = None  # the base's kernel choice and cpu, when it was built
    cpu: str | None = None


def _measure_base(
    target: config.Target, arch: arches.Arch, base: Checkout, work: Path, progress: Progress
) -> BaseMeasure | None:
    """Builds and measures the base's runtime of `target` on `arch` (None: the base has no such runtime)."""
    base_yaml = base.root / target.yaml
    if base.cfg is None or _load_selection(base_yaml)[0] is None or arches.missing_tools(arch, run=False):
        return None
    base_target = _same_target(base, target)
    with progress.step(f"target {target.name}: build base {arch.name}", total=2) as step:
        try:
            base_dir = base.build_runtime(base_yaml, base_target, arch, smoke=False)
            step.advance("build")
            measured = base.measure(base_dir, work / target.name / "base" / arch.name, arch)
            step.advance("size analysis")
        except BotError as exc:
            if exc.exit_code != ExitCode.BUILD:
                raise
            return BaseMeasure(None, exc.message)  # the base's own problem (it may predate this arch), not this PR's
    return BaseMeasure(measured, kernels=base_target.kernels.label, cpu=base_target.kernels.cpu_for(arch))


def _arch_sizes(
    target: config.Target,
    arch: arches.Arch,
    regenerated_yaml: Path,
    checked_in: Path | None,
    head: Checkout,
    base: BaseMeasure | None,
    work: Path,
    progress: Progress,
) -> tuple[ArchSizes, list[LoadFailure]]:
    """Builds (smoke, head) and measures one architecture against the base's measure; a failed build is this
    arch's finding only."""
    smoke = checked_in is not None and arch.runs_models
    missing = arches.missing_tools(arch, run=smoke)
    choice: dict[str, str | None] = {"kernels": target.kernels.label, "cpu": target.kernels.cpu_for(arch)}
    if missing:
        return ArchSizes(arch.name, None, None, f"cannot build for {arch.name}: {missing}", **choice), []
    if base is not None and base.size is not None:
        choice |= {"base_kernels": base.kernels, "base_cpu": base.cpu}
    base_size, base_error = (base.size, base.error) if base is not None else (None, "")
    # The same selection with portable kernels only: what an optimized choice is measured against.
    optimized = target.kernels.optimized
    portable_target = dataclasses.replace(target, kernels=target.kernels.portable()) if optimized else None
    builds = 1 + int(smoke) + int(portable_target is not None)
    failures: list[LoadFailure] = []
    head_dir = None
    with progress.step(f"target {target.name}: build {arch.name}", total=builds) as step:
        try:
            if smoke and checked_in is not None:
                step.working_on("checked-in yaml")
                runtime = head.build_runtime(checked_in, target, arch, smoke=True)
                step.advance("checked-in yaml")
            else:
                runtime = None
            step.working_on("head")
            head_dir = head.build_runtime(regenerated_yaml, target, arch, smoke=False)
            step.advance("head")
            if portable_target is not None:
                step.working_on("head, portable kernels")
                portable_dir = head.build_runtime(regenerated_yaml, portable_target, arch, smoke=False)
                step.advance("head, portable kernels")
        except BotError as exc:
            if exc.exit_code != ExitCode.BUILD:
                raise
            return ArchSizes(arch.name, base_size, None, _error(exc), base_error, **choice), []
    if runtime is not None:
        failures = _smoke_run(head, target, runtime, work / "smoke" / arch.name, arch, progress)
    measures = 1 + int(portable_target is not None)
    with progress.step(f"target {target.name}: size analysis {arch.name}", total=measures) as step:
        try:
            head_size = head.measure(head_dir, work / "head" / arch.name, arch)
            step.advance("head")
            portable_size = None
            if portable_target is not None:
                portable_size = head.measure(portable_dir, work / "head-portable" / arch.name, arch)
                step.advance("head, portable kernels")
        except BotError as exc:
            if exc.exit_code != ExitCode.BUILD:
                raise
            return ArchSizes(arch.name, base_size, None, _error(exc), base_error, **choice), failures
    return ArchSizes(arch.name, base_size, head_size, "", base_error, portable=portable_size, **choice), failures


def _same_target(side: Checkout, target: config.Target) -> config.Target:
    """The target of that name in `side`'s config (the base builds with its own kernel choice), else `target`."""
    if side.cfg is not None:
        for candidate in side.cfg.targets:
            if candidate.name == target.name:
                return candidate
    return target


def regenerated_path(head_root: Path, target: str) -> Path:
    """Where a PR run writes the target's regenerated yaml, the selection its head runtime is built from
    (one per checkout and target: names are `[A-Za-z0-9][A-Za-z0-9_.-]*`, the config schema's pattern)."""
    return cmake.cache_dir() / "regenerated" / git.repo_key(head_root) / target / "selected_operators.yaml"


def _target_report(
    target: config.Target,
    regenerated: SelectedOps,
    head: Checkout,
    base: Checkout,
    base_sizes: dict[tuple[str, str], BaseMeasure | None],
    changed: list[str],
    work: Path,
    progress: Progress,
) -> TargetReport:
    work.mkdir(parents=True, exist_ok=True)
    checked_in_path = head.root / target.yaml
    loaded, yaml_error = _load_selection(checked_in_path)
    yaml_exists = loaded is not None or bool(yaml_error)
    # An unusable yaml is its own finding; diffing against nothing would bury it under every op.
    selection_diff = SelectionDiff() if yaml_error else stale.diff(loaded or SelectedOps(), regenerated)
    model_paths = [m.path.as_posix() for m in target.models]
    causes = stale.causes(selection_diff, changed, model_paths, head.kernel_files)
    new_models = tuple(p for p in model_paths if p in changed and not (base.root / p).exists())

    # A stable path in the bot's cache (never the PR's tree): the head's build directory is keyed by
    # it, so a rerun builds incrementally instead of from scratch.
    regenerated_yaml = regenerated_path(head.root, target.name)
    regenerated_yaml.parent.mkdir(parents=True, exist_ok=True)
    oplist.dump(regenerated, regenerated_yaml)
    sizes = []
    failures: dict[str, list[LoadFailure]] = {}
    for arch_name in target.architectures:
        arch = arches.get(arch_name)
        checked_in = checked_in_path if loaded is not None else None
        measured, ran = _arch_sizes(
            target, arch, regenerated_yaml, checked_in, head, base_sizes[(target.name, arch.name)], work, progress
        )
        sizes.append(measured)
        if loaded is not None and arch.runs_models and not measured.build_error:
            failures[arch.name] = ran
    return TargetReport(
        name=target.name,
        yaml=target.yaml.as_posix(),
        yaml_exists=yaml_exists,
        diff=selection_diff,
        causes=causes,
        load_failures=_merge_failures(failures),
        sizes=tuple(sizes),
        models_without_yaml=new_models,
        yaml_error=yaml_error,
    )
