"""ExecuTorch's quantized library (kernels/quantized/quantized.yaml of the executorch wheel): the
quantized_decomposed ops of PT2E programs without a delegate and of LLM exports. Each case calls the
functional op in a module; to_edge turns it into the out-variant ExecuTorch's quantized kernels
implement, and the reference runtime has them (export.py loads executorch.kernels.quantized).

Values are chosen to reach the rounding and clamping edges: halves (round half to even), values past
the quant range (clamping), nonzero zero points, NaN and infinities. Integer outputs must be identical.
"""

from __future__ import annotations

from collections.abc import Callable

import torch

# The quantized_decomposed ops' schemas and eager implementations: torch's q/dq ops, and ExecuTorch's
# own (add, embedding_*, mixed_*), which its quant patterns module defines.
import torch.ao.quantization.fx._decomposed
from executorch.exir.passes import _quant_patterns_and_replacements  # noqa: F401  (registers the ops)

from tests.conformance.spec import MAY_BE_UNEXPRESSIBLE, SHORT, Case, sample

Q = torch.ops.quantized_decomposed
F32, F64, F16, BF16 = torch.float32, torch.float64, torch.float16, torch.bfloat16
U8, I8, I16, I32, I64 = torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64
FLOATS = (F32, F64, F16)
QUANTIZED = (U8, I8, I16, I32)
# A quant range per quantized dtype: the dtype's own for 8 bits, a narrower one above (the values then clamp).
RANGES = {U8: (0, 255), I8: (-128, 127), I16: (-1000, 1000), I32: (-100000, 100000)}
ZERO_POINTS = {U8: 128, I8: -3, I16: 7, I32: -11}

CASES: list[Case] = []


def _add_shape(a: torch.Tensor, *args: object) -> torch.Tensor:
    return torch.empty_like(a)


def _mixed_mm_shape(x: torch.Tensor, w: torch.Tensor, *args: object) -> torch.Tensor:
    return x.new_empty((x.shape[0], w.shape[1]))


def _mixed_linear_shape(
    x: torch.Tensor, w: torch.Tensor, s: torch.Tensor, z: object, dtype: torch.dtype | None = None
) -> torch.Tensor:
    return x.new_empty((x.shape[0], w.shape[0]), dtype=dtype or x.dtype)


# These ExecuTorch ops have eager kernels but no fake ones, and torch.export needs one to trace them.
for _name, _shape in (("add", _add_shape), ("mixed_mm", _mixed_mm_shape), ("mixed_linear", _mixed_linear_shape)):
    if not torch._C._dispatch_has_kernel_for_dispatch_key(f"quantized_decomposed::{_name}", "Meta"):
        torch.library.register_fake(f"quantized_decomposed::{_name}", _shape)


def _case(op: str, name: str, fn: Callable[..., torch.Tensor], *inputs: torch.Tensor) -> Case:
    # torch's quantize ops assert a Float (or Half) input in export: a Double one has no program.
    double_quantize = op.startswith("quantize_") and inputs[0].dtype == F64
    tags = (MAY_BE_UNEXPRESSIBLE,) if double_quantize else ()
    return Case(f"quantized_decomposed::{op}", name, fn, tuple(inputs), tags=tags)


def _halves(dtype: torch.dtype, scale: float) -> torch.Tensor:
    """Values whose quotient by `scale` falls on .5 (round half to even decides), near-halves, and values
    far past any quant range (clamping)."""
    quotients = [-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.5, 0.49, -0.51, 100.25, -99.75, 1e6, -1e6, 0.0]
    return (torch.tensor(quotients, dtype=F64) * scale).to(dtype).reshape(2, 7)


# --- quantize_per_tensor ------------------------------------------------------------------------------
for f in FLOATS:
    for q in QUANTIZED:
        low, high = RANGES[q]
        zp = ZERO_POINTS[q]
        pair = f"{SHORT[f]}_{SHORT[q]}"
        CASES.append(
            _case(
                "quantize_per_tensor.out",
                f"{pair}_halves",
                lambda x, zp=zp, low=low, high=high, q=q: Q.quantize_per_tensor(x, 0.5, zp, low, high, q),
                _halves(f, 0.5),
            )
        )
        CASES.append(
            _case(
                "quantize_per_tensor.Tensor_out",
                f"{pair}_scale_tensor",
                lambda x, s, z, low=low, high=high, q=q: Q.quantize_per_tensor.tensor(x, s, z, low, high, q),
                sample((3, 5), f, seed=1, low=-40, high=40),
                torch.tensor([0.3125], dtype=F64),
                torch.tensor([zp], dtype=I64),
            )
        )
