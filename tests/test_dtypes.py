"""Half and BFloat16 in the runtime, and programs of the small dtypes, against torch and ExecuTorch.

- The runtime's 16-bit float conversions (native/core/include/sb/half.h) agree
  with torch's bit for bit: widening over all 65536 patterns of each type,
  narrowing over a large sample of float32 values including every kind of edge
  (ties, subnormals, overflow, infinities, NaN).
- Single-op programs exported with executorch in Half, BFloat16, int8, uint8
  and int16 run on our runtime and match ExecuTorch's own runtime.
- The runner's .npy convention for BFloat16 (NumPy has none): inputs are float32
  whose values bfloat16 holds exactly (others are refused), outputs are written
  as float32.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
import torch

from tests.conftest import REPO_ROOT

CONVERT_SOURCE = r"""
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>
#include "sb/half.h"

// half|bfloat16 widen: all 65536 patterns to float32 bits on stdout.
// half|bfloat16 narrow <file>: float32 bits from the file to 16-bit patterns.
int main(int argc, char** argv) {
  const bool half = strcmp(argv[1], "half") == 0;
  if (strcmp(argv[2], "widen") == 0) {
    std::vector<float> out(65536);
    for (uint32_t i = 0; i < 65536; ++i) {
      out[i] = half ? static_cast<float>(sb::Half::from_bits(static_cast<uint16_t>(i)))
                    : static_cast<float>(sb::BFloat16::from_bits(static_cast<uint16_t>(i)));
    }
    fwrite(out.data(), sizeof(float), out.size(), stdout);
    return 0;
  }
  FILE* f = fopen(argv[3], "rb");
  std::vector<float> in;
  float v;
  while (fread(&v, sizeof v, 1, f) == 1) in.push_back(v);
  fclose(f);
  std::vector<uint16_t> out(in.size());
  for (size_t i = 0; i < in.size(); ++i) out[i] = half ? sb::Half(in[i]).bits : sb::BFloat16(in[i]).bits;
  fwrite(out.data(), sizeof(uint16_t), out.size(), stdout);
  (void)argc;
  return 0;
}
"""

TORCH_DTYPES = {"half": torch.float16, "bfloat16": torch.bfloat16}


@pytest.fixture(scope="module")
def converter(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """half.h compiled into a small program (the header is all there is to it)."""
    compiler = shutil.which("c++") or shutil.which("g++") or shutil.which("clang++")
    if compiler is None:
        pytest.skip("no C++ compiler")
    work = tmp_path_factory.mktemp("half")
    source = work / "convert.cpp"
    source.write_text(CONVERT_SOURCE)
    binary = work / "convert"
    include = REPO_ROOT / "native" / "core" / "include"
    subprocess.run(
        [compiler, "-std=c++17", "-O2", "-Wall", "-Wextra", "-Werror", f"-I{include}", str(source), "-o", str(binary)],
        check=True,
    )
    return binary


def widen(converter: Path, kind: str) -> np.ndarray:
    out = subprocess.run([str(converter), kind, "widen"], check=True, capture_output=True).stdout
    return np.frombuffer(out, dtype=np.float32)


def narrow(converter: Path, kind: str, values: np.ndarray, tmp_path: Path) -> np.ndarray:
    path = tmp_path / f"{kind}.f32"
    values.astype(np.float32).tofile(path)
    out = subprocess.run([str(converter), kind, "narrow", str(path)], check=True, capture_output=True).stdout
    return np.frombuffer(out, dtype=np.uint16)


def bits_of(t: torch.Tensor) -> np.ndarray:
    return t.view(torch.int16).numpy().view(np.uint16)


def float32_sample(kind: str) -> np.ndarray:
    """Float32 values that exercise every rounding case of the 16-bit type."""
    rng = np.random.default_rng(10)
    patterns = [rng.integers(0, 2**32, 200_000, dtype=np.uint64).astype(np.uint32)]
    # Every 16-bit value, its neighbours, and the exact midpoints to its successor (ties).
    all16 = np.arange(65536, dtype=np.uint32)
    dtype = TORCH_DTYPES[kind]
    wide = torch.from_numpy(all16.astype(np.uint16).view(np.int16)).view(dtype).float().numpy()
    finite = wide[np.isfinite(wide)]
    w = finite.view(np.uint32)
    patterns += [w, w + 1, w - 1]
    ordered = np.sort(np.unique(finite[finite >= 0]))
    mids = (ordered[:-1].astype(np.float64) + ordered[1:].astype(np.float64)) / 2
    mids32 = mids.astype(np.float32)
    exact = mids32.astype(np.float64) == mids  # a midpoint float32 holds exactly is a tie
    patterns += [mids32[exact].view(np.uint32), (-mids32[exact]).view(np.uint32)]
    patterns += [mids32.view(np.uint32) + 1, mids32.view(np.uint32) - 1]
    specials = np.array(
        [
            0.0,
            -0.0,
            np.inf,
            -np.inf,
            np.nan,
            65504.0,
            65519.996,
            65520.0,
            65536.0,
            1e-8,
            2.0**-25,
            2.0**-24,
            3.0 * 2.0**-26,
            2.0**-149,
            3.4028234e38,
            -3.4028234e38,
            3.3895314e38,
        ],
        dtype=np.float32,
    )
    patterns.append(specials.view(np.uint32))
    patterns.append(np.array([0x7F800001, 0xFFC00000, 0x7FBFFFFF, 0x7FFFFFFF], dtype=np.uint32))  # NaN payloads
    return np.concatenate(patterns).view(np.float32)


@pytest.mark.parametrize("kind", ["half", "bfloat16"])
def test_widening_matches_torch_for_every_pattern(converter: Path, kind: str) -> None:
    ours = widen(converter, kind)
    every = torch.from_numpy(np.arange(65536, dtype=np.uint32).astype(np.uint16).view(np.int16))
    theirs = every.view(TORCH_DTYPES[kind]).float().numpy()
    nan = np.isnan(theirs)
    assert np.array_equal(np.isnan(ours), nan)
    assert np.array_equal(ours[~nan].view(np.uint32), theirs[~nan].view(np.uint32))  # exact, signed zeros too


@pytest.mark.parametrize("kind", ["half", "bfloat16"])
def test_narrowing_rounds_like_torch(converter: Path, kind: str, tmp_path: Path) -> None:
    values = float32_sample(kind)
    ours = narrow(converter, kind, values, tmp_path)
    theirs = bits_of(torch.from_numpy(values).to(TORCH_DTYPES[kind]))
    back = torch.from_numpy(ours.view(np.int16).copy()).view(TORCH_DTYPES[kind]).float().numpy()
    nan = np.isnan(values)
    assert np.isnan(back[nan]).all(), "NaN must stay NaN"
    mismatch = np.flatnonzero(ours[~nan] != theirs[~nan])
    assert mismatch.size == 0, [
        (float(values[~nan][i]), hex(int(ours[~nan][i])), hex(int(theirs[~nan][i]))) for i in mismatch[:5]
    ]
    assert len(values) > 300_000


def test_half_overflow_and_subnormals(converter: Path, tmp_path: Path) -> None:
    values = np.array([65504.0, 65519.0, 65520.0, -1e6, 2.0**-24, 2.0**-25, 1.5 * 2.0**-25], dtype=np.float32)
    bits = narrow(converter, "half", values, tmp_path)
    assert [hex(int(b)) for b in bits] == ["0x7bff", "0x7bff", "0x7c00", "0xfc00", "0x1", "0x0", "0x1"]


# --- programs -------------------------------------------------------------------------------------------------


class Fn(torch.nn.Module):
    def __init__(self, fn: Callable[..., torch.Tensor]) -> None:
        super().__init__()
        self.fn = fn

    def forward(self, *args: torch.Tensor) -> torch.Tensor:
        return self.fn(*args)


def to_npy(t: torch.Tensor) -> np.ndarray:
    return t.float().numpy() if t.dtype == torch.bfloat16 else t.numpy()


def export_and_reference(
    fn: Callable[..., torch.Tensor], inputs: tuple[torch.Tensor, ...], path: Path
) -> list[torch.Tensor]:
    """Writes the program to `path`; returns ExecuTorch's runtime's outputs for `inputs`."""
    pytest.importorskip("executorch")
    from executorch.exir import to_edge
    from executorch.runtime import Runtime

    exported = torch.export.export(Fn(fn), inputs)
    buffer = to_edge(exported).to_executorch().buffer
    path.write_bytes(buffer)
    method = Runtime.get().load_program(buffer).load_method("forward")
    return [o for o in method.execute([t.clone() for t in inputs]) if isinstance(o, torch.Tensor)]


def run_ours(
    runner: Path, model: Path, inputs: tuple[torch.Tensor, ...], work: Path
) -> subprocess.CompletedProcess[str]:
    cmd = [str(runner), "--model", str(model), "--output-dir", str(work / "out")]
    for i, t in enumerate(inputs):
        np.save(work / f"input{i}.npy", to_npy(t))
        cmd += ["--input", str(work / f"input{i}.npy")]
    return subprocess.run(cmd, capture_output=True, text=True, check=False)


def values(dtype: torch.dtype, shape: tuple[int, ...], seed: int) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    if dtype.is_floating_point:
        # Multiples of 1/8 in [-8, 8): exact in bfloat16, so the runner takes them as float32 input.
        return (torch.randint(-64, 64, shape, generator=g).float() / 8).to(dtype)
    info = torch.iinfo(dtype)
    return torch.randint(info.min, info.max + 1, shape, generator=g, dtype=torch.int64).to(dtype)


PROGRAMS = {
    "add_f16": (lambda a, b: a + b, (torch.float16, torch.float16)),
    "mul_bf16": (lambda a, b: a * b, (torch.bfloat16, torch.bfloat16)),
    "conv_f16": (lambda x, w: torch.nn.functional.conv2d(x, w, padding=1), (torch.float16, torch.float16)),
    "softmax_bf16": (lambda x: torch.softmax(x, -1), (torch.bfloat16,)),
    "add_i8_wraps": (lambda a, b: a + b, (torch.int8, torch.int8)),
    "mul_u8_wraps": (lambda a, b: a * b, (torch.uint8, torch.uint8)),
    "sub_i16": (lambda a, b: a - b, (torch.int16, torch.int16)),
    "sum_u8": (lambda a: a.sum(dim=1), (torch.uint8,)),
    "mm_i8": (lambda a, b: a @ b, (torch.int8, torch.int8)),
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_program_matches_executorch(name: str, runner: Path, tmp_path: Path) -> None:
    fn, dtypes = PROGRAMS[name]
    shapes = {"conv_f16": [(1, 2, 5, 5), (3, 2, 3, 3)], "mm_i8": [(3, 4), (4, 5)]}.get(name, [(3, 4)] * len(dtypes))
    inputs = tuple(values(d, s, seed) for seed, (d, s) in enumerate(zip(dtypes, shapes, strict=True)))
    model = tmp_path / "model.pte"
    expected = export_and_reference(fn, inputs, model)
    proc = run_ours(runner, model, inputs, tmp_path)
    assert proc.returncode == 0, proc.stderr
    for i, want in enumerate(expected):
        got = np.load(tmp_path / "out" / f"output{i}.npy")
        want_np = to_npy(want)
        assert got.dtype == want_np.dtype and got.shape == want_np.shape
        if want.dtype.is_floating_point:
            rtol = {torch.float16: 1e-3, torch.bfloat16: 1e-2}.get(want.dtype, 1e-5)
            np.testing.assert_allclose(got, want_np, rtol=rtol, atol=rtol)
        else:
            assert np.array_equal(got, want_np), (got, want_np)  # integer results wrap exactly as ExecuTorch's


def test_bfloat16_npy_convention(runner: Path, tmp_path: Path) -> None:
    """BFloat16 in as exactly representable float32, out as float32; inexact inputs are refused."""
    x = values(torch.bfloat16, (2, 8), 3)
    model = tmp_path / "model.pte"
    expected = export_and_reference(lambda a: a + a, (x,), model)
    proc = run_ours(runner, model, (x,), tmp_path)
    assert proc.returncode == 0, proc.stderr
    got = np.load(tmp_path / "out" / "output0.npy")
    assert got.dtype == np.float32
    assert np.array_equal(got, expected[0].float().numpy())

    inexact = np.full((2, 8), 1.0 + 2.0**-10, dtype=np.float32)  # needs more than bfloat16's 8 bits
    np.save(tmp_path / "inexact.npy", inexact)
    proc = subprocess.run(
        [str(runner), "--model", str(model), "--input", str(tmp_path / "inexact.npy")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode != 0
    assert "not exactly representable in bfloat16" in proc.stderr
