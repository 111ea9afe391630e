// Choosing a scale and zero point from the range of float values, as
// ExecuTorch's choose_qparams kernels do: the range widened to hold 0, a
// scale no smaller than 6.1e-5 (so 1/scale stays finite in Half), and the
// zero point nudged into [quant_min, quant_max].
#pragma once

#include <cstdint>

#include "sb/error.h"
#include "sb/tensor.h"

namespace sb::quantized {

// For each of `rows` runs of `row_length` floats of `in` (a Float tensor of
// rows * row_length elements, row_length >= 1): its scale and zero point.
// Fails when a row's range gives no positive scale (a NaN in it).
Error choose_row_qparams(const char* op, const Tensor& in, int64_t rows, int64_t row_length, int32_t quant_min,
                         int32_t quant_max, double* scales, int64_t* zero_points);

}  // namespace sb::quantized