CASES.append(
    _case(
        "quantize_per_tensor.out",
        "f32_i8_nonfinite",
        lambda x: Q.quantize_per_tensor(x, 0.1, 2, -128, 127, I8),
        torch.tensor([float("nan"), float("inf"), float("-inf"), 1.0, -1.0], dtype=F32),
    )
)
CASES.append(
    _case(
        "quantize_per_tensor.out",
        "f32_i8_odd_scale",
        lambda x: Q.quantize_per_tensor(x, 0.0123456789, -7, -127, 127, I8),
        sample((4, 6), F32, seed=2, low=-2, high=2),
    )
)

# --- quantize_per_channel / quantize_per_token -----------------------------------------------------
for f in FLOATS:
    for q in QUANTIZED:
        low, high = RANGES[q]
        zp = ZERO_POINTS[q]
        pair = f"{SHORT[f]}_{SHORT[q]}"
        scales = torch.tensor([0.5, 0.25, 0.125], dtype=F64)
        zps = torch.tensor([zp, 0, -zp], dtype=I64)
        CASES.append(
            _case(
                "quantize_per_channel.out",
                f"{pair}_axis0",
                lambda x, s, z, low=low, high=high, q=q: Q.quantize_per_channel(x, s, z, 0, low, high, q),
                sample((3, 2, 4), f, seed=3, low=-30, high=30),
                scales,
                zps,
            )
        )
        CASES.append(
            _case(
                "quantize_per_token.out",
                f"{pair}_rows",
                lambda x, s, z, low=low, high=high, q=q: Q.quantize_per_token(x, s, z, low, high, q),
                sample((2, 3, 4), f, seed=4, low=-30, high=30),
                torch.tensor([[0.5], [0.25], [0.125], [1.0], [0.0625], [2.0]], dtype=F64).reshape(2, 3, 1),
                torch.tensor([zp, 0, -zp, 1, 2, 3], dtype=I64).reshape(2, 3, 1),
            )
        )
CASES.append(
    _case(
        "quantize_per_channel.out",
        "f32_i8_axis_last_halves",
        lambda x, s, z: Q.quantize_per_channel(x, s, z, -1, -128, 127, I8),
        _halves(F32, 0.5).reshape(7, 2),
        torch.tensor([0.5, 0.25], dtype=F64),
        torch.tensor([0, 5], dtype=I64),
    )
)

# --- dequantize_per_tensor ----------------------------------------------------------------------------
for q in QUANTIZED:
    low, high = RANGES[q]
    zp = ZERO_POINTS[q]
    values = sample((3, 5), q, seed=5, low=low, high=high)
    for f in FLOATS:
        pair = f"{SHORT[q]}_{SHORT[f]}"
        CASES.append(
            _case(
                "dequantize_per_tensor.out",
                f"{pair}_basic",
                lambda x, low=low, high=high, q=q, f=f: Q.dequantize_per_tensor(
                    x, 0.0123, ZERO_POINTS[q], low, high, q, out_dtype=f
                ),
                values,
            )
        )
        CASES.append(
            _case(
                "dequantize_per_tensor.Tensor_out",
                f"{pair}_scale_tensor",
                lambda x, s, z, low=low, high=high, q=q, f=f: Q.dequantize_per_tensor.tensor(
                    x, s, z, low, high, q, out_dtype=f
                ),
                values,
                torch.tensor([0.0371], dtype=F64),
                torch.tensor([zp], dtype=I64),
            )
        )

# --- dequantize_per_channel / dequantize_per_token ---------------------------------------------------
for q in QUANTIZED:
    low, high = RANGES[q]
    zp = ZERO_POINTS[q]
    values = sample((2, 3, 4), q, seed=6, low=low, high=high)
    for f in FLOATS:
        pair = f"{SHORT[q]}_{SHORT[f]}"
        CASES.append(
            _case(
                "dequantize_per_channel.out",
                f"{pair}_axis1",
                lambda x, s, z, low=low, high=high, q=q, f=f: Q.dequantize_per_channel(
                    x, s, z, 1, low, high, q, out_dtype=f
                ),
                values,
                torch.tensor([0.5, 0.0371, 0.125], dtype=F64),
                torch.tensor([zp, 0, 1], dtype=I64),
            )
        )
        CASES.append(
            _case(
                "dequantize_per_channel.out",
                f"{pair}_1d_no_zero_points",
                lambda x, s, low=low, high=high, q=q, f=f: Q.dequantize_per_channel(
                    x, s, None, 0, low, high, q, out_dtype=f
                ),
                sample((4,), q, seed=7, low=low, high=high),
                torch.tensor([0.5, 0.0371, 0.125, 3.3], dtype=F64),
            )
        )
        CASES.append(
            _case(
                "dequantize_per_token.out",
                f"{pair}_rows",
                lambda x, s, z, low=low, high=high, q=q, f=f: Q.dequantize_per_token(x, s, z, low, high, q, f),
                values,
                torch.tensor([0.5, 0.0371, 0.125, 1.5, 0.01, 2.0], dtype=F32).reshape(2, 3, 1),
                torch.tensor([zp, 0, 1, 2, -1, 0], dtype=I64).reshape(2, 3, 1),
            )
        )
