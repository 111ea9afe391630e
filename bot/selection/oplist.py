"""The selected-operators yaml: the schema PyTorch and ExecuTorch use.

A `SelectedOps` is plain data. It is built from a `.pte` (static root ops),
from a trace (root and transitive ops with dtypes), or loaded from yaml;
`merge` combines several with the union semantics of torchgen's
combine_selective_builders; `dump` writes it sorted, so diffs stay minimal.

Our extensions stay inside the schema's free-form fields, so the files are
still accepted by ExecuTorch's tooling:
- `debug_info` of an op lists the models that use it and, for an op reached
  through the dispatcher, `called by <kernel>` entries; an op a kernel may
  call but no traced run reached also carries "reachable, not traced".
- `et_kernel_metadata` holds ExecuTorch kernel keys ("v1/<dtype>;<dim
  order>|..."), from which the dtype-selection header is generated.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path

import yaml

from bot.fileio import write_text_atomic
from bot.safety import safe_yaml
from bot.safety.limits import DEFAULT_LIMITS
from bot.safety.safe_files import UnsafeFileError, read_bytes
from bot.selection import pte, xnnpack
from bot.selection.kernel_library import KernelLibraryError, functions_yaml_entries

CALLED_BY = "called by "
NOT_TRACED = "reachable, not traced"  # a declared call no traced run reached
DEFAULT_KERNEL_KEY = "default"  # "all dtypes", as gen_oplist writes for ops without metadata
TOP_LEVEL_KEYS = (
    "build_features",
    "custom_classes",
    "et_kernel_metadata",
    "include_all_non_op_selectives",
    "include_all_operators",
    "kernel_metadata",
    "operators",
)
OPERATOR_KEYS = ("debug_info", "include_all_overloads", "is_root_operator", "is_used_for_training")

# .pte scalar type names to the ScalarType numbers used in kernel keys.
DTYPE_CODES = {name: code for code, name in pte.SCALAR_TYPES.items()}
DTYPE_NAMES = {code: name for name, code in DTYPE_CODES.items()}


class OplistError(ValueError):
    """A yaml that does not follow the schema; the message names file and key."""


@dataclass(frozen=True)
class Operator:
    is_root_operator: bool = True
    is_used_for_training: bool = True
    include_all_overloads: bool = False
    debug_info: tuple[str, ...] = ()

    def callers(self) -> tuple[str, ...]:
        return tuple(d.removeprefix(CALLED_BY) for d in self.debug_info if d.startswith(CALLED_BY))

    def models(self) -> tuple[str, ...]:
        return tuple(d for d in self.debug_info if not d.startswith(CALLED_BY) and d != NOT_TRACED)

    @property
    def traced(self) -> bool:
        return NOT_TRACED not in self.debug_info


@dataclass(frozen=True)
class SelectedOps:
    operators: dict[str, Operator] = field(default_factory=dict)
    et_kernel_metadata: dict[str, tuple[str, ...]] = field(default_factory=dict)
    kernel_metadata: dict[str, tuple[str, ...]] = field(default_factory=dict)
    include_all_operators: bool = False
    include_all_non_op_selectives: bool = False
    build_features: tuple[str, ...] = ()
    custom_classes: tuple[str, ...] = ()

    def names(self) -> set[str]:
        return set(self.operators)

    def dtypes(self, op: str) -> set[str] | None:
        """Dtype names the op must keep; None means all (no metadata or a "default" key)."""
        keys = self.et_kernel_metadata.get(op)
        if not keys or DEFAULT_KERNEL_KEY in keys:
            return None
        found: set[str] = set()
        for key in keys:
            for part in key.removeprefix("v1/").split("|"):
                code = part.split(";", 1)[0]
                if code.isdigit():
                    found.add(DTYPE_NAMES.get(int(code), f"ScalarType({code})"))
        return found


def kernel_key(tensors: Iterable[tuple[str, tuple[int, ...]]]) -> str:
    """ExecuTorch kernel key for tensors given as (dtype name, dim order)."""
    parts = [f"{DTYPE_CODES.get(dtype, -1)};{','.join(map(str, order))}" for dtype, order in tensors]
    # An op without tensor arguments (a prim op on sym ints) is "v1", as gen_oplist writes it.
    return "v1/" + "|".join(parts) if parts else "v1"


def from_program(program: pte.Program, model: str, method: str | None = None) -> SelectedOps:
    """Root operators of a program's methods (every method, or just `method`), with kernel keys of
    their tensor arguments.

    Matches gen_oplist: every operator in each plan's operator table is listed.
    """
    if method is None:
        return merge(from_program(program, model, plan.name) for plan in program.plans)
    plan = program.plan(method)

    def call_key(args: tuple[int, ...]) -> str:
        tensors: list[tuple[str, tuple[int, ...]]] = []
        for arg in args:
            value = plan.values[arg] if 0 <= arg < len(plan.values) else None
            if value is None:
                continue
            if value.kind == "Tensor":
                tensors.append(_described(value))
            elif value.kind in ("TensorList", "OptionalTensorList"):
                tensors.extend(_list_members(plan, value))
        return kernel_key(tensors)

    keys: dict[str, set[str]] = {op: set() for op in plan.operators}
    for op, found in plan.summarize_calls(call_key).items():
        keys[op] |= found
    operators = {op: Operator(debug_info=(model,)) for op in plan.operators}
    return SelectedOps(operators=operators, et_kernel_metadata={op: tuple(sorted(k)) for op, k in keys.items()})


def from_model(path: Path, model: str, limit: int = DEFAULT_LIMITS.model_bytes) -> SelectedOps:
    """A program file's static selection: what gen_oplist lists (the operators outside its delegates),
    and the node kinds inside its XNNPACK delegates as ops ("xnnpack::conv2d.f32"), read from the
    payloads without running anything. Raises pte.PteError (one line) for a file it cannot read."""
    static = from_program(pte.load(path, limit), model)
    kinds = xnnpack.program_node_kinds(path, limit=limit)
    return merge([static, from_root_ops(kinds, model)]) if kinds else static


def _described(tensor: pte.Value) -> tuple[str, tuple[int, ...]]:
    """(dtype, dim order) of a tensor value, as gen_oplist reads them (a program without a dim order is contiguous)."""
    return tensor.dtype or "", tensor.dim_order or tuple(range(len(tensor.sizes)))


def _list_members(plan: pte.ExecutionPlan, value: pte.Value) -> list[tuple[str, tuple[int, ...]]]:
    # gen_oplist describes a tensor list by its first member.
    member = plan.first_tensor(value.members)
    return [] if member is None else [_described(member)]


def from_root_ops(ops: Iterable[str], source: str) -> SelectedOps:
    return SelectedOps(
        operators={op: Operator(debug_info=(source,)) for op in ops},
        et_kernel_metadata={op: (DEFAULT_KERNEL_KEY,) for op in ops},
    )


def merge(selections: Iterable[SelectedOps]) -> SelectedOps:
    """Union, as torchgen's combine_selective_builders does it."""
    operators: dict[str, Operator] = {}
    et_meta: dict[str, set[str]] = {}
    kernel_meta: dict[str, set[str]] = {}
    result = SelectedOps()
    for sel in selections:
        for name, op in sel.operators.items():
            prev = operators.get(name)
            operators[name] = (
                op
                if prev is None
                else Operator(
                    is_root_operator=prev.is_root_operator or op.is_root_operator,
                    is_used_for_training=prev.is_used_for_training or op.is_used_for_training,
                    include_all_overloads=prev.include_all_overloads or op.include_all_overloads,
                    debug_info=tuple(sorted(set(prev.debug_info) | set(op.debug_info))),
                )
            )
        for name, keys in sel.et_kernel_metadata.items():
            et_meta.setdefault(name, set()).update(keys)
        for name, dtypes in sel.kernel_metadata.items():
            kernel_meta.setdefault(name, set()).update(dtypes)
        result = replace(
            result,
            include_all_operators=result.include_all_operators or sel.include_all_operators,
            include_all_non_op_selectives=result.include_all_non_op_selectives or sel.include_all_non_op_selectives,
            build_features=tuple(sorted(set(result.build_features) | set(sel.build_features))),
            custom_classes=tuple(sorted(set(result.custom_classes) | set(sel.custom_classes))),
        )
    return replace(
        result,
        operators={name: operators[name] for name in sorted(operators)},
        et_kernel_metadata={name: tuple(sorted(keys)) for name, keys in sorted(et_meta.items())},
        kernel_metadata={name: tuple(sorted(d)) for name, d in sorted(kernel_meta.items())},
    )


