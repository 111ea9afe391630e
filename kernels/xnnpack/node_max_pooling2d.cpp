// xnnpack::max_pooling2d.f32(Tensor input, int[] kernel_size, int[] stride, int[] padding, int[] dilation, float output_min, float output_max, *, Tensor(a!) out)
// xnnpack::max_pooling2d.f16 takes the same arguments on Half tensors (an fp16 program's), through the same code.
//
// XNNPACK's max pooling of an NCHW image, clamped (max_pool.h).
#include <cmath>

#include "max_pool.h"
#include "node.h"
#include "sb/half.h"

namespace sb::xnnpack_nodes {
namespace {

// T: float, or Half (compared as floats; the bounds rounded to Half, as XNNPACK's fp16 nodes take them).
template <typename T>
Error max_pooling2d_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& in = *args[0]->as_tensor;
  Tensor& out = *args[7]->as_tensor;
  const T lo = static_cast<T>(static_cast<float>(args[5]->as_double));
  const T hi = static_cast<T>(static_cast<float>(args[6]->as_double));
  max_pool_planes(in.data_as<T>(), out.data_as<T>(), max_pool_geometry(in, out, args), static_cast<T>(-INFINITY), lo,
                  hi);
  return Error();
}

}  // namespace

extern const KernelDef max_pooling2d_f32{"xnnpack::max_pooling2d.f32", "TIIIIdd|T", &max_pooling2d_impl<float>, {}};
extern const KernelDef max_pooling2d_f16{"xnnpack::max_pooling2d.f16", "TIIIIdd|T", &max_pooling2d_impl<Half>, {}};

}  // namespace sb::xnnpack_nodes
