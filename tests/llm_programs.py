"""The LLMs of the zoo (models/llm, exported by ExecuTorch's LLM exporter with `python -m models.export_llm`,
whose docstring tells the recipes), as tests take them: each program with its data files, its decode steps'
inputs and ExecuTorch's outputs for them; programs of the cache ops no recipe emits, exported here; and hostile
calls crafted from the `llama_sdpa` program.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from bot.feeds import FORWARD, classify
from models.export_llm import LLM_DIR, MAX_SEQ_LEN, PARAMS, STEPS, step_inputs

__all__ = ["LLM_DIR", "STEPS", "step_inputs"]


@dataclass(frozen=True)
class Exported:
    program: Path
    inputs: tuple[Path, ...]  # by step, then (tokens, input_pos): the runner's --steps order
    expected: tuple[tuple[np.ndarray, ...], ...]  # ExecuTorch's outputs per step
    data: tuple[Path, ...] = ()  # the program's .ptd files


def bundled() -> dict[str, Exported]:
    """Every program of models/llm, as the bot finds its files (bot/feeds.py)."""
    programs = {}
    for program in sorted(LLM_DIR.glob("*.pte")):
        found = classify(program.stem, LLM_DIR.glob(f"{program.stem}.*"))
        expected = tuple(tuple(np.load(p) for p in step) for step in found.expected[FORWARD])
        programs[program.stem] = Exported(program, found.inputs[FORWARD], expected, found.data)
    return programs


def run_executorch(program: Path, steps: list[tuple[np.ndarray, ...]]) -> tuple[tuple[np.ndarray, ...], ...]:
    """ExecuTorch's outputs of each step, executed in turn on one loaded method."""
    from models.export import reference_runs

    return tuple(reference_runs(program, {FORWARD: steps})[FORWARD])