def to_dict(sel: SelectedOps) -> dict[str, object]:
    return {
        "build_features": list(sel.build_features),
        "custom_classes": list(sel.custom_classes),
        "et_kernel_metadata": {op: list(keys) for op, keys in sorted(sel.et_kernel_metadata.items())},
        "include_all_non_op_selectives": sel.include_all_non_op_selectives,
        "include_all_operators": sel.include_all_operators,
        "kernel_metadata": {tag: list(d) for tag, d in sorted(sel.kernel_metadata.items())},
        "operators": {
            name: {
                "debug_info": sorted(op.debug_info),
                "include_all_overloads": op.include_all_overloads,
                "is_root_operator": op.is_root_operator,
                "is_used_for_training": op.is_used_for_training,
            }
            for name, op in sorted(sel.operators.items())
        },
    }


def dumps(sel: SelectedOps) -> str:
    return yaml.safe_dump(to_dict(sel), default_flow_style=False, sort_keys=True)


def dump(sel: SelectedOps, path: Path) -> None:
    write_text_atomic(path, dumps(sel))


def _bool(value: object, where: str) -> bool:
    if not isinstance(value, bool):
        raise OplistError(f"{where} must be true or false, got {value!r}")
    return value


def _str_list(value: object, where: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list):
        raise OplistError(f"{where} must be a list")
    return tuple(str(v) for v in value)


