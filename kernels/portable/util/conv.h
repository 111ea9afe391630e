// Convolution geometry shared by convolution.out and convolution_backward.out:
// PyTorch's rules for channels, groups, stride, padding, dilation and output
// extents, with every size from the program checked before it is used in
// index arithmetic.
#pragma once

#include "sb/error.h"
#include "sb/span.h"
#include "sb/tensor.h"

namespace sb::kernels {

struct ConvGeometry {
  int64_t n, c_in, h, w;  // input (1-D convolutions: h = 1)
  int64_t c_out, kh, kw;  // weight
  int64_t oh, ow;         // output
  int64_t sh, sw, ph, pw, dh, dw;
  int64_t groups;
  bool transposed;  // weight is [c_in, c_out / groups, kh, kw]; each input element scatters into the output
};

// Validates a 1-D or 2-D convolution of `in` by `weight` and gives its geometry.
Error conv_geometry(const char* op, const Tensor& in, const Tensor& weight, Span<const int64_t> stride,
                    Span<const int64_t> padding, Span<const int64_t> dilation, bool transposed,
                    Span<const int64_t> output_padding, int64_t groups, ConvGeometry* g);

// The output shape ([n, c_out, oh, ow], or [n, c_out, ow] for a 1-D convolution); returns its rank.
int32_t conv_out_sizes(const Tensor& in, const ConvGeometry& g, int64_t* sizes);

}  // namespace sb::kernels
