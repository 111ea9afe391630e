// xnnpack::max_pooling2d.qs8(Tensor input, int[] kernel_size, int[] stride, int[] padding, int[] dilation, int output_min, int output_max, *, Tensor(a!) out)
//
// XNNPACK's int8 max pooling of NCHW images, clamped (max_pool.h): input and output share their
// quantization, so the greatest code is the greatest value.
#include "max_pool.h"
#include "node.h"

namespace sb::xnnpack_nodes {
namespace {

Error max_pooling2d_qs8_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& in = *args[0]->as_tensor;
  Tensor& out = *args[7]->as_tensor;
  const int8_t lo = static_cast<int8_t>(args[5]->as_int), hi = static_cast<int8_t>(args[6]->as_int);
  max_pool_planes(in.data_as<int8_t>(), out.data_as<int8_t>(), max_pool_geometry(in, out, args), int8_t{-128}, lo,
                  hi);
  return Error();
}

}  // namespace

extern const KernelDef max_pooling2d_qs8{"xnnpack::max_pooling2d.qs8", "TIIIIii|T", &max_pooling2d_qs8_impl, {}};

}  // namespace sb::xnnpack_nodes