CASES.append(
    _case(
        "dequantize_per_channel.out",
        "i8_f32_float_scales_default_out",
        lambda x, s, z: Q.dequantize_per_channel(x, s, z, 0, -128, 127, I8),
        sample((3, 5), I8, seed=8, low=-128, high=127),
        torch.tensor([0.5, 0.0371, 0.125], dtype=F32),
        torch.tensor([1, 0, -2], dtype=I64),
    )
)

# --- choose_qparams -----------------------------------------------------------------------------------
RANGES_8BIT = {"u8": (0, 255, U8), "i8": (-128, 127, I8)}
CHOOSE_INPUTS = {
    "mixed": sample((4, 5), F32, seed=9, low=-3, high=7),
    "positive": sample((4, 5), F32, seed=10, low=1, high=2),
    "negative": sample((4, 5), F32, seed=11, low=-5, high=-1),
    "zeros": torch.zeros(3, 2, dtype=F32),
    "tiny": (sample((2, 5), F32, seed=12, low=-1, high=1) * 1e-6),
    "tiny_positive": (sample((2, 5), F32, seed=13, low=0, high=1) * 1e-6),
}
for tag, (low, high, q) in RANGES_8BIT.items():
    for what, x in CHOOSE_INPUTS.items():
        CASES.append(
            _case(
                "choose_qparams.Tensor_out",
                f"f32_{tag}_{what}",
                lambda x, low=low, high=high, q=q: Q.choose_qparams.tensor(x, low, high, 1e-7, q),
                x,
            )
        )
TOKENS = torch.cat(
    [
        sample((1, 6), F32, seed=14, low=-3, high=7),
        torch.zeros(1, 6),
        sample((1, 6), F32, seed=15, low=2, high=3),
        sample((1, 6), F32, seed=16, low=-1, high=1) * 1e-6,
    ]
).reshape(2, 2, 6)
CASES.append(
    _case(
        "choose_qparams_per_token_asymmetric.out",
        "f32_rows",
        lambda x: Q.choose_qparams_per_token_asymmetric(x, I8),
        TOKENS,
    )
)

# --- add ---------------------------------------------------------------------------------------------
for q in (U8, I8, I16, I32, I64):
    CASES.append(
        _case(
            "add.out",
            f"{SHORT[q]}_uint8_ranges",
            lambda a, b: Q.add(a, 0.05, 10, 0, 255, b, 0.11, 120, 0, 255, 0.13, 64, 0, 255),
            sample((3, 7), q, seed=17, low=0, high=127),
            sample((3, 7), q, seed=18, low=0, high=127),
        )
    )
CASES.append(
    _case(
        "add.out",
        "u8_halves_clamped",
        lambda a, b: Q.add(a, 0.5, 0, 0, 255, b, 0.25, 0, 0, 255, 1.0, 3, 10, 200),
        torch.tensor([0, 1, 3, 5, 255, 254, 100], dtype=U8),
        torch.tensor([0, 1, 2, 2, 255, 1, 0], dtype=U8),
    )
)

# --- embedding_byte / _2bit / _4bit -------------------------------------------------------------------
ROWS, DIM = 5, 8


