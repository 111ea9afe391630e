"""`.selective-build.yml`: validated against the JSON Schema the repo ships."""

from __future__ import annotations

import dataclasses
import glob
import json
import re
from dataclasses import dataclass
from pathlib import Path

from bot import git
from bot.build import arch as arches
from bot.build import bundle
from bot.build.kernel_choice import KernelChoice
from bot.errors import BotError, ExitCode
from bot.feeds import FORWARD, MAX_STEPS, Feeds, classify
from bot.report import verdict
from bot.safety import bounded_walk, safe_yaml
from bot.safety.limits import DEFAULT_LIMITS, Limits
from bot.safety.safe_files import MissingFileError, UnsafeFileError, check_regular_file, inside_repo
from bot.selection.kernel_library import DEFAULT_SOURCES, KernelLibrary, KernelLibraryError, load_libraries

CONFIG_NAME = ".selective-build.yml"
DEFAULT_RUNTIME = "native"  # a runtime repo's own CMake project (else the bundled runtime)
DEFAULT_PORTABLE_LIBRARY = "kernels/portable/functions.yaml"
# The optimized library's folder sits beside the portable library's (kernels/optimized beside kernels/portable).
OPTIMIZED_LIBRARY = "optimized/functions.yaml"
SCHEMA_PATH = Path(__file__).resolve().parent / "schema" / "selective-build.schema.json"
MARCH = re.compile(r"[A-Za-z0-9][A-Za-z0-9.+_-]{0,63}")  # a cpu (-march value): the schema's pattern
OPS_LISTED = 8  # optimized ops an error message lists


@dataclass(frozen=True)
class Model:
    path: Path  # relative to the repo root
    inputs: tuple[Path, ...]  # forward's; empty: the runner generates inputs
    # Its data files (.ptd), other methods' inputs and steps (bot/feeds.py); paths relative to the repo root.
    feeds: Feeds = dataclasses.field(default_factory=Feeds)

    @property
    def name(self) -> str:
        return self.path.stem


@dataclass(frozen=True)
class Target:
    name: str
    models: tuple[Model, ...]
    yaml: Path
    dtype_selective: bool
    architectures: tuple[str, ...] = (arches.HOST.name,)  # names of bot/build/arch.py, in config order
    kernels: KernelChoice = dataclasses.field(default_factory=KernelChoice)  # size or speed: `kernels:` and `cpu:`
    # Its size limits (`size_limits:`, or `size_budget:` as a fail level's size), one per architecture that has any.
    gates: tuple[verdict.Gate, ...] = ()

    @property
    def external_data(self) -> bool:
        """Whether a model of the target keeps data outside its .pte (has a .ptd file): its runtime then
        needs the .ptd reader; without one, it is built without (SB_EXTERNAL_DATA=OFF)."""
        return any(model.feeds.data for model in self.models)

    def gate_for(self, arch: str | arches.Arch) -> verdict.Gate | None:
        """The size limits on `arch` (None: none there)."""
        name = arch if isinstance(arch, str) else arch.name
        return next((g for g in self.gates if g.arch == name), None)

    def budget_for(self, arch: str | arches.Arch) -> int | None:
        """The size budget on `arch`: its fail level's size (None: no budget there)."""
        gate = self.gate_for(arch)
        return gate.fail.size if gate is not None else None

    def arches(self) -> tuple[arches.Arch, ...]:
        return tuple(arches.get(name) for name in self.architectures)


