// optimized/microkernels/unary_f32.h's loops: vec_math.h's functions mapped over memory.
#include "optimized/microkernels/unary_f32.h"

#include "optimized/simd/vec.h"
#include "optimized/simd/vec_math.h"

namespace sb::optimized {

void exp_f32(const float* x, float* y, int64_t n) {
  map_unary_f32(x, y, n, [](VecF v) { return vexp(v); });
}

void sigmoid_f32(const float* x, float* y, int64_t n) {
  map_unary_f32(x, y, n, [](VecF v) { return vsigmoid(v); });
}

void tanh_f32(const float* x, float* y, int64_t n) {
  map_unary_f32(x, y, n, [](VecF v) { return vtanh(v); });
}

void gelu_erf_f32(const float* x, float* y, int64_t n) {
  map_unary_f32(x, y, n, [](VecF v) { return vgelu_erf(v); });
}

void gelu_tanh_f32(const float* x, float* y, int64_t n) {
  map_unary_f32(x, y, n, [](VecF v) { return vgelu_tanh(v); });
}

void rsqrt_f32(const float* x, float* y, int64_t n) {
  map_unary_f32(x, y, n, [](VecF v) { return vrsqrt(v); });
}

}  // namespace sb::optimized
