// xnnpack::global_avg_pooling2d.f32(Tensor input, float output_min, float output_max, *, Tensor(a!) out)
// xnnpack::global_avg_pooling2d.f16 takes the same arguments on Half tensors (an fp16 program's), computed in float.
//
// XNNPACK's global average pooling of NCHW images: each plane's mean, clamped, into [N, C, 1, 1].
#include "node.h"

namespace sb::xnnpack_nodes {
namespace {

template <typename T>
Error global_avg_pooling2d_impl(KernelContext& ctx, Args args) {
  const Tensor& in = *args[0]->as_tensor;
  Tensor& out = *args[3]->as_tensor;
  if (in.dim != 4 || in.dtype != ScalarTypeOf<T>::value || out.dtype != in.dtype ||
      out.numel() != in.sizes[0] * in.sizes[1]) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: its output is not one value per input plane",
                       ctx.kernel().op);
  }
  const float lo = static_cast<float>(args[1]->as_double), hi = static_cast<float>(args[2]->as_double);
  const int64_t planes = in.sizes[0] * in.sizes[1], n = in.sizes[2] * in.sizes[3];
  const T* x = in.data_as<T>();
  T* y = out.data_as<T>();
  for (int64_t c = 0; c < planes; ++c, x += n) {
    float sum = 0.0f;
    for (int64_t i = 0; i < n; ++i) sum += static_cast<float>(x[i]);
    y[c] = static_cast<T>(clamp_to(sum / static_cast<float>(n), lo, hi));  // an empty plane's mean: NaN, as ATen's
  }
  return Error();
}

}  // namespace

extern const KernelDef global_avg_pooling2d_f32{"xnnpack::global_avg_pooling2d.f32", "Tdd|T", &global_avg_pooling2d_impl<float>, {}};
extern const KernelDef global_avg_pooling2d_f16{"xnnpack::global_avg_pooling2d.f16", "Tdd|T", &global_avg_pooling2d_impl<Half>, {}};

}  // namespace sb::xnnpack_nodes