def from_dict(data: object, source: str) -> SelectedOps:
    if data is None:
        return SelectedOps()
    if not isinstance(data, dict):
        raise OplistError(f"{source}: expected a mapping at the top level")
    unknown = set(data) - set(TOP_LEVEL_KEYS)
    if unknown:
        raise OplistError(f"{source}: unknown top-level key {sorted(unknown)[0]!r}")
    ops_data = data.get("operators") or {}
    if not isinstance(ops_data, dict):
        raise OplistError(f"{source}: 'operators' must be a mapping of operator name to details")
    operators: dict[str, Operator] = {}
    for name, info in ops_data.items():
        where = f"{source}: operators.{name}"
        if not isinstance(name, str) or "::" not in name:
            raise OplistError(f"{source}: operator name {name!r} is not of the form namespace::name.overload")
        info = info or {}
        if not isinstance(info, dict):
            raise OplistError(f"{where} must be a mapping")
        extra = set(info) - set(OPERATOR_KEYS) - {"name"}
        if extra:
            raise OplistError(f"{where}: unknown key {sorted(extra)[0]!r}")
        operators[name] = Operator(
            is_root_operator=_bool(info.get("is_root_operator", True), f"{where}.is_root_operator"),
            is_used_for_training=_bool(info.get("is_used_for_training", True), f"{where}.is_used_for_training"),
            include_all_overloads=_bool(info.get("include_all_overloads", True), f"{where}.include_all_overloads"),
            debug_info=_str_list(info.get("debug_info"), f"{where}.debug_info"),
        )
    meta: dict[str, dict[str, tuple[str, ...]]] = {}
    for key in ("et_kernel_metadata", "kernel_metadata"):
        raw = data.get(key) or {}
        if not isinstance(raw, dict):
            raise OplistError(f"{source}: '{key}' must be a mapping")
        meta[key] = {str(k): _str_list(v, f"{source}: {key}.{k}") for k, v in raw.items()}
    return SelectedOps(
        operators=operators,
        et_kernel_metadata=meta["et_kernel_metadata"],
        kernel_metadata=meta["kernel_metadata"],
        include_all_operators=_bool(data.get("include_all_operators", False), f"{source}: include_all_operators"),
        include_all_non_op_selectives=_bool(
            data.get("include_all_non_op_selectives", False), f"{source}: include_all_non_op_selectives"
        ),
        build_features=_str_list(data.get("build_features"), f"{source}: build_features"),
        custom_classes=_str_list(data.get("custom_classes"), f"{source}: custom_classes"),
    )


def loads(text: str | bytes, source: str, limit_bytes: int = DEFAULT_LIMITS.yaml_bytes) -> SelectedOps:
    try:
        data = safe_yaml.loads(text, source, limit_bytes)
    except safe_yaml.YamlError as exc:
        raise OplistError(str(exc)) from None
    return from_dict(data, source)


def _read(path: Path, limit_bytes: int) -> bytes:
    try:
        return read_bytes(Path(path), limit_bytes, "yaml")
    except UnsafeFileError as exc:
        raise OplistError(str(exc)) from None


def load(path: Path, limit_bytes: int = DEFAULT_LIMITS.yaml_bytes) -> SelectedOps:
    """A selected_operators.yaml: a regular file within the limit, read with the bounded loader."""
    return loads(_read(path, limit_bytes), str(path), limit_bytes)


def load_ops_yaml(path: Path, limit_bytes: int = DEFAULT_LIMITS.yaml_bytes) -> SelectedOps:
    """A selection from either a selected_operators.yaml or a functions.yaml-style list.

    The list form selects every op it names, as ExecuTorch's SELECT_OPS_YAML does.
    """
    source = str(path)
    try:
        data = safe_yaml.loads(_read(path, limit_bytes), source, limit_bytes)
    except safe_yaml.YamlError as exc:
        raise OplistError(str(exc)) from None
    if not isinstance(data, list):
        return from_dict(data, source)
    try:
        entries = functions_yaml_entries(data, Path(path))
    except KernelLibraryError as exc:
        raise OplistError(str(exc)) from None
    return from_root_ops([e.op for e in entries], source)