def _packed(bits: int, seed: int) -> torch.Tensor:
    return sample((ROWS, DIM * bits // 8), U8, seed=seed, low=0, high=255)


INDICES = torch.tensor([[4, 0, 2], [2, 3, 1]], dtype=I64)
for bits, op in ((8, "embedding_byte"), (4, "embedding_4bit"), (2, "embedding_2bit")):
    functional = getattr(Q, op)
    weights = (
        {"u8": _packed(8, 19), "i8": sample((ROWS, DIM), I8, seed=20, low=-128, high=127)}
        if bits == 8
        else {"u8": _packed(bits, 21)}
    )
    low, high = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if bits < 8 else (-128, 127)
    for wtag, weight in weights.items():
        for out in (F32, F16, BF16):
            # .dtype_out: Float scales, out of another dtype.
            CASES.append(
                _case(
                    f"{op}.dtype_out",
                    f"{SHORT[out]}_{wtag}_f32_scales",
                    lambda w, s, i, low=low, high=high, f=functional, out=out: f.dtype(
                        w, s, None, low, high, i, dtype=out
                    ),
                    weight,
                    sample((ROWS, 4), F32, seed=25, low=0.01, high=0.1),
                    INDICES,
                )
            )
            # .out: scales and zero points have out's dtype. Not so for 2 and 4 bits: their export plans a
            # Float out whatever the scales' dtype, which ExecuTorch's kernel then reads as floats (and
            # ours refuses: tests/test_quantized_bad_input.py); such programs use .dtype_out instead.
            if bits < 8 and out != F32:
                CASES.append(
                    _case(
                        f"{op}.dtype_out",
                        f"{SHORT[out]}_{wtag}_groups_zero_points",
                        lambda w, s, z, i, low=low, high=high, f=functional, out=out: f.dtype(
                            w, s, z, low, high, i, dtype=out
                        ),
                        weight,
                        sample((ROWS, 2), out, seed=23, low=0.01, high=0.1),
                        sample((ROWS, 2), out, seed=24, low=-3, high=3).round(),
                        INDICES,
                    )
                )
                continue
            scales = sample((ROWS,), out, seed=22, low=0.01, high=0.1)
            CASES.append(
                _case(
                    f"{op}.out",
                    f"{SHORT[out]}_{wtag}_per_row",
                    lambda w, s, i, low=low, high=high, f=functional: f(w, s, None, low, high, i),
                    weight,
                    scales,
                    INDICES,
                )
            )
            grouped = sample((ROWS, 2), out, seed=23, low=0.01, high=0.1)
            zps = sample((ROWS, 2), out, seed=24, low=-3, high=3).round()
            CASES.append(
                _case(
                    f"{op}.out",
                    f"{SHORT[out]}_{wtag}_groups_zero_points",
                    lambda w, s, z, i, low=low, high=high, f=functional: f(w, s, z, low, high, i),
                    weight,
                    grouped,
                    zps,
                    INDICES,
                )
            )
    if bits < 8:
        CASES.append(
            _case(
                f"{op}.out",
                "f32_u8_int_indices",
                lambda w, s, i, low=low, high=high, f=functional: f(w, s, None, low, high, i),
                weights["u8"],
                sample((ROWS,), F32, seed=26, low=0.01, high=0.1),
                INDICES.to(I32),
            )
        )

# --- mixed_mm / mixed_linear --------------------------------------------------------------------------
for f in (F32, F16):
    CASES.append(
        _case(
            "mixed_mm.out",
            f"{SHORT[f]}_basic",
            lambda x, w, s: Q.mixed_mm(x, w, s, None),
            sample((3, 6), f, seed=27, low=-1, high=1),
            sample((6, 4), I8, seed=28, low=-128, high=127),
            sample((6,), f, seed=29, low=0.001, high=0.02),
        )
    )
    CASES.append(
        _case(
            "mixed_linear.out",
            f"{SHORT[f]}_per_row",
            lambda x, w, s: Q.mixed_linear(x, w, s, None),
            sample((3, 6), f, seed=30, low=-1, high=1),
            sample((4, 6), I8, seed=31, low=-128, high=127),
            sample((4,), f, seed=32, low=0.001, high=0.02),
        )
    )
    CASES.append(
        _case(
            "mixed_linear.out",
            f"{SHORT[f]}_groups",
            lambda x, w, s: Q.mixed_linear(x, w, s, None),
            sample((2, 8), f, seed=33, low=-1, high=1),
            sample((3, 8), I8, seed=34, low=-128, high=127),
            sample((3, 4), f, seed=35, low=0.001, high=0.02),
        )
    )
CASES.append(
    _case(
        "mixed_linear.out",
        "f32_to_f16",
        lambda x, w, s: Q.mixed_linear(x, w, s, None, F16),
        sample((2, 8), F32, seed=36, low=-1, high=1),
        sample((3, 8), I8, seed=37, low=-128, high=127),
        sample((3, 2), F32, seed=38, low=0.001, high=0.02),
    )
)