@dataclass(frozen=True)
class Config:
    root: Path
    runtime_source: Path
    kernel_libraries: tuple[Path, ...]
    oplist_dir: Path
    include: str  # "static" (default): also select what kernels may call; "traced": only what runs
    fail_on_stale: bool
    fail_on_budget: bool
    targets: tuple[Target, ...]
    limits: Limits = DEFAULT_LIMITS
    noise_floor: int = verdict.DEFAULT_NOISE_FLOOR  # bytes: a smaller size change reads "unchanged"
    # The repo has no runtime of its own: runtime_source (absolute) and the first kernel library
    # are the tool's bundled ones (bot/build/bundle.py), trusted and exempt from the repo-path confinement.
    bundled_runtime: bool = False
    # Source globs of the kernel_libraries entries that name them ({yaml: ..., sources: [...]}), by yaml.
    library_sources: tuple[tuple[Path, tuple[str, ...]], ...] = ()

    def libraries(self) -> tuple[KernelLibrary, ...]:
        """The kernel libraries with their sources; the runtime's own portable library is marked
        (its CMake project compiles it; the others reach the build as options, bot/build/cmake.py)."""
        portable = ((self.root / self.runtime_source).parent / DEFAULT_PORTABLE_LIBRARY).resolve()
        globs = dict(self.library_sources)
        return tuple(
            KernelLibrary(
                path,
                globs.get(path, DEFAULT_SOURCES),
                portable=(self.root / path).resolve() == portable,
                limits=self.limits,
            )
            for path in self.kernel_libraries
        )

    def runtime_label(self) -> str:
        """Which runtime builds use, as the report names it."""
        return bundle.describe() if self.bundled_runtime else bundle.describe_own(self.runtime_source)

    def policy(self) -> verdict.Policy:
        """What fails a PR, as this config sets it (the verdict applies the base branch's)."""
        return verdict.Policy(
            fail_on_stale=self.fail_on_stale,
            fail_on_budget=self.fail_on_budget,
            gates=tuple(g for t in self.targets for g in t.gates),
            noise_floor=self.noise_floor,
        )

    def trusted(self, path: Path) -> bool:
        """Whether `path` is one of the tool's own bundled files (not PR-controlled)."""
        return self.bundled_runtime and path.is_absolute() and bundle.contains(path)

    def target(self, name: str) -> Target:
        for target in self.targets:
            if target.name == name:
                return target
        known = ", ".join(t.name for t in self.targets)
        raise BotError(f"no target named {name!r} in {CONFIG_NAME} (targets: {known})", ExitCode.CONFIG)

    def models(self) -> list[Model]:
        """Every model of every target, once, in a stable order."""
        seen: dict[Path, Model] = {}
        for target in self.targets:
            for model in target.models:
                seen.setdefault(model.path, model)
        return [seen[p] for p in sorted(seen)]

    def per_model_yaml(self, model: Model) -> Path:
        return self.oplist_dir / f"{model.name}.yaml"


def _field_path(error_path: list[object]) -> str:
    text = ""
    for part in error_path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "(top level)"


def _shown(value: object, limit: int = 80) -> str:
    """A config value in an error message: its repr, capped."""
    shown = repr(value)
    return shown if len(shown) <= limit else shown[: limit - 1] + "…"


def validate(data: object, source: str) -> None:
    import jsonschema

    schema = json.loads(SCHEMA_PATH.read_text())
    validator = jsonschema.Draft202012Validator(schema)
    errors = sorted(validator.iter_errors(data), key=lambda e: (len(e.absolute_path), list(map(str, e.path))))
    if errors:
        error = errors[0]
        # oneOf failures are clearer through their closest sub-error.
        best = jsonschema.exceptions.best_match([error]) if error.context else error
        where = _field_path(list(best.absolute_path))
        message = best.message
        if best.validator == "enum" and best.validator_value == list(arches.ARCHES):
            message = f"unknown architecture {best.instance!r} (known: {', '.join(arches.ARCHES)})"
        if best.validator == "pattern" and "sources" in best.absolute_path:
            message = f"{best.instance!r} is not a glob inside the library's folder (no leading '/', no '..', no ';')"
        path = list(best.absolute_path)
        target_field = path[2] if len(path) > 2 and path[0] == "targets" else None
        if target_field == "size_limits" and len(path) == 3 and isinstance(best.instance, str):
            message = (
                f"unknown key {_shown(best.instance)}: a level (warn, fail) or an architecture "
                f"(known: {', '.join(arches.ARCHES)})"
            )
        elif target_field == "size_limits" and best.validator == "additionalProperties":
            known = list(best.schema.get("properties", {}))
            unknown = next((key for key in best.instance if key not in known), "")
            what = "limit" if path[-1] in verdict.LEVELS else "key"
            message = f"unknown {what} {_shown(unknown)} (known: {', '.join(known)})"
        if target_field == "kernels" and len(path) == 3:
            message = f"{_shown(best.instance)} is not a kernel choice: portable, optimized, or {{optimized: [ops]}}"
        elif target_field == "kernels" and best.validator == "pattern":
            message = f"{_shown(best.instance)} is not an operator name (namespace::name.overload, e.g. aten::relu.out)"
        elif target_field == "cpu" and best.validator == "pattern":
            message = f"{_shown(best.instance)} is not a -march value (e.g. x86-64-v3; letters, digits, . + _ -)"
        raise BotError(f"{source}: {where}: {message}", ExitCode.CONFIG)


