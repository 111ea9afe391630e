// aten::convolution.out(Tensor input, Tensor weight, Tensor? bias, int[] stride, int[] padding,
//                       int[] dilation, bool transposed, int[] output_padding, int groups, *, Tensor(a!) out)
//
// Direct 2-D convolution (1-D inputs run as height 1), with groups and dilation, plain or transposed.
#include <initializer_list>

#include "sb/kernel.h"
#include "util/dtype_switch.h"
#include "util/promote.h"
#include "util/shape.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::convolution.out";

struct Geometry {
  int64_t n, c_in, h, w;       // input
  int64_t c_out, kh, kw;       // weight
  int64_t oh, ow;              // output
  int64_t sh, sw, ph, pw, dh, dw;
  int64_t groups;
  bool transposed;  // weight is [c_in, c_out / groups, kh, kw]; each input element scatters into the output
};

// A 1- or 2-element int list as (for height, for width); 1-D convs use (1 or 0, v).
Error pair(Span<const int64_t> v, int32_t spatial, int64_t fill, int64_t* a, int64_t* b, const char* what) {
  if (static_cast<int32_t>(v.size()) != spatial && v.size() != 1) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: %s has %zu values for %d spatial dims", kOp, what, v.size(),
                       spatial);
  }
  *b = v[v.size() - 1];
  *a = spatial == 1 ? fill : v[0];
  return Error();
}

// Output extent of one spatial dim, or false when the arithmetic overflows
// (sizes come from the program; a corrupt one must not wrap into a small extent).
bool out_extent(bool transposed, int64_t in, int64_t k, int64_t stride, int64_t pad, int64_t dilation,
                int64_t output_padding, int64_t* out) {
  int64_t span = 0;  // dilation * (k - 1)
  if (__builtin_mul_overflow(dilation, k - 1, &span)) return false;
  int64_t v = 0;
  if (transposed) {  // (in - 1) * stride - 2 * pad + span + output_padding + 1
    return !__builtin_mul_overflow(in - 1, stride, &v) && !__builtin_sub_overflow(v, 2 * pad, &v) &&
           !__builtin_add_overflow(v, span, &v) && !__builtin_add_overflow(v, output_padding + 1, out);
  }
  // (in + 2 * pad - span - 1) / stride + 1
  if (__builtin_add_overflow(in, 2 * pad, &v) || __builtin_sub_overflow(v, span, &v) || v == INT64_MIN) return false;
  v -= 1;
  *out = v / stride + 1;
  return true;
}

Error geometry(Args args, Geometry* g) {
  const Tensor& in = *args[0]->as_tensor;
  const Tensor& weight = *args[1]->as_tensor;
  if (in.dim != 3 && in.dim != 4) return Error::make(ErrorCode::kNotSupported, "%s: only 1-D and 2-D convolutions", kOp);
  if (weight.dim != in.dim) return Error::make(ErrorCode::kInvalidArgument, "%s: weight rank differs from input", kOp);
  const int32_t spatial = in.dim - 2;
  g->n = in.sizes[0];
  g->c_in = in.sizes[1];
  g->h = spatial == 2 ? in.sizes[2] : 1;
  g->w = in.sizes[in.dim - 1];
  g->groups = args[8]->as_int;
  g->transposed = args[6]->as_bool;
  g->c_out = weight.sizes[0];  // transposed: weight.sizes[1] * groups, once groups is checked
  g->kh = spatial == 2 ? weight.sizes[2] : 1;
  g->kw = weight.sizes[weight.dim - 1];
  int64_t oph = 0;
  int64_t opw = 0;
  Error err = pair(args[3]->as_int_list, spatial, 1, &g->sh, &g->sw, "stride");
  if (err.ok()) err = pair(args[4]->as_int_list, spatial, 0, &g->ph, &g->pw, "padding");
  if (err.ok()) err = pair(args[5]->as_int_list, spatial, 1, &g->dh, &g->dw, "dilation");
  if (err.ok() && g->transposed) err = pair(args[7]->as_int_list, spatial, 0, &oph, &opw, "output_padding");
  if (!err.ok()) return err;
  // Division, not multiplication, relates channels to groups: a corrupt group count cannot overflow.
  const bool channels_fit =
      g->groups >= 1 && g->c_in % g->groups == 0 &&
      (g->transposed ? weight.sizes[0] == g->c_in && !__builtin_mul_overflow(weight.sizes[1], g->groups, &g->c_out)
                     : g->c_in / g->groups == weight.sizes[1]);
  if (!channels_fit || g->c_out % g->groups != 0) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: channels do not divide into %lld groups", kOp,
                       static_cast<long long>(g->groups));
  }
  for (int64_t v : {g->sh, g->sw, g->ph, g->pw, g->dh, g->dw, g->groups, oph, opw}) {
    if (!plausible_geometry(v)) return Error::make(ErrorCode::kInvalidArgument, "%s: implausible geometry", kOp);
  }
  if (g->sh < 1 || g->sw < 1 || g->dh < 1 || g->dw < 1 || g->ph < 0 || g->pw < 0 || oph < 0 || opw < 0) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: stride and dilation must be >= 1, padding >= 0", kOp);
  }
  if (!out_extent(g->transposed, g->h, g->kh, g->sh, g->ph, g->dh, oph, &g->oh) ||
      !out_extent(g->transposed, g->w, g->kw, g->sw, g->pw, g->dw, opw, &g->ow)) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: implausible geometry", kOp);
  }
  if (g->oh < 1 || g->ow < 1) return Error::make(ErrorCode::kInvalidArgument, "%s: kernel larger than input", kOp);
  return Error();
}

