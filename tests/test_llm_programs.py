"""The zoo's LLMs (models/llm, from ExecuTorch's LLM exporter; tests/llm_programs.py) run on our runtime:
every decode step matches ExecuTorch's runtime on the logits, with the weights in a .ptd too, the static
op list equals gen_oplist's, a selective runtime built from the program's own yaml compiles the LLM custom
ops (kernels/llm) and runs it, execute stays off the heap across steps, and hostile calls to
aten::linear.out and the custom ops are one error line, clean under the sanitizers."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from bot.build import cmake
from bot.build.runner import run_model
from bot.feeds import Feeds
from bot.selection import oplist, pte, trace
from tests import llm_programs as lp
from tests.test_oplist import assert_static_oplist_is_gen_oplist
from tests.test_runtime_sanitized import SANITIZED, assert_no_report

LLMS = lp.bundled()
NAMES = tuple(LLMS)
TOLERANCE = 1e-4
# llama::custom_quantized_sdpa.out on its own: it sums as ExecuTorch's int8 kernels do (float rounding apart).
ATTENTION_ATOL, ATTENTION_RTOL = 1e-6, 1e-5


@pytest.fixture(scope="session")
def llms() -> dict[str, lp.Exported]:
    return LLMS


def test_the_programs_are_the_exporter_s_recipes() -> None:
    from models.export_llm import RECIPES

    assert sorted(RECIPES) == sorted(NAMES)
    for program in LLMS.values():
        assert len(program.inputs) == 2 * lp.STEPS and len(program.expected) == lp.STEPS, program.program
    assert [p.data for p in LLMS.values() if p.data] == [(lp.LLM_DIR / "llama_q8da4w_ptd.ptd",)]


def _args(program: lp.Exported) -> list[str]:
    """The runner's arguments of every step of `program`: its data files and inputs."""
    return [a for p in program.data for a in ("--data", str(p))] + [
        a for p in program.inputs for a in ("--input", str(p))
    ]


def _assert_steps_match(
    step_outputs: tuple[list[np.ndarray], ...], program: lp.Exported, atol: float = TOLERANCE, rtol: float = TOLERANCE
) -> None:
    assert len(step_outputs) == len(program.expected) == lp.STEPS
    for ours, theirs in zip(step_outputs, program.expected, strict=True):
        assert len(ours) == len(theirs)
        for a, b in zip(ours, theirs, strict=True):
            assert a.shape == b.shape and a.dtype == b.dtype
            np.testing.assert_allclose(a, b, atol=atol, rtol=rtol)
    # The cache carried over: every step's logits differ from the first's.
    assert not any(np.allclose(step[0], step_outputs[0][0]) for step in step_outputs[1:])


@pytest.mark.parametrize("name", NAMES)
def test_every_decode_step_equals_executorch(
    name: str, llms: dict[str, lp.Exported], runner: Path, tmp_path: Path
) -> None:
    program = llms[name]
    result = run_model(runner, program.program, list(program.inputs), tmp_path, data=program.data, steps=lp.STEPS)
    _assert_steps_match(result.step_outputs, program)


# A half-precision program -> its fp32 twin (the same recipe and checkpoint in fp32)
HALF_PRECISION = {"llama_sdpa_fp16": "llama_sdpa"}


@pytest.mark.parametrize("name", sorted(HALF_PRECISION))
def test_half_precision_is_no_further_from_fp32_than_executorch(
    name: str, llms: dict[str, lp.Exported], runner: Path, tmp_path: Path
) -> None:
    """On every decode step, our Half logits are no further from the fp32 program's (ExecuTorch's) than
    ExecuTorch's own Half logits are."""
    program, twin = llms[name], llms[HALF_PRECISION[name]]
    result = run_model(runner, program.program, list(program.inputs), tmp_path, data=program.data, steps=lp.STEPS)
    for ours, theirs, fp32 in zip(result.step_outputs, program.expected, twin.expected, strict=True):
        assert ours[0].dtype == theirs[0].dtype == np.float16 and fp32[0].dtype == np.float32
        ours_off = np.max(np.abs(ours[0].astype(np.float64) - fp32[0]))
        theirs_off = np.max(np.abs(theirs[0].astype(np.float64) - fp32[0]))
        assert ours_off <= theirs_off, (ours_off, theirs_off)