def _confined(root: Path, path: Path, where: str) -> Path:
    try:
        return inside_repo(root, path, where)
    except UnsafeFileError as exc:
        raise BotError(f"{CONFIG_NAME}: {exc}", ExitCode.CONFIG) from None


def _model(root: Path, item: str | dict, where: str, limits: Limits) -> Model:
    """A model entry: its explicit inputs, data, methods and steps, and the rest found by name beside it
    (bot/feeds.py)."""
    path = Path(item if isinstance(item, str) else item["path"])
    spec = {} if isinstance(item, str) else item
    _confined(root, path, where)  # before listing its directory
    stem = glob.escape(path.stem)
    beside = bounded_walk.glob(
        (root / path).parent,
        [f"{stem}.*.npy", f"{stem}.ptd", f"{stem}.*.ptd"],
        f"{CONFIG_NAME}: {where}: inputs beside {path}",
        limits,
    )
    found = classify(path.stem, (p.relative_to(root) for p in beside))
    methods = dict(found.inputs)
    methods.update({name: tuple(Path(p) for p in paths) for name, paths in spec.get("methods", {}).items()})
    inputs = tuple(Path(p) for p in spec.get("inputs", ())) or methods.pop(FORWARD, ())
    methods.pop(FORWARD, None)
    data = tuple(Path(p) for p in spec["data"]) if "data" in spec else found.data
    steps = spec.get("steps", found.steps)
    if not 1 <= steps <= MAX_STEPS:
        raise BotError(f"{CONFIG_NAME}: {where}.steps: {steps} steps, not between 1 and {MAX_STEPS}", ExitCode.CONFIG)
    return Model(path, inputs, Feeds(data=data, method_inputs=tuple(sorted(methods.items())), steps=steps))


def _architectures(names: list[str], where: str) -> tuple[str, ...]:
    """Known architecture names, each once (the schema has checked the shape)."""
    for name in names:
        if name not in arches.ARCHES:
            known = ", ".join(arches.ARCHES)
            raise BotError(f"{CONFIG_NAME}: {where}: unknown architecture {name!r} (known: {known})", ExitCode.CONFIG)
    return tuple(dict.fromkeys(names))


def _only_target_arches(per_arch: dict, field: str, what: str, done: str, target_arches: tuple[str, ...]) -> None:
    """A per-architecture setting may only name architectures the target is built for."""
    extra = [arch for arch in per_arch if arch not in target_arches]
    if extra:
        raise BotError(
            f"{CONFIG_NAME}: {field}: {what} for {', '.join(extra)}, which the target is not {done} for "
            f"(its architectures: {', '.join(target_arches)})",
            ExitCode.CONFIG,
        )


def _level(spec: dict) -> verdict.Level:
    """A level from its config entry (the schema has checked it); byte figures as integers (YAML's 5.0 is 5)."""
    percent = spec.get("growth_percent")
    return verdict.Level(
        **{m: int(spec[m]) for m in ("size", "growth", "op_growth") if m in spec},
        growth_percent=float(percent) if percent is not None else None,
    )


