// xnnpack::max_pooling2d.f32(Tensor input, int[] kernel_size, int[] stride, int[] padding, int[] dilation, float output_min, float output_max, *, Tensor(a!) out)
//
// XNNPACK's max pooling of an NCHW image, clamped (max_pool.h).
#include <cmath>

#include "max_pool.h"
#include "node.h"

namespace sb::xnnpack_nodes {
namespace {

Error max_pooling2d_f32_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& in = *args[0]->as_tensor;
  Tensor& out = *args[7]->as_tensor;
  const float lo = static_cast<float>(args[5]->as_double), hi = static_cast<float>(args[6]->as_double);
  max_pool_planes(in.data_as<float>(), out.data_as<float>(), max_pool_geometry(in, out, args), -INFINITY, lo, hi);
  return Error();
}

}  // namespace

extern const KernelDef max_pooling2d_f32{"xnnpack::max_pooling2d.f32", "TIIIIdd|T", &max_pooling2d_f32_impl, {}};

}  // namespace sb::xnnpack_nodes
