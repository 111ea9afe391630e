"""convolution_backward: the gradients of a convolution with respect to its input, weight and bias.

The op appears in a program exported from a backward (training) graph; here each case calls
`aten.convolution_backward` directly and keeps it whole (`preserve=`). A program passes an empty
placeholder tensor for each gradient its `output_mask` leaves out, and returns None in its place:
those outputs are absent from the fixture. ExecuTorch's portable kernel takes plain (not
transposed) 2-D convolutions of floating dtypes; its runtime refuses the rest.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

from tests.conformance.spec import FLOAT_DTYPES, PRESERVE, Case, per_dtype, sample

OP = "aten::convolution_backward.out"
KEEP = PRESERVE + "aten.convolution_backward.default"
BACKWARD = torch.ops.aten.convolution_backward.default


def _extent(size: int, kernel: int, stride: int, padding: int, dilation: int) -> int:
    return (size + 2 * padding - dilation * (kernel - 1) - 1) // stride + 1


def _case(
    name: str,
    dtype: torch.dtype,
    input_shape: Sequence[int],
    weight_shape: Sequence[int],
    *,
    stride: Sequence[int] = (1, 1),
    padding: Sequence[int] = (0, 0),
    dilation: Sequence[int] = (1, 1),
    groups: int = 1,
    mask: Sequence[bool] = (True, True, True),
    bias: bool = True,
    transposed: bool = False,
    unsupported: str = "",
) -> Case:
    """grad_output, input and weight of a convolution with this geometry, and the call."""
    spatial = len(input_shape) - 2
    if transposed:  # weight is [c_in, c_out / groups, k...], the output grows
        c_out = weight_shape[1] * groups
        extents = [
            (input_shape[2 + d] - 1) * stride[d] - 2 * padding[d] + dilation[d] * (weight_shape[2 + d] - 1) + 1
            for d in range(spatial)
        ]
    else:
        c_out = weight_shape[0]
        extents = [
            _extent(input_shape[2 + d], weight_shape[2 + d], stride[d], padding[d], dilation[d]) for d in range(spatial)
        ]
    grad_output = sample((input_shape[0], c_out, *extents), dtype, seed=1)
    x = sample(input_shape, dtype, seed=2)
    weight = sample(weight_shape, dtype, seed=3)
    bias_sizes = [c_out] if bias else None
    args = (list(stride), list(padding), list(dilation), transposed, [0] * spatial, groups, list(mask))

    def fn(go: torch.Tensor, inp: torch.Tensor, w: torch.Tensor) -> object:
        return BACKWARD(go, inp, w, bias_sizes, *args)

    return Case(OP, name, fn, (grad_output, x, weight), tags=(KEEP,), unsupported_by_executorch=unsupported)


CASES: list[Case] = [
    *per_dtype(OP, "all", FLOAT_DTYPES, lambda t: _case("", t, (2, 2, 5, 4), (3, 2, 3, 2))),
    *per_dtype(
        OP,
        "stride_pad_dilation",
        FLOAT_DTYPES,
        lambda t: _case("", t, (1, 2, 7, 6), (2, 2, 3, 2), stride=(2, 1), padding=(1, 2), dilation=(2, 1)),
    ),
    *per_dtype(OP, "groups", FLOAT_DTYPES, lambda t: _case("", t, (1, 4, 5, 5), (6, 2, 2, 3), groups=2)),
    _case("f32_input_only", torch.float32, (1, 2, 4, 4), (2, 2, 2, 2), mask=(True, False, False), bias=False),
    _case("f32_weight_only", torch.float32, (2, 2, 4, 4), (2, 2, 2, 2), mask=(False, True, False), bias=False),
    _case("f32_bias_only", torch.float32, (2, 2, 4, 4), (3, 2, 2, 2), mask=(False, False, True)),
    _case("f32_weight_bias", torch.float32, (1, 3, 4, 5), (2, 3, 3, 3), mask=(False, True, True), padding=(1, 1)),
    _case("f32_input_bias", torch.float32, (1, 2, 4, 4), (2, 1, 2, 2), mask=(True, False, True), groups=2),
    _case("f64_stride_exceeds_kernel", torch.float64, (1, 1, 7, 7), (2, 1, 2, 2), stride=(3, 3)),
    _case("f32_pointwise", torch.float32, (2, 3, 3, 3), (4, 3, 1, 1)),
    _case("f32_depthwise", torch.float32, (1, 3, 5, 5), (3, 1, 3, 3), groups=3, padding=(1, 1)),
    _case(
        "f32_transposed",
        torch.float32,
        (1, 2, 3, 3),
        (2, 3, 2, 2),
        transposed=True,
        unsupported="ExecuTorch's kernel takes no transposed convolution",
    ),
    _case(
        "f32_1d",
        torch.float32,
        (1, 2, 6),
        (3, 2, 3),
        stride=(1,),
        padding=(0,),
        dilation=(1,),
        unsupported="ExecuTorch's kernel takes only 2-D convolutions",
    ),
]