def _warn_below_fail(arch: str, warn: verdict.Level, fail: verdict.Level, keys: dict[tuple[str, str], str]) -> None:
    """A warn level is met before its fail level: a warn limit above the fail limit of the same measure is an
    error naming both keys (`keys`: where each limit of `arch` is set, by level and measure)."""
    for measure in verdict.MEASURES:
        low, high = warn.get(measure), fail.get(measure)
        if low is not None and high is not None and low > high:
            low_key, high_key = keys[("warn", measure)], keys[("fail", measure)]
            on = "" if f".size_limits.{arch}." in low_key + high_key else f" on {arch}"
            raise BotError(
                f"{CONFIG_NAME}: {low_key}: {low:,} is above the fail level's {high:,} ({high_key}{on}); "
                "a warn level must not be above its fail level",
                ExitCode.CONFIG,
            )


def _gates(name: str, spec: dict, where: str, target_arches: tuple[str, ...]) -> tuple[verdict.Gate, ...]:
    """The target's size limits per architecture: `size_limits` (its levels; an architecture's own, under its
    name, override them limit by limit), or the `size_budget` short form (a fail level's size, for every
    architecture or per architecture)."""
    if "size_budget" in spec and "size_limits" in spec:
        raise BotError(
            f"{CONFIG_NAME}: {where}: both size_budget and size_limits are set; size_budget is the short form of "
            "size_limits: {fail: {size: N}}: move it there",
            ExitCode.CONFIG,
        )
    budget = spec.get("size_budget")
    if budget is not None:
        if isinstance(budget, dict):
            _architectures(list(budget), f"{where}.size_budget")
            _only_target_arches(budget, f"{where}.size_budget", "a budget", "measured", target_arches)
        per_arch = budget if isinstance(budget, dict) else dict.fromkeys(target_arches, budget)
        return verdict.budgets((name, arch, int(per_arch[arch])) for arch in target_arches if arch in per_arch)
    limits = spec.get("size_limits", {})
    own = {key: value for key, value in limits.items() if key not in verdict.LEVELS}
    _only_target_arches(own, f"{where}.size_limits", "limits", "measured", target_arches)
    gates = []
    for arch in target_arches:
        levels, keys = {}, {}
        for level in verdict.LEVELS:
            mine = own.get(arch, {}).get(level, {})
            merged = {**limits.get(level, {}), **mine}
            for measure in verdict.MEASURES:
                keys[(level, measure)] = f"{where}.size_limits{f'.{arch}' if measure in mine else ''}.{level}.{measure}"
            levels[level] = _level(merged)
        _warn_below_fail(arch, levels["warn"], levels["fail"], keys)
        if levels["warn"].limited() or levels["fail"].limited():
            gates.append(verdict.Gate(name, arch, warn=levels["warn"], fail=levels["fail"]))
    return tuple(gates)