@pytest.mark.parametrize(
    ("make", "op"),
    [
        (lp.export_fused_attention, "llama::sdpa_with_kv_cache.out"),
        (lp.export_indexed_cache, "llama::update_cache_with_indices.out"),
    ],
)
def test_the_cache_ops_no_recipe_emits_equal_executorch(
    make: Callable[[Path], lp.Exported], op: str, runner: Path, tmp_path: Path
) -> None:
    """llama::sdpa_with_kv_cache.out (both cache writes and the attention in one op) and
    llama::update_cache_with_indices.out, each in a program of its own, over STEPS steps on one loaded
    method: the caches they write carry over, and every step matches ExecuTorch."""
    program = make(tmp_path / "program")
    assert op in pte.load(program.program).plans[0].operators
    result = run_model(runner, program.program, list(program.inputs), tmp_path / "out", steps=lp.STEPS)
    _assert_steps_match(result.step_outputs, program)


@pytest.mark.parametrize("tokens", [1, 6])
def test_quantized_attention_equals_executorch(tokens: int, runner: Path, tmp_path: Path) -> None:
    """llama::custom_quantized_sdpa.out called by a module of its own (lp.export_quantized_attention) on int8
    caches over STEPS steps of `tokens` tokens: causal, by head (is_seq_at_dim_2) and masked, grouped-query,
    one token (ExecuTorch's int8 value product) and six (its dequantize-then-GEMM one). The kernel sums as
    ExecuTorch's int8 kernels do, so it stays within float rounding of them: 1e-5 relative, well inside
    the recipes' tolerance."""
    program = lp.export_quantized_attention(tmp_path / "program", tokens)
    assert "llama::custom_quantized_sdpa.out" in pte.load(program.program).plans[0].operators
    result = run_model(runner, program.program, list(program.inputs), tmp_path / "out", steps=lp.STEPS)
    _assert_steps_match(result.step_outputs, program, atol=ATTENTION_ATOL, rtol=ATTENTION_RTOL)


@pytest.fixture(scope="session")
def biased(llms: dict[str, lp.Exported], tmp_path_factory: pytest.TempPathFactory) -> lp.Exported:
    """The llama_kv program with a bias on its linears of dim outputs (lp.with_bias), ExecuTorch's outputs too."""
    model = tmp_path_factory.mktemp("llm_bias") / "kv_bias.pte"
    model.write_bytes(lp.with_bias(llms["llama_kv"].program))
    feeds = [lp.step_inputs(k) for k in range(lp.STEPS)]
    return lp.Exported(model, llms["llama_kv"].inputs, lp.run_executorch(model, feeds))


@pytest.fixture(scope="module")
def optimized_runner() -> Path:
    """Every op, the optimized kernels preferred (aten::linear.out's on the packed GEMM), for AVX2 as
    tests/test_optimized.py builds them (without a cpu the x86-64 baseline cannot build the vector code)."""
    return cmake.runner_path(cmake.build(cmake.optimized_all_ops("x86-64-v3")))


def test_linear_bias_equals_executorch(biased: lp.Exported, runner: Path, tmp_path: Path) -> None:
    result = run_model(runner, biased.program, list(biased.inputs), tmp_path, steps=lp.STEPS)
    _assert_steps_match(result.step_outputs, biased)


@pytest.mark.parametrize("name", [*NAMES, "kv_bias"])
def test_optimized_kernels_equal_executorch(
    name: str, llms: dict[str, lp.Exported], biased: lp.Exported, optimized_runner: Path, tmp_path: Path
) -> None:
    program = biased if name == "kv_bias" else llms[name]
    result = run_model(
        optimized_runner, program.program, list(program.inputs), tmp_path, data=program.data, steps=lp.STEPS
    )
    _assert_steps_match(result.step_outputs, program)


