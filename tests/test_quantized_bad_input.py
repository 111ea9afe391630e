"""Bad input to the quantized kernels (kernels/quantized): out-of-range embedding indices, zero or infinite
scales, NaN ranges, zero points outside the quant range, parameters of another dtype than the output they are
read as. Each one is refused in one error line, exit status 1, no crash and no read past a buffer (the sanitizer
tests run the same inputs)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pytest

from tests.quantized_programs import BAD_INPUTS, BadInput

BY_NAME = {bad.name: bad for bad in BAD_INPUTS}


def run_bad(runner: Path, bad: BadInput, work: Path) -> subprocess.CompletedProcess[str]:
    cmd = [str(runner), "--model", str(bad.model()), "--output-dir", str(work / "out")]
    for path in bad.input_paths(work):
        cmd += ["--input", str(path)]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False)


def assert_refused(proc: subprocess.CompletedProcess[str], message: str) -> None:
    assert proc.returncode == 1, (proc.returncode, proc.stderr[-2000:])
    errors = [line for line in proc.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and message in errors[0], proc.stderr[-2000:]
    assert errors[0].startswith("error: quantized_decomposed::"), errors[0]


@pytest.mark.parametrize("name", sorted(BY_NAME))
def test_bad_input_is_refused_in_one_line(name: str, runner: Path, tmp_path: Path) -> None:
    assert_refused(run_bad(runner, BY_NAME[name], tmp_path), BY_NAME[name].message)


def test_half_scales_of_a_float_embedding_4bit_out_are_refused(runner: Path, tmp_path: Path) -> None:
    """embedding_4bit's export plans a Float out whatever its scales' dtype; ExecuTorch's .out kernel then reads
    Half scales as floats (past their end). Ours refuses the program in one line."""
    torch = pytest.importorskip("torch")
    from executorch.exir import EdgeCompileConfig, to_edge
    from executorch.exir.passes import _quant_patterns_and_replacements  # noqa: F401  (registers the op)

    class Lookup(torch.nn.Module):
        def forward(self, weight: torch.Tensor, scales: torch.Tensor, indices: torch.Tensor) -> torch.Tensor:
            return torch.ops.quantized_decomposed.embedding_4bit(weight, scales, None, -8, 7, indices)

    example = (torch.zeros(5, 4, dtype=torch.uint8), torch.ones(5, dtype=torch.float16), torch.tensor([1, 2]))
    edge = to_edge(torch.export.export(Lookup(), example), compile_config=EdgeCompileConfig(_check_ir_validity=False))
    model = tmp_path / "lookup.pte"
    model.write_bytes(edge.to_executorch().buffer)
    cmd = [str(runner), "--model", str(model), "--output-dir", str(tmp_path / "out")]
    for i, tensor in enumerate(example):
        np.save(tmp_path / f"in{i}.npy", tensor.numpy())
        cmd += ["--input", str(tmp_path / f"in{i}.npy")]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False)
    assert_refused(proc, "weight_scales has dtype float16, expected float32")