def from_dict(data: dict, root: Path) -> Config:
    limits = Limits.from_config(data.get("limits"))
    targets = []
    default_arches = _architectures(data.get("architectures", [arches.HOST.name]), "architectures")
    for name, spec in data["targets"].items():
        models = []
        for index, item in enumerate(spec["models"]):
            models.append(_model(root, item, f"targets.{name}.models[{index}]", limits))
        where = f"targets.{name}"
        target_arches = (
            _architectures(spec["architectures"], f"{where}.architectures")
            if "architectures" in spec
            else default_arches
        )
        gates = _gates(name, spec, where, target_arches)
        kernels = spec.get("kernels", "portable")
        cpu = spec.get("cpu", {})
        if cpu and kernels == "portable":
            raise BotError(
                f"{CONFIG_NAME}: {where}.cpu: a cpu is the -march of the optimized kernels, and the target's "
                "kernels are portable (add kernels: optimized, or drop cpu)",
                ExitCode.CONFIG,
            )
        _only_target_arches(cpu, f"{where}.cpu", "a cpu", "built", target_arches)
        targets.append(
            Target(
                name=name,
                models=tuple(models),
                yaml=Path(spec["yaml"]),
                dtype_selective=spec.get("dtype_selective", True),
                architectures=target_arches,
                kernels=KernelChoice(
                    optimized=kernels != "portable",
                    ops=tuple(kernels["optimized"]) if isinstance(kernels, dict) else (),
                    cpus=tuple(sorted(cpu.items())),
                ),
                gates=gates,
            )
        )
    runtime = data.get("runtime", {})
    fail_on = data.get("fail_on", {})
    own_runtime = "source_dir" in runtime or (root / DEFAULT_RUNTIME / "CMakeLists.txt").is_file()
    entries = data.get("kernel_libraries", [])
    declared = tuple(Path(p if isinstance(p, str) else p["yaml"]) for p in entries)
    library_sources = tuple((Path(p["yaml"]), tuple(p["sources"])) for p in entries if isinstance(p, dict))
    # An app repo builds the bundled runtime and portable library; its own libraries add to them.
    bundled = (bundle.portable_library(), *declared)
    libraries = (declared or (Path(DEFAULT_PORTABLE_LIBRARY),)) if own_runtime else bundled
    return Config(
        root=root,
        runtime_source=Path(runtime.get("source_dir", DEFAULT_RUNTIME)) if own_runtime else bundle.runtime_dir(),
        kernel_libraries=libraries,
        bundled_runtime=not own_runtime,
        library_sources=library_sources,
        oplist_dir=Path(data.get("oplist_dir", "oplist")),
        include=data.get("include", "static"),
        fail_on_stale=fail_on.get("stale", True),
        fail_on_budget=fail_on.get("budget", True),
        targets=tuple(targets),
        limits=limits,
        noise_floor=int(data.get("noise_floor", verdict.DEFAULT_NOISE_FLOOR)),  # YAML's 8.0 is 8
    )


def check_paths(config: Config) -> None:
    """Every path the config names, and every path derived from it, stays inside the repo;
    models and inputs are regular files within the limits."""
    root = config.root
    if not config.trusted(config.runtime_source):
        _confined(root, config.runtime_source, "runtime.source_dir")
    app_libraries = [p for p in config.kernel_libraries if not config.trusted(p)]
    for index, library in enumerate(app_libraries):
        _confined(root, library, f"kernel_libraries[{index}]")
    _confined(root, config.oplist_dir, "oplist_dir")
    for target in config.targets:
        _confined(root, target.yaml, f"targets.{target.name}.yaml")
        for index, model in enumerate(target.models):
            where = f"targets.{target.name}.models[{index}]"
            _confined(root, config.per_model_yaml(model), f"{where} (its per-model yaml)")
            files = [(model.path, config.limits.model_bytes, "a model", where)]
            files += [
                (path, config.limits.npy_bytes, "an input", f"{where}.inputs[{number}]")
                for number, path in enumerate(model.inputs)
            ]
            files += [
                (path, config.limits.model_bytes, "a data file", f"{where}.data[{number}]")
                for number, path in enumerate(model.feeds.data)
            ]
            files += [
                (path, config.limits.npy_bytes, "an input", f"{where}.methods.{method}[{number}]")
                for method, paths in model.feeds.method_inputs
                for number, path in enumerate(paths)
            ]
            for file, limit, what, field in files:
                _confined(root, file, field)
                try:
                    check_regular_file(root / file, limit, what, shown_as=str(file))
                except MissingFileError:
                    raise BotError(
                        f"{CONFIG_NAME}: targets.{target.name}: {file} does not exist", ExitCode.CONFIG
                    ) from None
                except UnsafeFileError as exc:
                    raise BotError(f"{CONFIG_NAME}: {field}: {exc}", ExitCode.CONFIG) from None


def optimized_library(config: Config) -> Path | None:
    """The runtime's optimized kernel library (kernels/optimized/functions.yaml, its folder beside the
    portable library's kernels/portable), None when the runtime has none."""
    portable = next((lib for lib in config.libraries() if lib.portable), None)
    if portable is None:
        return None
    path = (config.root / portable.yaml).parent.parent / OPTIMIZED_LIBRARY
    return path if path.is_file() else None


