#include "util/pool.h"

#include <initializer_list>

#include "util/shape.h"

namespace sb::kernels {
namespace {

bool pair(Span<const int64_t> v, int64_t fallback, int64_t* a, int64_t* b) {
  if (v.empty()) {
    *a = *b = fallback;
    return true;
  }
  if (v.size() > 2) return false;
  *a = v[0];
  *b = v[v.size() - 1];
  return true;
}

int64_t out_size(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d, bool ceil_mode) {
  const int64_t span = in + 2 * p - d * (k - 1) - 1;
  int64_t out = (ceil_mode ? (span + s - 1) / s : span / s) + 1;
  if (ceil_mode && (out - 1) * s >= in + p) --out;
  return out;
}

}  // namespace

Error pool_geometry(const char* op, const Tensor& in, Span<const int64_t> kernel, Span<const int64_t> stride,
                    Span<const int64_t> padding, Span<const int64_t> dilation, bool ceil_mode, PoolGeometry* g) {
  if (in.dim != 3 && in.dim != 4) return Error::make(ErrorCode::kInvalidArgument, "%s: input must be 3-D or 4-D", op);
  if (kernel.empty() || !pair(kernel, 0, &g->kh, &g->kw) || !pair(stride, 0, &g->sh, &g->sw) ||
      !pair(padding, 0, &g->ph, &g->pw) || !pair(dilation, 1, &g->dh, &g->dw)) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: window arguments must have 1 or 2 values", op);
  }
  if (stride.empty()) {
    g->sh = g->kh;
    g->sw = g->kw;
  }
  for (int64_t v : {g->kh, g->kw, g->sh, g->sw, g->ph, g->pw, g->dh, g->dw}) {
    if (!plausible_geometry(v)) return Error::make(ErrorCode::kInvalidArgument, "%s: implausible window", op);
  }
  if (g->kh < 1 || g->kw < 1 || g->sh < 1 || g->sw < 1 || g->dh < 1 || g->dw < 1 || g->ph < 0 || g->pw < 0 ||
      g->ph * 2 > g->kh || g->pw * 2 > g->kw) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: invalid window (kernel, stride, padding or dilation)", op);
  }
  g->h = in.sizes[in.dim - 2];
  g->w = in.sizes[in.dim - 1];
  g->planes = size_product(in, 0, in.dim - 2);
  g->oh = out_size(g->h, g->kh, g->sh, g->ph, g->dh, ceil_mode);
  g->ow = out_size(g->w, g->kw, g->sw, g->pw, g->dw, ceil_mode);
  if (g->oh < 1 || g->ow < 1) return Error::make(ErrorCode::kInvalidArgument, "%s: window larger than input", op);
  return Error();
}

void pooled_sizes(const Tensor& in, int64_t oh, int64_t ow, int64_t* sizes) {
  for (int32_t d = 0; d < in.dim - 2; ++d) sizes[d] = in.sizes[d];
  sizes[in.dim - 2] = oh;
  sizes[in.dim - 1] = ow;
}

PlaneIndex::PlaneIndex(const Tensor& t) : lead_(t.dim == 4 ? 2 : 1) {
  int64_t strides[kMaxDims];
  dim_order_strides(t, strides);
  h = strides[t.dim - 2];
  w = strides[t.dim - 1];
  lead_strides_[0] = strides[0];
  if (lead_ == 2) {
    lead_strides_[1] = strides[1];
    inner_ = t.sizes[1] == 0 ? 1 : t.sizes[1];
  }
}

}  // namespace sb::kernels
