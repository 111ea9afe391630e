"""Non-default dim orders: programs whose tensors are channels-last (dim order [0, 2, 3, 1]), as a model
exported with `x.to(memory_format=torch.channels_last)` holds them. (ExecuTorch's runtime refuses
channels-last-3d inputs, so 5-D orders have no reference here.)

An input given channels-last makes the exported program keep it so (torch.export records each tensor's
dim order from its strides); fixtures store every tensor in logical order, and both runtimes convert.
Element-wise ops take one shared dim order; the copies convert between orders; convolution, pooling
and nearest upsampling read each tensor through its own strides.
"""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch.nn import functional as F

from tests.conformance.spec import FLOAT_DTYPES, INT_DTYPES, Case, sample

CL = "channels_last"  # descriptive tag: the case's inputs are channels-last


def cl(t: torch.Tensor) -> torch.Tensor:
    """`t` (4-D) laid out channels-last; same values."""
    return t.contiguous(memory_format=torch.channels_last)


def _case(
    op: str, name: str, fn: Callable[..., torch.Tensor], *inputs: torch.Tensor, tags: tuple[str, ...] = ()
) -> Case:
    return Case(op, name, fn, tuple(inputs), tags=(CL, *tags))


SHAPE = (2, 3, 4, 5)
CASES: list[Case] = []

# --- element-wise: every tensor in one dim order -------------------------------------------------
for dtype, short in ((torch.float32, "f32"), (torch.float16, "f16"), (torch.int32, "i32")):
    CASES.append(
        _case(
            "aten::add.out",
            f"{short}_cl",
            lambda a, b: a + b,
            cl(sample(SHAPE, dtype)),
            cl(sample(SHAPE, dtype, seed=1)),
        )
    )
CASES += [
    # Broadcasting between two channels-last tensors: [1, 3, 1, 1] along N, H and W.
    _case(
        "aten::mul.out",
        "f32_cl_broadcast",
        lambda a, b: a * b,
        cl(sample(SHAPE, torch.float32)),
        cl(sample((2, 3, 1, 5), torch.float32, seed=1)),
        tags=("broadcast",),
    ),
    _case("aten::relu.out", "f32_cl", torch.relu, cl(sample(SHAPE, torch.float32))),
    _case("aten::sigmoid.out", "f32_cl", torch.sigmoid, cl(sample(SHAPE, torch.float32))),
    _case("aten::abs.out", "i64_cl", torch.abs, cl(sample(SHAPE, torch.int64))),
    _case("aten::clamp.out", "f32_cl", lambda x: torch.clamp(x, -1.0, 2.0), cl(sample(SHAPE, torch.float32))),
    _case(
        "aten::where.self_out",
        "f32_cl",
        torch.where,
        cl(sample(SHAPE, torch.bool)),
        cl(sample(SHAPE, torch.float32)),
        cl(sample(SHAPE, torch.float32, seed=1)),
    ),
    _case(
        "aten::gt.Tensor_out",
        "f32_cl",
        torch.gt,
        cl(sample(SHAPE, torch.float32)),
        cl(sample(SHAPE, torch.float32, seed=1)),
    ),
]

# cat joins channels-last tensors in memory order (channels are innermost).
CASES += [
    _case(
        "aten::cat.out",
        f"f32_cl_dim{dim}",
        lambda a, b, dim=dim: torch.cat([a, b], dim),
        cl(sample((2, 3, 4, 5), torch.float32)),
        cl(sample(tuple(2 if d == dim else n for d, n in enumerate((2, 3, 4, 5))), torch.float32, seed=1)),
    )
    for dim in (0, 1, 2, 3)
]

# --- copies between dim orders -------------------------------------------------------------------
TO_COPY = "dim_order_ops::_to_dim_order_copy.out"
CLONE = "dim_order_ops::_clone_dim_order.out"
for dtype in (*FLOAT_DTYPES, *INT_DTYPES, torch.bool):
    short = {torch.float32: "f32", torch.float64: "f64", torch.float16: "f16", torch.bfloat16: "bf16"}.get(
        dtype, str(dtype).removeprefix("torch.")
    )
    CASES.append(_case(CLONE, f"{short}_cl_to_contiguous", lambda x: x.contiguous(), cl(sample(SHAPE, dtype))))
CASES += [
    _case(
        TO_COPY,
        "f32_contiguous_to_cl",
        lambda x: x.to(memory_format=torch.channels_last),
        sample(SHAPE, torch.float32),
    ),
    # A dtype conversion that keeps the input's dim order.
    _case(TO_COPY, "i32_to_f64_cl", lambda x: x.to(torch.float64), cl(sample(SHAPE, torch.int32))),
    _case(
        TO_COPY,
        "f32_to_f16_cl_to_contiguous",
        lambda x: x.to(dtype=torch.float16, memory_format=torch.contiguous_format),
        cl(sample(SHAPE, torch.float32)),
    ),
    _case(CLONE, "f32_cl", lambda x: x.clone(), cl(sample(SHAPE, torch.float32))),
    _case(
        CLONE,
        "f32_contiguous_to_cl",
        lambda x: x.clone(memory_format=torch.channels_last),
        sample(SHAPE, torch.float32),
    ),
]

# --- convolution, pooling, upsampling, channels-last in and out (ExecuTorch's export makes the input of
# avg_pool2d and _adaptive_avg_pool2d contiguous first: no channels-last program holds them)
CONV = "aten::convolution.out"
CASES += [
    _case(
        CONV,
        "f32_cl",
        lambda x, w, b: F.conv2d(x, w, b, padding=1),
        cl(sample((2, 3, 6, 5), torch.float32)),
        cl(sample((4, 3, 3, 3), torch.float32, seed=1)),
        sample((4,), torch.float32, seed=2),
    ),
    _case(
        CONV,
        "f32_cl_groups_stride_dilation",
        lambda x, w: F.conv2d(x, w, stride=2, dilation=2, groups=2, padding=2),
        cl(sample((1, 4, 7, 8), torch.float32)),
        cl(sample((6, 2, 3, 2), torch.float32, seed=1)),
    ),
    _case(
        CONV,
        "f64_cl",
        lambda x, w: F.conv2d(x, w),
        cl(sample((1, 2, 5, 5), torch.float64)),
        cl(sample((3, 2, 2, 2), torch.float64, seed=1)),
    ),
    _case(
        "aten::max_pool2d_with_indices.out",
        "f32_cl",
        lambda x: F.max_pool2d(x, 3, stride=2, padding=1),
        cl(sample((2, 3, 7, 6), torch.float32)),
    ),
    _case(
        "aten::upsample_nearest2d.vec_out",
        "f32_cl",
        lambda x: F.interpolate(x, scale_factor=2, mode="nearest"),
        cl(sample((1, 3, 3, 4), torch.float32)),
    ),
    _case(
        "aten::upsample_nearest2d.vec_out",
        "f32_cl_size",
        lambda x: F.interpolate(x, size=(5, 3), mode="nearest"),
        cl(sample((2, 2, 3, 4), torch.float32)),
    ),
    _case(
        "aten::upsample_bilinear2d.vec_out",
        "f32_cl",
        lambda x: F.interpolate(x, scale_factor=2, mode="bilinear"),
        cl(sample((1, 3, 3, 4), torch.float32)),
    ),
    _case(
        "aten::upsample_bilinear2d.vec_out",
        "f32_cl_align_corners",
        lambda x: F.interpolate(x, size=(5, 7), mode="bilinear", align_corners=True),
        cl(sample((2, 2, 3, 4), torch.float32)),
    ),
]
