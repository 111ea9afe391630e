// xnnpack::max_pooling2d.qs8(Tensor input, int[] kernel_size, int[] stride, int[] padding, int[] dilation, int output_min, int output_max, *, Tensor(a!) out)
//
// XNNPACK's int8 max pooling of NCHW images (input and output share their quantization; no indices):
// the greatest in-bound tap of each window, clamped. Windows past the bottom/right (ceil mode) are
// cut to the image.
#include "node.h"

namespace sb::xnnpack_nodes {
namespace {

// Planes whose padded rows fit this many bytes take the vectorisable path.
constexpr int64_t kRowBytes = 1024;

// One output row of a plane through two vectorisable passes: the column-wise max of the window's
// rows (into a row padded with -128), then the row-wise max of the window's columns, picked at
// the stride.
void pool_row(const int8_t* x, int64_t h, int64_t w, int64_t oy, int64_t ow, const int64_t* k, const int64_t* s,
              const int64_t* p, const int64_t* d, int8_t lo, int8_t hi, int8_t* y) {
  int8_t rows[kRowBytes], cols[kRowBytes];
  const int64_t width = (ow - 1) * s[1] + (k[1] - 1) * d[1] + 1;  // padded columns the windows cover
  for (int64_t u = 0; u < width; ++u) rows[u] = -128;
  // Columns [begin, end) of the padded row are the input's.
  const int64_t begin = p[1] < width ? p[1] : width, end = p[1] + w < width ? p[1] + w : width;
  for (int64_t ky = 0; ky < k[0]; ++ky) {
    const int64_t iy = oy * s[0] - p[0] + ky * d[0];
    if (iy < 0 || iy >= h) continue;
    const int8_t* row = x + iy * w;
    for (int64_t u = begin; u < end; ++u) rows[u] = row[u - p[1]] > rows[u] ? row[u - p[1]] : rows[u];
  }
  const int64_t starts = (ow - 1) * s[1] + 1;
  for (int64_t u = 0; u < starts; ++u) cols[u] = rows[u];
  for (int64_t kx = 1; kx < k[1]; ++kx) {
    const int8_t* shifted = rows + kx * d[1];
    for (int64_t u = 0; u < starts; ++u) cols[u] = shifted[u] > cols[u] ? shifted[u] : cols[u];
  }
  for (int64_t ox = 0; ox < ow; ++ox) {
    const int8_t best = cols[ox * s[1]];
    y[ox] = best < lo ? lo : best > hi ? hi : best;
  }
}

Error max_pooling2d_qs8_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& in = *args[0]->as_tensor;
  Tensor& out = *args[7]->as_tensor;
  const int64_t* k = args[1]->as_int_list.data();
  const int64_t* s = args[2]->as_int_list.data();
  const int64_t* p = args[3]->as_int_list.data();
  const int64_t* d = args[4]->as_int_list.data();
  const int8_t lo = static_cast<int8_t>(args[5]->as_int), hi = static_cast<int8_t>(args[6]->as_int);
  const int64_t planes = in.sizes[0] * in.sizes[1], h = in.sizes[2], w = in.sizes[3], oh = out.sizes[2], ow = out.sizes[3];
  if (ow > 0 && (ow - 1) * s[1] + (k[1] - 1) * d[1] + 1 <= kRowBytes) {
    for (int64_t c = 0; c < planes; ++c) {
      for (int64_t i = 0; i < oh; ++i) {
        pool_row(in.data_as<int8_t>() + c * h * w, h, w, i, ow, k, s, p, d, lo, hi,
                 out.data_as<int8_t>() + (c * oh + i) * ow);
      }
    }
    return Error();
  }
  for (int64_t c = 0; c < planes; ++c) {
    const int8_t* x = in.data_as<int8_t>() + c * h * w;
    int8_t* y = out.data_as<int8_t>() + c * oh * ow;
    for (int64_t i = 0; i < oh; ++i) {
      for (int64_t j = 0; j < ow; ++j) {
        int32_t best = -128;
        for (int64_t ky = 0; ky < k[0]; ++ky) {
          const int64_t iy = i * s[0] - p[0] + ky * d[0];
          if (iy < 0 || iy >= h) continue;
          for (int64_t kx = 0; kx < k[1]; ++kx) {
            const int64_t ix = j * s[1] - p[1] + kx * d[1];
            if (ix >= 0 && ix < w && x[iy * w + ix] > best) best = x[iy * w + ix];
          }
        }
        y[i * ow + j] = static_cast<int8_t>(best < lo ? lo : best > hi ? hi : best);
      }
    }
  }
  return Error();
}

}  // namespace

extern const KernelDef max_pooling2d_qs8{"xnnpack::max_pooling2d.qs8", "TIIIIii|T", &max_pooling2d_qs8_impl, {}};

}  // namespace sb::xnnpack_nodes
