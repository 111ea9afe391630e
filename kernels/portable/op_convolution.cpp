// aten::convolution.out(Tensor input, Tensor weight, Tensor? bias, int[] stride, int[] padding,
//                       int[] dilation, bool transposed, int[] output_padding, int groups, *, Tensor(a!) out)
//
// Direct 2-D convolution (1-D inputs run as height 1), with groups and dilation, plain or transposed.
#include "sb/kernel.h"
#include "util/conv.h"
#include "util/dtype_switch.h"
#include "util/promote.h"
#include "util/shape.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::convolution.out";

Error geometry(Args args, ConvGeometry* g) {
  return conv_geometry(kOp, *args[0]->as_tensor, *args[1]->as_tensor, args[3]->as_int_list, args[4]->as_int_list,
                       args[5]->as_int_list, args[6]->as_bool, args[7]->as_int_list, args[8]->as_int, g);
}

int64_t ceil_div(int64_t a, int64_t b) { return a >= 0 ? (a + b - 1) / b : -((-a) / b); }
int64_t floor_div(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

// Element strides (n, c, h, w) of a 3-D or 4-D tensor in its dim order (a
// 1-D convolution's height has size 1); the default order gives row-major.
struct Strides4 {
  int64_t n, c, h, w;
};

Strides4 strides_of(const Tensor& t) {
  int64_t s[kMaxDims];
  dim_order_strides(t, s);
  return t.dim == 4 ? Strides4{s[0], s[1], s[2], s[3]} : Strides4{s[0], s[1], 0, s[2]};
}

// Input, weight and out each in their own dim order (channels-last programs
// keep all three channels-last); the order of accumulation does not change.
template <typename T>
void convolve(const ConvGeometry& g, const T* x, Strides4 xs, const T* w, Strides4 ws, const T* bias, T* y,
              Strides4 ys) {
  const int64_t cin_g = g.c_in / g.groups;
  const int64_t cout_g = g.c_out / g.groups;
  for (int64_t n = 0; n < g.n; ++n) {
    for (int64_t oc = 0; oc < g.c_out; ++oc) {
      T* out = y + n * ys.n + oc * ys.c;
      for (int64_t oh = 0; oh < g.oh; ++oh) {
        for (int64_t ow = 0; ow < g.ow; ++ow) out[oh * ys.h + ow * ys.w] = T(0);
      }
      const int64_t group = oc / cout_g;
      for (int64_t icg = 0; icg < cin_g; ++icg) {
        const T* plane = x + n * xs.n + (group * cin_g + icg) * xs.c;
        const T* taps = w + oc * ws.n + icg * ws.c;
        for (int64_t kh = 0; kh < g.kh; ++kh) {
          for (int64_t kw = 0; kw < g.kw; ++kw) {
            const T tap = taps[kh * ws.h + kw * ws.w];
            // Output columns whose input column lands inside the row.
            const int64_t shift = kw * g.dw - g.pw;
            int64_t ow_begin = ceil_div(-shift, g.sw);
            int64_t ow_end = floor_div(g.w - 1 - shift, g.sw) + 1;
            ow_begin = ow_begin < 0 ? 0 : ow_begin;
            ow_end = ow_end > g.ow ? g.ow : ow_end;
            for (int64_t oh = 0; oh < g.oh; ++oh) {
              const int64_t ih = oh * g.sh - g.ph + kh * g.dh;
              if (ih < 0 || ih >= g.h) continue;
              const T* row = plane + ih * xs.h;
              T* dst = out + oh * ys.h;
              for (int64_t ow = ow_begin; ow < ow_end; ++ow) {
                dst[ow * ys.w] = mul_add(dst[ow * ys.w], tap, row[(shift + ow * g.sw) * xs.w]);
              }
            }
          }
        }
      }
      // The bias comes last, as ExecuTorch adds it.
      if (bias) {
        for (int64_t oh = 0; oh < g.oh; ++oh) {
          for (int64_t ow = 0; ow < g.ow; ++ow) {
            T& v = out[oh * ys.h + ow * ys.w];
            v = mul_add(v, bias[oc], T(1));
          }
        }
      }
    }
  }
}

// Each input element adds its products with the taps into the output
// positions it reaches; the output starts as the bias (or zero), as
// ExecuTorch's transposed convolution does.
template <typename T>
void convolve_transposed(const ConvGeometry& g, const T* x, const T* w, const T* bias, T* y) {
  const int64_t cin_g = g.c_in / g.groups;
  const int64_t cout_g = g.c_out / g.groups;
  const int64_t plane = g.oh * g.ow;
  for (int64_t n = 0; n < g.n; ++n) {
    for (int64_t oc = 0; oc < g.c_out; ++oc) {
      T* out = y + (n * g.c_out + oc) * plane;
      for (int64_t i = 0; i < plane; ++i) out[i] = bias ? bias[oc] : T(0);
      const int64_t group = oc / cout_g;
      for (int64_t ih = 0; ih < g.h; ++ih) {
        for (int64_t iw = 0; iw < g.w; ++iw) {
          for (int64_t icg = 0; icg < cin_g; ++icg) {
            const int64_t ic = group * cin_g + icg;
            const T value = x[((n * g.c_in + ic) * g.h + ih) * g.w + iw];
            const T* taps = w + (ic * cout_g + (oc - group * cout_g)) * g.kh * g.kw;
            for (int64_t kh = 0; kh < g.kh; ++kh) {
              const int64_t oh = ih * g.sh + kh * g.dh - g.ph;
              if (oh < 0 || oh >= g.oh) continue;
              for (int64_t kw = 0; kw < g.kw; ++kw) {
                const int64_t ow = iw * g.sw + kw * g.dw - g.pw;
                if (ow < 0 || ow >= g.ow) continue;
                out[oh * g.ow + ow] = mul_add(out[oh * g.ow + ow], value, taps[kh * g.kw + kw]);
              }
            }
          }
        }
      }
    }
  }
}

Error convolution_out_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& in = *args[0]->as_tensor;
  const Tensor& weight = *args[1]->as_tensor;
  Tensor& out = *args[9]->as_tensor;
  ConvGeometry g{};
  Error err = geometry(args, &g);
  if (!err.ok()) return err;
  int64_t out_sizes[4];
  err = resize_output(kOp, out, out_sizes, conv_out_sizes(in, g, out_sizes));
  if (!err.ok()) return err;
  if (!(err = check_dtype(kOp, "input", in, out.dtype)).ok()) return err;
  if (!(err = check_dtype(kOp, "weight", weight, out.dtype)).ok()) return err;
  // Plain convolutions take any dim order (channels-last above all); the transposed one reads row-major.
  if (g.transposed && !(in.is_default_dim_order() && weight.is_default_dim_order() && out.is_default_dim_order())) {
    return Error::make(ErrorCode::kNotSupported, "%s: a transposed convolution takes the default dim order only", kOp);
  }
  if (!args[2]->is_none()) {
    if (args[2]->as_tensor->numel() != g.c_out) return Error::make(ErrorCode::kInvalidArgument, "%s: bias size", kOp);
    if (!(err = check_dtype(kOp, "bias", *args[2]->as_tensor, out.dtype)).ok()) return err;
  }
  return switch_dtype<kOp, kRealHBF16>(out.dtype, [&](auto zero) {
    using T = decltype(zero);
    const T* bias = args[2]->is_none() ? nullptr : args[2]->as_tensor->data_as<T>();
    if (g.transposed) {
      convolve_transposed<T>(g, in.data_as<T>(), weight.data_as<T>(), bias, out.data_as<T>());
    } else {
      convolve<T>(g, in.data_as<T>(), strides_of(in), weight.data_as<T>(), strides_of(weight), bias,
                  out.data_as<T>(), strides_of(out));
    }
    return Error();
  });
}

}  // namespace

extern const KernelDef convolution_out{kOp, "TTtIIIbIi|T", &convolution_out_impl, {}, LayoutPolicy::kAny};

}  // namespace sb::kernels
