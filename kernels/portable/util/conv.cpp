#include "util/conv.h"

#include <initializer_list>

#include "util/shape.h"

namespace sb::kernels {
namespace {

// A 1- or 2-element int list as (for height, for width); 1-D convs use (fill, v).
Error pair(const char* op, Span<const int64_t> v, int32_t spatial, int64_t fill, int64_t* a, int64_t* b,
           const char* what) {
  if (static_cast<int32_t>(v.size()) != spatial && v.size() != 1) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: %s has %zu values for %d spatial dims", op, what, v.size(),
                       static_cast<int>(spatial));
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

}  // namespace

Error conv_geometry(const char* op, const Tensor& in, const Tensor& weight, Span<const int64_t> stride,
                    Span<const int64_t> padding, Span<const int64_t> dilation, bool transposed,
                    Span<const int64_t> output_padding, int64_t groups, ConvGeometry* g) {
  if (in.dim != 3 && in.dim != 4) return Error::make(ErrorCode::kNotSupported, "%s: only 1-D and 2-D convolutions", op);
  if (weight.dim != in.dim) return Error::make(ErrorCode::kInvalidArgument, "%s: weight rank differs from input", op);
  const int32_t spatial = in.dim - 2;
  g->n = in.sizes[0];
  g->c_in = in.sizes[1];
  g->h = spatial == 2 ? in.sizes[2] : 1;
  g->w = in.sizes[in.dim - 1];
  g->groups = groups;
  g->transposed = transposed;
  g->c_out = weight.sizes[0];  // transposed: weight.sizes[1] * groups, once groups is checked
  g->kh = spatial == 2 ? weight.sizes[2] : 1;
  g->kw = weight.sizes[weight.dim - 1];
  int64_t oph = 0;
  int64_t opw = 0;
  Error err = pair(op, stride, spatial, 1, &g->sh, &g->sw, "stride");
  if (err.ok()) err = pair(op, padding, spatial, 0, &g->ph, &g->pw, "padding");
  if (err.ok()) err = pair(op, dilation, spatial, 1, &g->dh, &g->dw, "dilation");
  if (err.ok() && transposed) err = pair(op, output_padding, spatial, 0, &oph, &opw, "output_padding");
  if (!err.ok()) return err;
  // Division, not multiplication, relates channels to groups: a corrupt group count cannot overflow.
  const bool channels_fit =
      g->groups >= 1 && g->c_in % g->groups == 0 &&
      (transposed ? weight.sizes[0] == g->c_in && !__builtin_mul_overflow(weight.sizes[1], g->groups, &g->c_out)
                  : g->c_in / g->groups == weight.sizes[1]);
  if (!channels_fit || g->c_out % g->groups != 0) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: channels do not divide into %lld groups", op,
                       static_cast<long long>(g->groups));
  }
  for (int64_t v : {g->sh, g->sw, g->ph, g->pw, g->dh, g->dw, g->groups, oph, opw}) {
    if (!plausible_geometry(v)) return Error::make(ErrorCode::kInvalidArgument, "%s: implausible geometry", op);
  }
  if (g->sh < 1 || g->sw < 1 || g->dh < 1 || g->dw < 1 || g->ph < 0 || g->pw < 0 || oph < 0 || opw < 0) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: stride and dilation must be >= 1, padding >= 0", op);
  }
  if (!out_extent(transposed, g->h, g->kh, g->sh, g->ph, g->dh, oph, &g->oh) ||
      !out_extent(transposed, g->w, g->kw, g->sw, g->pw, g->dw, opw, &g->ow)) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: implausible geometry", op);
  }
  if (g->oh < 1 || g->ow < 1) return Error::make(ErrorCode::kInvalidArgument, "%s: kernel larger than input", op);
  return Error();
}

int32_t conv_out_sizes(const Tensor& in, const ConvGeometry& g, int64_t* sizes) {
  sizes[0] = g.n;
  sizes[1] = g.c_out;
  if (in.dim == 4) {
    sizes[2] = g.oh;
    sizes[3] = g.ow;
    return 4;
  }
  sizes[2] = g.ow;
  return 3;
}

}  // namespace sb::kernels