def export_fused_attention(out_dir: Path) -> Exported:
    """A module calling llama::sdpa_with_kv_cache itself on its cache buffers: the fused op that no export_llama
    recipe of 1.5.1 emits, exported with to_edge (the op mutates the caches, so the program's outputs carry
    over between steps), with ExecuTorch's outputs for STEPS steps of one token each."""
    import torch
    from executorch.extension.llm.custom_ops import custom_ops  # noqa: F401
    from torch import nn

    heads, kv_heads, head_dim = 4, 2, 8

    class FusedAttention(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.register_buffer("k_cache", torch.zeros(1, MAX_SEQ_LEN, kv_heads, head_dim))
            self.register_buffer("v_cache", torch.zeros(1, MAX_SEQ_LEN, kv_heads, head_dim))
            self.q = nn.Linear(heads * head_dim, heads * head_dim)
            self.k = nn.Linear(heads * head_dim, kv_heads * head_dim)
            self.v = nn.Linear(heads * head_dim, kv_heads * head_dim)

        def forward(self, x: torch.Tensor, pos: torch.Tensor) -> torch.Tensor:
            b, s, _ = x.shape
            start = pos[0].item()
            torch._check_is_size(start)
            torch._check(start < MAX_SEQ_LEN)
            q = self.q(x).view(b, s, heads, head_dim)
            k = self.k(x).view(b, s, kv_heads, head_dim)
            v = self.v(x).view(b, s, kv_heads, head_dim)
            y = torch.ops.llama.sdpa_with_kv_cache(q, k, v, self.k_cache, self.v_cache, start, s, None, 0.0, True)
            return y.view(b, s, heads * head_dim)

    torch.manual_seed(0)
    feeds = [
        (np.random.default_rng(k).standard_normal((1, 1, heads * head_dim)).astype(np.float32), np.array([k]))
        for k in range(STEPS)
    ]
    return _export_stateful(FusedAttention().eval(), feeds, out_dir, "fused_attention")


def export_indexed_cache(out_dir: Path) -> Exported:
    """A module writing its cache with llama::update_cache_with_indices (each token at a position it is given,
    as a ring buffer would), returning the cache summed over positions, for STEPS steps of two tokens."""
    import torch
    from executorch.extension.llm.custom_ops import custom_ops  # noqa: F401
    from torch import nn

    class IndexedCache(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.register_buffer("cache", torch.zeros(1, 8, 2, 4))

        def forward(self, value: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
            torch.ops.llama.update_cache_with_indices(value, self.cache, 0, positions)
            return self.cache.sum(dim=1) + 0

    feeds = [
        (np.random.default_rng(k).standard_normal((1, 2, 2, 4)).astype(np.float32), np.array([[k, 7 - k]]))
        for k in range(STEPS)
    ]
    return _export_stateful(IndexedCache().eval(), feeds, out_dir, "indexed_cache")


def export_quantized_attention(out_dir: Path, tokens: int = 1) -> Exported:
    """A module calling llama::custom_quantized_sdpa itself, as export_llama --quantize_kv_cache does, on
    int8 caches it writes with llama::update_cache (values, scales and zero points), for STEPS steps of
    `tokens` tokens each: int8 q, k, v with per-row scales and zero points are its inputs, drawn over
    the whole int8 range. Grouped-query (4 query heads, 2 kv heads); three calls per step, each an output:
    causal at start_pos in [B, S, H, D], the same with is_seq_at_dim_2 in [B, H, S, D], and a Float mask
    [S, S_kv] with an explicit scale over the whole cache. More than four tokens take ExecuTorch's other
    value product (the int8 values dequantized, then a float GEMM)."""
    import torch
    from executorch.extension.llm.custom_ops import custom_ops  # noqa: F401
    from torch import nn

    heads, kv_heads, head_dim = 4, 2, 8
    # The cached rows and their params, each a buffer: name -> (last dim, dtype)
    cached = {
        "k": (head_dim, torch.int8),
        "k_zero_points": (1, torch.int8),
        "k_scales": (1, torch.float),
        "v": (head_dim, torch.int8),
        "v_zero_points": (1, torch.int8),
        "v_scales": (1, torch.float),
    }

    class QuantizedAttention(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            for name, (last, dtype) in cached.items():
                self.register_buffer(f"{name}_cache", torch.zeros(1, MAX_SEQ_LEN, kv_heads, last, dtype=dtype))

        def forward(self, *args: torch.Tensor) -> tuple[torch.Tensor, ...]:
            q, q_zero_points, q_scales, *new, pos, mask = args
            s = q.shape[1]
            start = pos[0].item()
            torch._check(start >= 0)
            torch._check(start + s <= MAX_SEQ_LEN)
            caches = [getattr(self, f"{name}_cache") for name in cached]
            for value, cache in zip(new, caches, strict=True):
                torch.ops.llama.update_cache(value, cache, start)
            k, k_zero_points, k_scales, v, v_zero_points, v_scales = caches
            params = (q_zero_points, q_scales, k_zero_points, k_scales, v_zero_points, v_scales)
            causal = torch.ops.llama.custom_quantized_sdpa(q, k, v, start, None, 0.0, True, None, *params, False)
            t = [x.transpose(1, 2).contiguous() for x in (q, k, v, *params)]
            by_head = torch.ops.llama.custom_quantized_sdpa(*t[:3], start, None, 0.0, True, None, *t[3:], True)
            masked = torch.ops.llama.custom_quantized_sdpa(q, k, v, 0, mask, 0.0, False, 0.3, *params, False)
            return causal, by_head, masked

    def feed(step: int) -> tuple[np.ndarray, ...]:
        rng = np.random.default_rng(step)

        def rows(h: int, d: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
            values = rng.integers(-128, 128, (1, tokens, h, d), dtype=np.int8)
            zero_points = rng.integers(-128, 128, (1, tokens, h, 1), dtype=np.int8)
            return values, zero_points, rng.uniform(0.002, 0.01, (1, tokens, h, 1)).astype(np.float32)

        positions = step * tokens + np.arange(tokens)[:, None]
        mask = rng.standard_normal((tokens, MAX_SEQ_LEN)).astype(np.float32)
        mask[np.arange(MAX_SEQ_LEN)[None, :] > positions] = -np.inf
        return (
            *rows(heads, head_dim),
            *rows(kv_heads, head_dim),
            *rows(kv_heads, head_dim),
            np.array([step * tokens]),
            mask,
        )

    feeds = [feed(k) for k in range(STEPS)]
    return _export_stateful(QuantizedAttention().eval(), feeds, out_dir, f"quantized_attention_{tokens}")


def _export_stateful(module: object, feeds: list[tuple[np.ndarray, ...]], out_dir: Path, name: str) -> Exported:
    """`module` (whose custom ops write its buffers) exported with to_edge into out_dir/<name>.pte, each step's
    inputs saved beside it, and ExecuTorch's outputs over the steps."""
    import torch
    from executorch.exir import EdgeCompileConfig, to_edge

    exported = torch.export.export(module, tuple(torch.from_numpy(a) for a in feeds[0]))
    out_dir.mkdir(parents=True, exist_ok=True)
    program = out_dir / f"{name}.pte"
    edge = to_edge(exported, compile_config=EdgeCompileConfig(_check_ir_validity=False))
    program.write_bytes(edge.to_executorch().buffer)
    paths = []
    for k, arrays in enumerate(feeds):
        for i, array in enumerate(arrays):
            paths.append(out_dir / f"{name}.step{k}.input{i}.npy")
            np.save(paths[-1], array)
    return Exported(program, tuple(paths), run_executorch(program, feeds))


# Hostile calls, crafted from the `llama_sdpa` program (the `llama_quant_kv` one for the ops of HOSTILE_RECIPES) with
# ExecuTorch's own serializer: each repoints one argument of one call at a value appended to the program (a
# start_pos no cache holds, None, or a tensor sharing a real tensor's memory with fewer elements or another
# dtype, so nothing is read past its buffer unless a kernel misses the check).
# name -> (op, argument index, the appended value's kind and what it is)
HOSTILE: dict[str, tuple[str, int, str, object]] = {
    "update_cache_start_pos_past_cache": ("llama::update_cache.out", 2, "int", MAX_SEQ_LEN),
    "update_cache_negative_start_pos": ("llama::update_cache.out", 2, "int", -1),
    "update_cache_fewer_heads": ("llama::update_cache.out", 1, "sizes", (None, None, 1, None)),
    "update_cache_wrong_dtype": ("llama::update_cache.out", 1, "dtype", "Half"),
    "custom_sdpa_start_pos_past_cache": ("llama::custom_sdpa.out", 3, "int", MAX_SEQ_LEN),
    "custom_sdpa_huge_start_pos": ("llama::custom_sdpa.out", 3, "int", (1 << 63) - 1),
    "custom_sdpa_mismatched_head_dims": ("llama::custom_sdpa.out", 1, "sizes", (None, None, None, 8)),
    "custom_sdpa_wrong_dtype": ("llama::custom_sdpa.out", 2, "dtype", "Half"),
    "linear_mismatched_k": ("aten::linear.out", 1, "sizes", (None, 32)),
    "linear_wrong_dtype": ("aten::linear.out", 1, "dtype", "Half"),
    "custom_quantized_sdpa_start_pos_past_cache": ("llama::custom_quantized_sdpa.out", 3, "int", MAX_SEQ_LEN),
    "custom_quantized_sdpa_byte_query": ("llama::custom_quantized_sdpa.out", 0, "dtype", "Byte"),
    "custom_quantized_sdpa_scales_fewer_heads": (
        "llama::custom_quantized_sdpa.out",
        11,
        "sizes",
        (None, None, 1, None),
    ),
    "custom_quantized_sdpa_no_v_scales": ("llama::custom_quantized_sdpa.out", 13, "none", None),
}
# The ops whose hostile calls are crafted from another recipe's program than `llama_sdpa`.
HOSTILE_RECIPES = {"llama::custom_quantized_sdpa.out": "llama_quant_kv"}


def hostile_recipe(name: str) -> str:
    """The recipe whose program the hostile call `name` is crafted from."""
    return HOSTILE_RECIPES.get(HOSTILE[name][0], "llama_sdpa")


def hostile(program: Path, name: str) -> bytes:
    """`program` (export_llama's recipe `hostile_recipe(name)`) with the hostile call `name` of HOSTILE."""
    import copy

    from executorch.exir import schema
    from executorch.exir._serialize import _program

    op, position, kind, what = HOSTILE[name]
    pte_file = _program.deserialize_pte_binary(program.read_bytes())
    plan = pte_file.program.execution_plan[0]
    index = next(i for i, o in enumerate(plan.operators) if f"{o.name}.{o.overload}" == op)
    call = next(
        ins.instr_args
        for ins in plan.chains[0].instructions
        if isinstance(ins.instr_args, schema.KernelCall) and ins.instr_args.op_index == index
    )
    if kind == "int":
        value = schema.EValue(schema.Int(int(what)))  # type: ignore[call-overload]
    elif kind == "none":
        value = schema.EValue(schema.Null())
    else:
        value = copy.deepcopy(plan.values[call.args[position]])
        tensor = value.val
        if kind == "sizes":
            tensor.sizes = [old if new is None else new for old, new in zip(tensor.sizes, what, strict=True)]  # type: ignore[call-overload]
        else:
            tensor.scalar_type = getattr(schema.ScalarType, str(what).upper())
    plan.values.append(value)
    call.args[position] = len(plan.values) - 1
    return bytes(_program.serialize_pte_binary(pte_file))


def with_bias(program: Path) -> bytes:
    """`program` (export_llama's `llama_kv` or `llama_sdpa`, whose linears have no bias) with a bias on every linear of
    `dim` outputs: a constant of the program with that one dim (an RMSNorm weight), so aten::linear.out's
    bias path runs on real shapes, with ExecuTorch's runtime as the reference as for the recipes."""
    from executorch.exir import schema
    from executorch.exir._serialize import _program

    pte_file = _program.deserialize_pte_binary(program.read_bytes())
    plan = pte_file.program.execution_plan[0]
    dim = PARAMS["dim"]
    bias = next(
        i
        for i, v in enumerate(plan.values)
        if isinstance(v.val, schema.Tensor) and list(v.val.sizes) == [dim] and v.val.data_buffer_idx > 0
    )
    linear = next(i for i, o in enumerate(plan.operators) if f"{o.name}.{o.overload}" == "aten::linear.out")
    changed = 0
    for instruction in plan.chains[0].instructions:
        call = instruction.instr_args
        if isinstance(call, schema.KernelCall) and call.op_index == linear:
            weight = plan.values[call.args[1]].val
            if weight.sizes[0] == dim:
                call.args[2] = bias
                changed += 1
    assert changed, "no linear with dim outputs"
    return bytes(_program.serialize_pte_binary(pte_file))
