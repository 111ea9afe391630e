// Geometry shared by the bilinear upsampling kernels (upsample_bilinear2d.vec,
// _upsample_bilinear2d_aa): output size and source-pixel scale per axis, as
// ExecuTorch's portable kernels compute them.
#pragma once

#include <cstdint>

#include "sb/error.h"
#include "sb/tensor.h"
#include "sb/value.h"

namespace sb::kernels {

struct Upsample2d {
  int64_t planes = 0;  // N * C
  int64_t h = 0, w = 0, oh = 0, ow = 0;
  float ratio_h = 0, ratio_w = 0;  // input pixels per output pixel (align_corners: (in - 1) / (out - 1))
};

// `output_size` (an int list or None) or `scale_h`/`scale_w` (> 0; used when
// output_size is None, output = floor(in * scale)); `in` must be 4-D.
Error plan_upsample2d(const char* op, const Tensor& in, const Value& output_size, bool has_scales, double scale_h,
                      double scale_w, bool align_corners, Upsample2d* plan);

// plan_upsample2d, then out takes [N, C, oh, ow] and must have in's dtype: the
// set-up of both bilinear kernels.
Error plan_upsample2d_out(const char* op, const Tensor& in, const Value& output_size, bool has_scales,
                          double scale_h, double scale_w, bool align_corners, Tensor& out, Upsample2d* plan);

// Source pixel of output pixel `dst` (not clamped at the top; negative values
// clamp to 0 unless align_corners), as ATen's area_pixel_compute_source_index.
inline float upsample_source(float ratio, int64_t dst, bool align_corners) {
  if (align_corners) return ratio * static_cast<float>(dst);
  const float src = ratio * (static_cast<float>(dst) + 0.5f) - 0.5f;
  return src < 0.0f ? 0.0f : src;
}

}  // namespace sb::kernels