def test_recipes_emit_the_ops_they_are_for(llms: dict[str, lp.Exported]) -> None:
    ops = {name: set(oplist.from_program(pte.load(p.program), name).operators) for name, p in llms.items()}
    assert "aten::linear.out" in ops["llama_kv"] and not any(op.startswith("llama::") for op in ops["llama_kv"])
    assert {"aten::linear.out", "llama::custom_sdpa.out", "llama::update_cache.out"} <= ops["llama_sdpa"]
    # -X delegates the quantized linears: what stays is the custom ops around them.
    for name in ("llama_q8da4w", "llama_q8da4w_ptd"):
        assert "aten::linear.out" not in ops[name]
        assert {"llama::custom_sdpa.out", "llama::update_cache.out"} <= ops[name]
    # --quantize_kv_cache: int8 caches, the query quantized per token, the int8 attention.
    assert {
        "llama::custom_quantized_sdpa.out",
        "llama::update_cache.out",
        "quantized_decomposed::choose_qparams_per_token_asymmetric.out",
        "quantized_decomposed::quantize_per_token.out",
    } <= ops["llama_quant_kv"]
    assert "llama::custom_sdpa.out" not in ops["llama_quant_kv"]


@pytest.mark.parametrize("name", NAMES)
def test_static_oplist_equals_gen_oplist(name: str, llms: dict[str, lp.Exported], tmp_path: Path) -> None:
    assert_static_oplist_is_gen_oplist(llms[name].program, tmp_path)


# program -> the kernels/llm sources a runtime selected for it compiles
SELECTED_LLM_SOURCES = {
    "llama_sdpa": {"op_custom_sdpa.cpp", "op_update_cache.cpp"},
    "llama_quant_kv": {"op_custom_quantized_sdpa.cpp", "op_update_cache.cpp"},
}


@pytest.mark.parametrize("name", sorted(SELECTED_LLM_SOURCES))
def test_selective_runtime_from_the_programs_traced_yaml_runs_it(
    name: str, llms: dict[str, lp.Exported], tmp_path: Path
) -> None:
    """`bot oplist --trace` over every decode step of the program: its yaml names the llama:: ops and what
    the kernels call; the build finds them in kernels/llm and compiles just the selected kernels
    (dtype-selective, as the bot builds targets: the int8 attention keeps its Float out), and that runtime
    runs every step."""
    program = llms[name]
    selection = trace.trace_model(
        trace.tracer_runner(), program.program, list(program.inputs), name, feeds=Feeds(steps=lp.STEPS)
    )
    assert {"llama::update_cache.out", "aten::linear.out"} <= set(selection.operators)
    path = tmp_path / name / "selected_operators.yaml"
    path.parent.mkdir()
    oplist.dump(selection, path)
    build = cmake.build(cmake.selective_flavour(path))
    sources = (build / "sb_selected_kernels" / "selected_sources.txt").read_text().splitlines()
    compiled = {Path(s).name for s in sources if "/kernels/llm/" in s}
    assert compiled == SELECTED_LLM_SOURCES[name]
    result = run_model(cmake.runner_path(build), program.program, list(program.inputs), tmp_path, steps=lp.STEPS)
    _assert_steps_match(result.step_outputs, program)


