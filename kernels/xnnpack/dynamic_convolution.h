// XNNPACK's dynamically quantized convolutions (conv2d, depthwise_conv2d and conv_transpose2d .qd8_qc8w):
// int8 NCHW images quantized at run time (each image's scale and zero point in row_params, from
// convert.f32_qd8), per-channel int8 filters, fp32 out. Shared by the three node kinds.
#pragma once

#include "quantized.h"

namespace sb::xnnpack_nodes::qs8 {

// Each output pixel: the int32 sum of (x - its image's zero point) * w over the taps that reach it,
// times its image's scale and its channel's filter scale, plus the bias, clamped. A regular
// convolution takes the filter OIHW ([O, I/g, kh, kw]); a transposed one ATen's transposed layout
// ([I, O/g, kh, kw]) and gathers the input pixels whose strided taps land on the output pixel.
// Arguments: input, row_params ([N, 2]: scale, zero point), weight, bias (fp32 or none),
// weight_scales ([O]), stride, padding, dilation, then output_padding for a transposed one (already
// in the output's size), groups, output min, output max, out.
inline Error dynamic_conv(Args args, bool transposed) {
  const Tensor& x = *args[0]->as_tensor;
  const float* params = args[1]->as_tensor->data_as<float>();
  const Tensor& w = *args[2]->as_tensor;
  const float* bias = args[3]->is_none() ? nullptr : args[3]->as_tensor->data_as<float>();
  const float* scales = args[4]->as_tensor->data_as<float>();
  const int64_t sh = args[5]->as_int_list[0], sw = args[5]->as_int_list[1];
  const int64_t ph = args[6]->as_int_list[0], pw = args[6]->as_int_list[1];
  const int64_t dh = args[7]->as_int_list[0], dw = args[7]->as_int_list[1];
  const size_t next = transposed ? 9 : 8;
  const int64_t groups = args[next]->as_int;
  const float lo = static_cast<float>(args[next + 1]->as_double), hi = static_cast<float>(args[next + 2]->as_double);
  Tensor& y = *args[next + 3]->as_tensor;
  const int64_t c = x.sizes[1], h = x.sizes[2], wd = x.sizes[3];
  const int64_t oc = y.sizes[1], oh = y.sizes[2], ow = y.sizes[3];
  const int64_t gic = c / groups, goc = oc / groups, kh = w.sizes[2], kw = w.sizes[3];
  const int8_t* weights = w.data_as<int8_t>();
  for (int64_t b = 0; b < x.sizes[0]; ++b) {
    const int8_t* image = x.data_as<int8_t>() + b * c * h * wd;
    const float image_scale = params[2 * b];
    const int32_t zero_point = static_cast<int32_t>(params[2 * b + 1]);
    float* out = y.data_as<float>() + b * oc * oh * ow;
    for (int64_t o = 0; o < oc; ++o) {
      const int64_t group = o / goc, ol = o % goc;
      const float scale = image_scale * scales[o];
      for (int64_t oy = 0; oy < oh; ++oy) {
        for (int64_t ox = 0; ox < ow; ++ox) {
          int32_t acc = 0;
          for (int64_t ky = 0; ky < kh; ++ky) {
            const int64_t iy = tap_input(oy, ky, sh, ph, dh, h, transposed);
            if (iy < 0) continue;
            for (int64_t kx = 0; kx < kw; ++kx) {
              const int64_t ix = tap_input(ox, kx, sw, pw, dw, wd, transposed);
              if (ix < 0) continue;
              for (int64_t ic = 0; ic < gic; ++ic) {
                const int64_t ci = group * gic + ic;
                const int64_t filter_row = transposed ? ci * goc + ol : o * gic + ic;
                const int64_t tap = (filter_row * kh + ky) * kw + kx;
                acc += (image[(ci * h + iy) * wd + ix] - zero_point) * static_cast<int32_t>(weights[tap]);
              }
            }
          }
          float v = static_cast<float>(acc) * scale;
          if (bias != nullptr) v += bias[o];
          out[(o * oh + oy) * ow + ox] = v < lo ? lo : v > hi ? hi : v;
        }
      }
    }
  }
  return Error();
}

}  // namespace sb::xnnpack_nodes::qs8
