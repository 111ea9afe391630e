// XNNPACK's int8 deconvolution (conv_transpose2d.qs8 and .qs8_qc8w), shared by both node kinds.
#pragma once

#include "quantized.h"

namespace sb::xnnpack_nodes::qs8 {

// A transposed convolution of int8 NCHW images by an int8 filter packed as ATen's transposed one
// ([groups * I/g, O/g, kh, kw]). Each output pixel gathers the input pixels whose strided taps land
// on it: int32 accumulation of (x - input zero point) * w from the bias, then requantization by its
// channel's multiplier. Arguments, as the plan passes them: input, weight, bias (int32 or none),
// stride, padding, dilation, output_padding (already in the output's size), groups, multipliers,
// input zero point, output zero point, output min, output max, out.
inline Error deconv(Args args) {
  const Tensor& x = *args[0]->as_tensor;
  const Tensor& w = *args[1]->as_tensor;
  const int32_t* bias = args[2]->is_none() ? nullptr : args[2]->as_tensor->data_as<int32_t>();
  const int64_t sh = args[3]->as_int_list[0], sw = args[3]->as_int_list[1];
  const int64_t ph = args[4]->as_int_list[0], pw = args[4]->as_int_list[1];
  const int64_t dh = args[5]->as_int_list[0], dw = args[5]->as_int_list[1];
  const int64_t groups = args[7]->as_int;
  const float* multipliers = args[8]->as_tensor->data_as<float>();
  const int32_t zi = static_cast<int32_t>(args[9]->as_int), zo = static_cast<int32_t>(args[10]->as_int);
  const int32_t lo = static_cast<int32_t>(args[11]->as_int), hi = static_cast<int32_t>(args[12]->as_int);
  Tensor& y = *args[13]->as_tensor;
  const int64_t c = x.sizes[1], h = x.sizes[2], wd = x.sizes[3];
  const int64_t oc = y.sizes[1], oh = y.sizes[2], ow = y.sizes[3];
  const int64_t gic = c / groups, goc = oc / groups, kh = w.sizes[2], kw = w.sizes[3];
  const int8_t* weights = w.data_as<int8_t>();
  for (int64_t b = 0; b < x.sizes[0]; ++b) {
    const int8_t* image = x.data_as<int8_t>() + b * c * h * wd;
    int8_t* out = y.data_as<int8_t>() + b * oc * oh * ow;
    for (int64_t o = 0; o < oc; ++o) {
      const int64_t group = o / goc, ol = o % goc;
      for (int64_t oy = 0; oy < oh; ++oy) {
        for (int64_t ox = 0; ox < ow; ++ox) {
          int32_t acc = bias != nullptr ? bias[o] : 0;
          for (int64_t ky = 0; ky < kh; ++ky) {
            const int64_t iy = tap_input(oy, ky, sh, ph, dh, h, true);
            if (iy < 0) continue;
            for (int64_t kx = 0; kx < kw; ++kx) {
              const int64_t ix = tap_input(ox, kx, sw, pw, dw, wd, true);
              if (ix < 0) continue;
              const int64_t at = iy * wd + ix;
              for (int64_t ic = 0; ic < gic; ++ic) {
                const int64_t ci = group * gic + ic;
                acc += (image[ci * h * wd + at] - zi) * static_cast<int32_t>(weights[((ci * goc + ol) * kh + ky) * kw + kx]);
              }
            }
          }
          out[(o * oh + oy) * ow + ox] = static_cast<int8_t>(requantize(acc, multipliers[o], zo, lo, hi));
        }
      }
    }
  }
  return Error();
}

}  // namespace sb::xnnpack_nodes::qs8
