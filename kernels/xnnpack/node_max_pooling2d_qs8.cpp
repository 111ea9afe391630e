// xnnpack::max_pooling2d.qs8(Tensor input, int[] kernel_size, int[] stride, int[] padding, int[] dilation, int output_min, int output_max, *, Tensor(a!) out)
//
// XNNPACK's int8 max pooling of NCHW images (input and output share their quantization; no indices):
// the greatest in-bound tap of each window, clamped. Windows past the bottom/right (ceil mode) are
// cut to the image.
#include "node.h"
#include "xnnpack/microkernels/qs8_config.h"

namespace sb::xnnpack_nodes {
namespace {

Error max_pooling2d_qs8_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& in = *args[0]->as_tensor;
  Tensor& out = *args[7]->as_tensor;
  const int64_t* k = args[1]->as_int_list.data();
  const int64_t* s = args[2]->as_int_list.data();
  const int64_t* p = args[3]->as_int_list.data();
  const int64_t* d = args[4]->as_int_list.data();
  const int8_t lo = static_cast<int8_t>(args[5]->as_int), hi = static_cast<int8_t>(args[6]->as_int);
  const int64_t planes = in.sizes[0] * in.sizes[1], h = in.sizes[2], w = in.sizes[3], oh = out.sizes[2], ow = out.sizes[3];
  if (ow > 0 && (ow - 1) * s[1] + (k[1] - 1) * d[1] + 1 <= qs8::kPoolRowBytes) {
    const qs8::MaxPoolRowKernel pool_row = qs8::micro_kernels().max_pool_row;
    const qs8::PoolGeometry geometry{h, w, ow, k, s, p, d, lo, hi};
    for (int64_t c = 0; c < planes; ++c) {
      for (int64_t i = 0; i < oh; ++i) {
        pool_row(in.data_as<int8_t>() + c * h * w, geometry, i, out.data_as<int8_t>() + (c * oh + i) * ow);
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
