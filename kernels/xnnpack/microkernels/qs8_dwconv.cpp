// The qs8 depthwise micro-kernel (qs8_dwconv.h). Its loops are plain C++ that the compiler
// vectorises; on x86-64 the same body is also compiled for AVX-512 and chosen at run time.
#include "xnnpack/microkernels/qs8_dwconv.h"

#include "xnnpack/microkernels/qs8_requantize.h"

namespace sb::xnnpack_nodes::qs8 {
namespace {

__attribute__((always_inline)) inline void depthwise_body(const int8_t* x_plane, const ConvShape& s,
                                                          const int8_t* weights, int32_t bias, int32_t input_zero_point,
                                                          float multiplier, int32_t output_zero_point, int32_t qmin,
                                                          int32_t qmax, int32_t* scratch, int8_t* out) {
  const int64_t hq = s.phase_h(), wq = s.phase_w(), taps = s.kh * s.kw, grid = s.grid_positions();
  int32_t* tap_offsets = scratch;
  int32_t* plane = tap_offsets + taps;
  int32_t* acc = plane + s.sh * s.sw * s.phase_plane() + wq + 64;
  for (int64_t ky = 0; ky < s.kh; ++ky) {
    for (int64_t kx = 0; kx < s.kw; ++kx) {
      const int64_t phase = ky * s.dh % s.sh * s.sw + kx * s.dw % s.sw;
      tap_offsets[ky * s.kw + kx] =
          static_cast<int32_t>(phase * s.phase_plane() + ky * s.dh / s.sh * wq + kx * s.dw / s.sw);
    }
  }
  int32_t* dst = plane;
  for (int64_t pr = 0; pr < s.sh; ++pr) {
    for (int64_t pc = 0; pc < s.sw; ++pc) {
      int64_t first = (s.pw - pc + s.sw - 1) / s.sw;
      first = first < 0 ? 0 : first > wq ? wq : first;
      int64_t last = (s.w + s.pw - pc + s.sw - 1) / s.sw;
      last = last < first ? first : last > wq ? wq : last;
      const int64_t origin = pc - s.pw;
      for (int64_t i = 0; i < hq; ++i, dst += wq) {
        const int64_t row = i * s.sh + pr - s.ph;
        if (row < 0 || row >= s.h) {
          for (int64_t j = 0; j < wq; ++j) dst[j] = 0;
          continue;
        }
        const int8_t* src = x_plane + row * s.w;
        for (int64_t j = 0; j < first; ++j) dst[j] = 0;
        for (int64_t j = first; j < last; ++j) dst[j] = src[j * s.sw + origin] - input_zero_point;
        for (int64_t j = last; j < wq; ++j) dst[j] = 0;
      }
    }
  }
  for (int64_t j = 0; j < wq + 64; ++j) dst[j] = 0;
  for (int64_t q = 0; q < grid; ++q) acc[q] = bias;
  for (int64_t t = 0; t < taps; ++t) {
    const int32_t w = weights[t];
    const int32_t* src = plane + tap_offsets[t];
    for (int64_t q = 0; q < grid; ++q) acc[q] += w * src[q];
  }
  for (int64_t oy = 0; oy < s.oh; ++oy) {
    const int32_t* row = acc + oy * wq;
    int8_t* y = out + oy * s.ow;
    for (int64_t ox = 0; ox < s.ow; ++ox) {
      y[ox] = requantize(row[ox], multiplier, output_zero_point, qmin, qmax);
    }
  }
}

void depthwise_portable(const int8_t* x_plane, const ConvShape& s, const int8_t* weights, int32_t bias,
                        int32_t input_zero_point, float multiplier, int32_t output_zero_point, int32_t qmin,
                        int32_t qmax, int32_t* scratch, int8_t* out) {
  depthwise_body(x_plane, s, weights, bias, input_zero_point, multiplier, output_zero_point, qmin, qmax, scratch, out);
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
__attribute__((target("avx512f,avx512bw,avx512vl"))) void depthwise_avx512(
    const int8_t* x_plane, const ConvShape& s, const int8_t* weights, int32_t bias, int32_t input_zero_point,
    float multiplier, int32_t output_zero_point, int32_t qmin, int32_t qmax, int32_t* scratch, int8_t* out) {
  depthwise_body(x_plane, s, weights, bias, input_zero_point, multiplier, output_zero_point, qmin, qmax, scratch, out);
}
#endif

}  // namespace

DepthwiseKernel depthwise_kernel() {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  static const DepthwiseKernel chosen = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") ? &depthwise_avx512
                                                                                   : &depthwise_portable;
  }();
  return chosen;
#else
  return &depthwise_portable;
#endif
}

}  // namespace sb::xnnpack_nodes::qs8