def companion_libraries(config: Config) -> list[Path]:
    """The libraries the runtime compiles beside its portable one (kernels/portable), the ones it has:
    its delegate node kinds (kernels/xnnpack), ExecuTorch's quantized library (kernels/quantized),
    its LLM custom ops (kernels/llm) and the prim ops (kernels/prim)."""
    portable = next((lib for lib in config.libraries() if lib.portable), None)
    if portable is None:
        return []
    kernels_dir = (config.root / portable.yaml).parent.parent
    found = [kernels_dir / library.relative_to("kernels") for library in bundle.COMPANION_LIBRARIES]
    return [path for path in found if path.is_file()]


def selection_libraries(config: Config) -> list[Path]:
    """Every functions.yaml a selection resolves against: the config's libraries, then the runtime's
    companion libraries (node kinds, quantized, LLM ops, prim ops)."""
    declared = [config.root / p for p in config.kernel_libraries]
    listed = {path.resolve() for path in declared}
    return declared + [path for path in companion_libraries(config) if path.resolve() not in listed]


def check_kernel_choice(config: Config) -> None:
    """Every target that asks for optimized kernels gets them: the runtime has an optimized library,
    and every op a target names is one that library has a kernel for."""
    chosen = [t for t in config.targets if t.kernels.optimized]
    if not chosen:
        return
    library = optimized_library(config)
    if library is None:
        where = f"targets.{chosen[0].name}.kernels"
        raise BotError(
            f"{CONFIG_NAME}: {where}: the runtime has no optimized kernel library ({OPTIMIZED_LIBRARY} "
            "beside its portable library's folder)",
            ExitCode.CONFIG,
        )
    try:
        known = load_libraries([library], config.limits.yaml_bytes)
    except KernelLibraryError as exc:
        raise BotError(f"{CONFIG_NAME}: the optimized kernel library: {exc}", ExitCode.CONFIG) from None
    for target in chosen:
        for index, op in enumerate(target.kernels.ops):
            if op not in known:
                shown = sorted(known)[:OPS_LISTED]
                more = f", … ({len(known)} in all)" if len(known) > OPS_LISTED else ""
                raise BotError(
                    f"{CONFIG_NAME}: targets.{target.name}.kernels.optimized[{index}]: the optimized kernel library "
                    f"has no kernel for {op} (it has: {', '.join(shown) or 'none'}{more})",
                    ExitCode.CONFIG,
                )


def policy_at(root: Path, commit: str) -> verdict.Policy:
    """The policy of the config `commit` holds: the base branch's, which judges a PR. A commit without a
    usable config gets the defaults (fail on stale yaml and on budgets; no budgets). `root` holds the config."""
    text = git.show(root, commit, f"./{CONFIG_NAME}", DEFAULT_LIMITS.yaml_bytes)  # ./: beside `repo`, not the top
    if text is None:
        return verdict.Policy()
    try:
        data = safe_yaml.loads(text, f"{CONFIG_NAME} at {commit[:12]}")
        validate(data, CONFIG_NAME)
        assert isinstance(data, dict)
        return from_dict(data, root).policy()
    except (safe_yaml.YamlError, BotError):
        return verdict.Policy()


def load(root: Path) -> Config:
    path = root / CONFIG_NAME
    try:
        inside_repo(root, CONFIG_NAME, "config file")
        data = safe_yaml.load_file(path, DEFAULT_LIMITS.yaml_bytes, shown_as=str(path))
    except MissingFileError:
        raise BotError(f"{path}: no config file (create {CONFIG_NAME} at the repo root)", ExitCode.CONFIG) from None
    except (UnsafeFileError, safe_yaml.YamlError) as exc:
        raise BotError(str(exc), ExitCode.CONFIG) from None
    validate(data, CONFIG_NAME)
    config = from_dict(data, root)
    check_paths(config)
    check_kernel_choice(config)
    return config