int64_t ceil_div(int64_t a, int64_t b) { return a >= 0 ? (a + b - 1) / b : -((-a) / b); }
int64_t floor_div(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

template <typename T>
void convolve(const Geometry& g, const T* x, const T* w, const T* bias, T* y) {
  const int64_t cin_g = g.c_in / g.groups;
  const int64_t cout_g = g.c_out / g.groups;
  for (int64_t n = 0; n < g.n; ++n) {
    for (int64_t oc = 0; oc < g.c_out; ++oc) {
      T* out = y + (n * g.c_out + oc) * g.oh * g.ow;
      for (int64_t i = 0; i < g.oh * g.ow; ++i) out[i] = T(0);
      const int64_t group = oc / cout_g;
      for (int64_t icg = 0; icg < cin_g; ++icg) {
        const T* plane = x + (n * g.c_in + group * cin_g + icg) * g.h * g.w;
        const T* taps = w + (oc * cin_g + icg) * g.kh * g.kw;
        for (int64_t kh = 0; kh < g.kh; ++kh) {
          for (int64_t kw = 0; kw < g.kw; ++kw) {
            const T tap = taps[kh * g.kw + kw];
            // Output columns whose input column lands inside the row.
            const int64_t shift = kw * g.dw - g.pw;
            int64_t ow_begin = ceil_div(-shift, g.sw);
            int64_t ow_end = floor_div(g.w - 1 - shift, g.sw) + 1;
            ow_begin = ow_begin < 0 ? 0 : ow_begin;
            ow_end = ow_end > g.ow ? g.ow : ow_end;
            for (int64_t oh = 0; oh < g.oh; ++oh) {
              const int64_t ih = oh * g.sh - g.ph + kh * g.dh;
              if (ih < 0 || ih >= g.h) continue;
              const int64_t row = ih * g.w + shift;
              T* dst = out + oh * g.ow;
              for (int64_t ow = ow_begin; ow < ow_end; ++ow) dst[ow] = mul_add(dst[ow], tap, plane[row + ow * g.sw]);
            }
          }
        }
      }
      // The bias comes last, as ExecuTorch adds it.
      if (bias) {
        for (int64_t i = 0; i < g.oh * g.ow; ++i) out[i] = mul_add(out[i], bias[oc], T(1));
      }
    }
  }
}

// Each input element adds its products with the taps into the output
// positions it reaches; the output starts as the bias (or zero), as
// ExecuTorch's transposed convolution does.
template <typename T>
void convolve_transposed(const Geometry& g, const T* x, const T* w, const T* bias, T* y) {
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
  Geometry g{};
  Error err = geometry(args, &g);
  if (!err.ok()) return err;
  const int64_t out_sizes[] = {g.n, g.c_out, g.oh, g.ow};
  const int64_t out_sizes_1d[] = {g.n, g.c_out, g.ow};
  err = in.dim == 4 ? resize_output(kOp, out, out_sizes, 4) : resize_output(kOp, out, out_sizes_1d, 3);
  if (!err.ok()) return err;
  if (!(err = check_dtype(kOp, "input", in, out.dtype)).ok()) return err;
  if (!(err = check_dtype(kOp, "weight", weight, out.dtype)).ok()) return err;
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
      convolve<T>(g, in.data_as<T>(), weight.data_as<T>(), bias, out.data_as<T>());
    }
    return Error();
  });
}

}  // namespace

extern const KernelDef convolution_out{kOp, "TTtIIIbIi|T", &convolution_out_impl, {}};

}  // namespace sb::kernels
