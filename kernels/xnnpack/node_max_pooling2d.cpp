// xnnpack::max_pooling2d.f32(Tensor input, int[] kernel_size, int[] stride, int[] padding, int[] dilation, float output_min, float output_max, *, Tensor(a!) out)
// xnnpack::max_pooling2d.f16 takes the same arguments on Half tensors (an fp16 program's), through the same code.
//
// XNNPACK's max pooling of an NCHW image, clamped: the greatest in-bound tap of each window. Unlike
// aten::max_pool2d_with_indices it keeps no indices (XNNPACK's node has none), which is most of that
// kernel's work. The output's size gives the windows: past the bottom/right (ceil mode) they are cut
// to the image.
#include <cmath>

#include "node.h"
#include "sb/half.h"

namespace sb::xnnpack_nodes {
namespace {

constexpr int64_t kRow = 2048;  // input columns whose vertical maxima fit the stack

inline float larger(float a, float b) { return b > a ? b : a; }

// Output row y (ow columns from column j0) from the vertical maxima m of its window's rows, which
// hold image columns [base, end): the greatest in-bound tap of each window, clamped to [lo, hi].
template <typename T>
void horizontal(const T* m, int64_t base, int64_t end, int64_t j0, int64_t ow, int64_t kw, int64_t stride,
                int64_t pad, int64_t dilation, float lo, float hi, T* y) {
  // The windows wholly inside the strip, [ja, jb): CNNs' 3x3 and 2x2 stride-2 pools take them in
  // loops of fixed shape, which the compiler vectorises (stride-2 loads as deinterleaving shuffles).
  int64_t ja = 0;
  while (ja < ow && (j0 + ja) * stride - pad < base) ++ja;
  int64_t jb = ow;
  while (jb > ja && (j0 + jb - 1) * stride - pad + (kw - 1) * dilation >= end) --jb;
  const T* at = m + ((j0 + ja) * stride - pad - base);
  if (dilation == 1 && stride == 2 && (kw == 3 || kw == 2) && ja < jb) {
    for (int64_t j = ja; j < jb; ++j, at += 2) {
      const float v = kw == 3 ? larger(larger(at[0], at[1]), at[2]) : larger(at[0], at[1]);
      y[j] = v < lo ? lo : v > hi ? hi : v;
    }
  } else {
    ja = jb = 0;  // the general loop below takes every column
  }
  for (int64_t j = 0; j < ow; ++j) {
    if (j == ja && jb > ja) {
      j = jb - 1;
      continue;
    }
    const int64_t x0 = (j0 + j) * stride - pad;
    float v = -INFINITY;
    if (x0 >= base && x0 + (kw - 1) * dilation < end) {
      for (int64_t kx = 0; kx < kw; ++kx) v = larger(v, m[x0 + kx * dilation - base]);
    } else {
      for (int64_t kx = 0; kx < kw; ++kx) {
        const int64_t x = x0 + kx * dilation;
        if (x >= base && x < end) v = larger(v, m[x - base]);
      }
    }
    y[j] = v < lo ? lo : v > hi ? hi : v;
  }
}

// T: float, or Half (compared and clamped as floats).
template <typename T>
Error max_pooling2d_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& in = *args[0]->as_tensor;
  Tensor& out = *args[7]->as_tensor;
  const int64_t* k = args[1]->as_int_list.data();
  const int64_t* s = args[2]->as_int_list.data();
  const int64_t* p = args[3]->as_int_list.data();
  const int64_t* d = args[4]->as_int_list.data();
  const float lo = static_cast<float>(args[5]->as_double), hi = static_cast<float>(args[6]->as_double);
  const int64_t planes = in.sizes[0] * in.sizes[1], h = in.sizes[2], w = in.sizes[3];
  const int64_t oh = out.sizes[2], ow = out.sizes[3];
  T m[kRow];
  for (int64_t c = 0; c < planes; ++c) {
    const T* x = in.data_as<T>() + c * h * w;
    T* plane = out.data_as<T>() + c * oh * ow;
    for (int64_t i = 0; i < oh; ++i) {
      // Column strips of the row: the vertical maxima of one strip at a time (a strip and the taps
      // reaching past it overlap by the window's reach).
      const int64_t reach = (k[1] - 1) * d[1];
      for (int64_t j0 = 0; j0 < ow;) {
        const int64_t x_start = j0 * s[1] - p[1] < 0 ? 0 : j0 * s[1] - p[1];
        int64_t j1 = ow;
        if (w - x_start > kRow) j1 = j0 + ((kRow - reach - 1) / s[1] > 0 ? (kRow - reach - 1) / s[1] : 1);
        if (j1 > ow) j1 = ow;
        int64_t x_end = (j1 - 1) * s[1] - p[1] + reach + 1;
        x_end = x_end > w ? w : x_end;
        const int64_t cols = x_end - x_start;
        for (int64_t t = 0; t < cols; ++t) m[t] = -INFINITY;
        for (int64_t ky = 0; ky < k[0]; ++ky) {
          const int64_t iy = i * s[0] - p[0] + ky * d[0];
          if (iy < 0 || iy >= h) continue;
          const T* row = x + iy * w + x_start;
          for (int64_t t = 0; t < cols; ++t) m[t] = larger(m[t], row[t]);
        }
        horizontal(m, x_start, x_end, j0, j1 - j0, k[1], s[1], p[1], d[1], lo, hi, plane + i * ow + j0);
        j0 = j1;
      }
    }
  }
  return Error();
}

}  // namespace

extern const KernelDef max_pooling2d_f32{"xnnpack::max_pooling2d.f32", "TIIIIdd|T", &max_pooling2d_impl<float>, {}};
extern const KernelDef max_pooling2d_f16{"xnnpack::max_pooling2d.f16", "TIIIIdd|T", &max_pooling2d_impl<Half>, {}};

}  // namespace sb::xnnpack_nodes
