// aten::convolution.out(Tensor input, Tensor weight, Tensor? bias, int[] stride, int[] padding,
//                       int[] dilation, bool transposed, int[] output_padding, int groups, *, Tensor(a!) out)
//
// fp32 2-D NCHW convolution as a GEMM per (image, group): out[Cout_g x OH*OW] =
// weight[Cout_g x Cin_g*KH*KW] * im2col(input)[Cin_g*KH*KW x OH*OW] + bias.
// A 1x1, stride-1, unpadded convolution multiplies the input planes in place;
// every other geometry packs its im2col panels tile by tile (zero padding
// written while packing) into the GEMM's stack scratch. Depthwise, transposed,
// 1-D, non-fp32 and non-default dim orders go to the portable kernel.
#include "optimized/util/gemm.h"
#include "sb/kernel.h"
#include "util/conv.h"
#include "util/shape.h"

#include <cstring>

namespace sb::kernels {
extern const KernelDef convolution_out;
}  // namespace sb::kernels

namespace sb::optimized {
namespace {

constexpr char kOp[] = "aten::convolution.out";

// The implicit B of one (image, group): row k = (ic, ky, kx), column j = (oy, ox).
struct Im2col {
  const float* x;  // first input plane of the group
  int64_t h, w, kh, kw, sh, sw, ph, pw, dh, dw, ow;
};

void pack_im2col(const void* ctx, int64_t k0, int64_t kc, int64_t j0, int64_t nr, int64_t width, float* dst) {
  const Im2col& s = *static_cast<const Im2col*>(ctx);
  const int64_t taps = s.kh * s.kw;
  int64_t ic = k0 / taps;
  int64_t ky = (k0 % taps) / s.kw;
  int64_t kx = k0 % s.kw;
  const int64_t oy0 = j0 / s.ow;
  const int64_t ox0 = j0 % s.ow;
  for (int64_t p = 0; p < kc; ++p) {
    const float* plane = s.x + ic * s.h * s.w;
    float* d = dst;
    int64_t oy = oy0;
    int64_t ox = ox0;
    int64_t left = nr;
    while (left > 0) {
      const int64_t seg = s.ow - ox < left ? s.ow - ox : left;
      const int64_t iy = oy * s.sh - s.ph + ky * s.dh;
      if (iy < 0 || iy >= s.h) {
        std::memset(d, 0, static_cast<size_t>(seg) * sizeof(float));
      } else {
        const float* row = plane + iy * s.w;
        const int64_t ix0 = ox * s.sw - s.pw + kx * s.dw;  // input column of d[0]
        if (s.sw == 1) {
          // d[t] reads row[ix0 + t]: zeros where ix0 + t is outside [0, w).
          int64_t lo = -ix0;
          lo = lo < 0 ? 0 : lo > seg ? seg : lo;
          int64_t hi = s.w - ix0;
          hi = hi < lo ? lo : hi > seg ? seg : hi;
          if (lo > 0) std::memset(d, 0, static_cast<size_t>(lo) * sizeof(float));
          if (hi > lo) std::memcpy(d + lo, row + ix0 + lo, static_cast<size_t>(hi - lo) * sizeof(float));
          if (seg > hi) std::memset(d + hi, 0, static_cast<size_t>(seg - hi) * sizeof(float));
        } else {
          for (int64_t t = 0; t < seg; ++t) {
            const int64_t ix = ix0 + t * s.sw;
            d[t] = ix >= 0 && ix < s.w ? row[ix] : 0.0f;
          }
        }
      }
      d += seg;
      left -= seg;
      ox = 0;
      ++oy;
    }
    if (width > nr) std::memset(dst + nr, 0, static_cast<size_t>(width - nr) * sizeof(float));
    dst += width;
    if (++kx == s.kw) {
      kx = 0;
      if (++ky == s.kh) {
        ky = 0;
        ++ic;
      }
    }
  }
}

bool is_f32_default(const Tensor& t) { return t.dtype == ScalarType::kFloat && t.is_default_dim_order(); }

Error convolution_out_impl(KernelContext& ctx, Args args) {
  const Tensor& in = *args[0]->as_tensor;
  const Tensor& weight = *args[1]->as_tensor;
  const Value& bias_v = *args[2];
  Tensor& out = *args[9]->as_tensor;
  const bool fast_types = in.dim == 4 && !args[6]->as_bool && is_f32_default(in) && is_f32_default(weight) &&
                          is_f32_default(out) && (bias_v.is_none() || bias_v.as_tensor->dtype == ScalarType::kFloat);
  if (!fast_types) return sb::kernels::convolution_out.fn(ctx, args);
  kernels::ConvGeometry g{};
  Error err = kernels::conv_geometry(kOp, in, weight, args[3]->as_int_list, args[4]->as_int_list, args[5]->as_int_list,
                                     false, args[7]->as_int_list, args[8]->as_int, &g);
  if (!err.ok()) return sb::kernels::convolution_out.fn(ctx, args);
  const int64_t cin_g = g.c_in / g.groups;
  const int64_t cout_g = g.c_out / g.groups;
  if (cin_g == 1 && g.groups > 1) return sb::kernels::convolution_out.fn(ctx, args);  // depthwise
  int64_t out_sizes[4];
  err = kernels::resize_output(kOp, out, out_sizes, kernels::conv_out_sizes(in, g, out_sizes));
  if (!err.ok()) return err;
  if (!bias_v.is_none() && bias_v.as_tensor->numel() != g.c_out) return sb::kernels::convolution_out.fn(ctx, args);

  const float* x = in.data_as<float>();
  const float* w = weight.data_as<float>();
  const float* bias = bias_v.is_none() ? nullptr : bias_v.as_tensor->data_as<float>();
  float* y = out.data_as<float>();
  const int64_t k = cin_g * g.kh * g.kw;
  const int64_t n_cols = g.oh * g.ow;
  const int64_t in_plane = g.h * g.w;
  const bool pointwise = g.kh == 1 && g.kw == 1 && g.sh == 1 && g.sw == 1 && g.ph == 0 && g.pw == 0;
  for (int64_t n = 0; n < g.n; ++n) {
    for (int64_t grp = 0; grp < g.groups; ++grp) {
      const float* xg = x + (n * g.c_in + grp * cin_g) * in_plane;
      const float* a = w + grp * cout_g * k;
      float* c = y + (n * g.c_out + grp * cout_g) * n_cols;
      GemmBias gb;
      gb.row = bias ? bias + grp * cout_g : nullptr;
      if (pointwise) {
        gemm_f32(cout_g, n_cols, k, a, k, xg, in_plane, c, n_cols, gb);
      } else {
        const Im2col src{xg, g.h, g.w, g.kh, g.kw, g.sh, g.sw, g.ph, g.pw, g.dh, g.dw, g.ow};
        gemm_f32_packed(cout_g, n_cols, k, a, k, PanelPacker{&pack_im2col, &src}, c, n_cols, gb);
      }
    }
  }
  return Error();
}

}  // namespace

extern const KernelDef opt_convolution_out{kOp, "TTtIIIbIi|T", &convolution_out_impl, {}, LayoutPolicy::kAny};

}  // namespace sb::optimized
