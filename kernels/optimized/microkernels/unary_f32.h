// The float unary maps of the optimized activation and math kernels, one
// out-of-line loop each (unary_f32.cpp): a kernel's own code is its fast-path
// checks, and kernels computing the same function share its loop (rsqrt.out and
// pow.Tensor_Scalar_out's exponent -0.5). y may alias x.
#pragma once

#include <cstdint>

namespace sb::optimized {

void exp_f32(const float* x, float* y, int64_t n);
void sigmoid_f32(const float* x, float* y, int64_t n);
void tanh_f32(const float* x, float* y, int64_t n);
void gelu_erf_f32(const float* x, float* y, int64_t n);
void gelu_tanh_f32(const float* x, float* y, int64_t n);
void rsqrt_f32(const float* x, float* y, int64_t n);

}  // namespace sb::optimized