def test_execute_does_not_allocate_across_decode_steps(llms: dict[str, lp.Exported], all_ops_build: Path) -> None:
    specs = []
    for name in NAMES:
        program = llms[name]
        paths = [str(p) for p in program.inputs]
        model = "+".join(map(str, (program.program, *program.data)))
        specs.append(f"{model}=" + ";".join(",".join(paths[k : k + 2]) for k in range(0, len(paths), 2)))
    proc = subprocess.run([str(all_ops_build / "execute_alloc_test"), *specs], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert [line.rsplit("=", 1)[1] for line in proc.stdout.splitlines()] == ["0"] * len(specs)


EXPECTED_ERRORS = {
    "update_cache_start_pos_past_cache": "llama::update_cache.out: start_pos 32 and 1 new positions do not fit "
    "a cache of 32",
    "update_cache_negative_start_pos": "llama::update_cache.out: start_pos -1 and 1 new positions do not fit "
    "a cache of 32",
    "update_cache_fewer_heads": "llama::update_cache.out: value [1, _, 2, 16] does not match cache [1, _, 1, 16]",
    "update_cache_wrong_dtype": "llama::update_cache.out: value is float32, cache is float16",
    "custom_sdpa_start_pos_past_cache": "llama::custom_sdpa.out: start_pos 32 and 1 new positions do not fit "
    "a cache of 32",
    "custom_sdpa_huge_start_pos": "llama::custom_sdpa.out: start_pos 9223372036854775807 and 1 new positions "
    "do not fit a cache of 32",
    "custom_sdpa_mismatched_head_dims": "llama::custom_sdpa.out: head dims differ: query 16, key 8, value 16",
    "custom_sdpa_wrong_dtype": "llama::custom_sdpa.out: query is float32, key float32, value float16: they must match",
    "linear_mismatched_k": "aten::linear.out: needs input [..., k] and weight [n, k]",
    "linear_wrong_dtype": "aten::linear.out: weight has dtype float16, expected float32",
    "custom_quantized_sdpa_start_pos_past_cache": "llama::custom_quantized_sdpa.out: start_pos 32 and 1 new "
    "positions do not fit a cache of 32",
    "custom_quantized_sdpa_byte_query": "llama::custom_quantized_sdpa.out: query is uint8, key int8, value int8: "
    "they must be int8",
    "custom_quantized_sdpa_scales_fewer_heads": "llama::custom_quantized_sdpa.out: k_zero_points is int8 "
    "[1, 32, 2, 1] and k_scales float32 [1, 32, 1, 1]: they must be int8 and float32 [1, 32, 2, n >= 1], one per "
    "row of key",
    "custom_quantized_sdpa_no_v_scales": "llama::custom_quantized_sdpa.out: value is int8: v_zero_points and "
    "v_scales are required",
}


def test_every_hostile_call_has_its_expected_error() -> None:
    assert set(EXPECTED_ERRORS) == set(lp.HOSTILE)


def _run_hostile(runner: Path, llms: dict[str, lp.Exported], name: str, tmp_path: Path) -> None:
    program = llms[lp.hostile_recipe(name)]
    model = tmp_path / f"{name}.pte"
    model.write_bytes(lp.hostile(program.program, name))
    proc = subprocess.run(
        [str(runner), "--model", str(model), *(a for p in program.inputs[:2] for a in ("--input", str(p)))],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
    )
    assert_no_report(proc)
    assert proc.returncode == 1
    assert proc.stderr.strip().splitlines() == [f"error: {EXPECTED_ERRORS[name]}"]


@pytest.mark.parametrize("name", sorted(lp.HOSTILE))
def test_hostile_call_is_one_error_line(name: str, llms: dict[str, lp.Exported], runner: Path, tmp_path: Path) -> None:
    _run_hostile(runner, llms, name, tmp_path)


@pytest.fixture(scope="module")
def sanitized() -> Path:
    return cmake.runner_path(cmake.build(SANITIZED))


@pytest.mark.parametrize("name", sorted(lp.HOSTILE))
def test_hostile_call_under_sanitizers(
    name: str, llms: dict[str, lp.Exported], sanitized: Path, tmp_path: Path
) -> None:
    _run_hostile(sanitized, llms, name, tmp_path)


def _steps_under_sanitizers(sanitized: Path, program: lp.Exported, tmp_path: Path) -> tuple[list[np.ndarray], ...]:
    """Every step of `program` on the sanitized runner, one loaded method: no report, and each step's outputs."""
    command = [str(sanitized), "--model", str(program.program), "--steps", str(lp.STEPS), *_args(program)]
    proc = subprocess.run([*command, "--output-dir", str(tmp_path)], capture_output=True, text=True, timeout=600)
    assert_no_report(proc)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return tuple(
        [np.load(tmp_path / f"step{k}" / f"output{i}.npy") for i in range(len(program.expected[k]))]
        for k in range(lp.STEPS)
    )


@pytest.mark.parametrize("name", NAMES)
def test_decode_steps_under_sanitizers(
    name: str, llms: dict[str, lp.Exported], sanitized: Path, tmp_path: Path
) -> None:
    program = llms[name]
    _assert_steps_match(_steps_under_sanitizers(sanitized, program, tmp_path), program)


def test_quantized_attention_under_sanitizers(sanitized: Path, tmp_path: Path) -> None:
    """The int8 attention's every form (causal, by head, masked) over steps of six tokens, clean."""
    program = lp.export_quantized_attention(tmp_path / "program", tokens=6)
    _assert_steps_match(
        _steps_under_sanitizers(sanitized, program, tmp_path / "out"), program, atol=ATTENTION_ATOL, rtol=ATTENTION_RTOL
    )
