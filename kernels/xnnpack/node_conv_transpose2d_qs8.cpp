// xnnpack::conv_transpose2d.qs8(Tensor input, Tensor weight, Tensor? bias, int[] stride, int[] padding, int[] dilation, int[] output_padding, int groups, Tensor multipliers, int input_zero_point, int output_zero_point, int output_min, int output_max, *, Tensor(a!) out)
//
// XNNPACK's int8 deconvolution (int8 NCHW images, per-tensor int8 filter packed as ATen's transposed one at
// init, int32 bias): integer accumulation and fp32 requantization (deconvolution.h).
#include "deconvolution.h"
#include "node.h"

namespace sb::xnnpack_nodes {
namespace {

Error conv_transpose2d_qs8_impl(KernelContext& /*ctx*/, Args args) {
  return qs8::deconv(args);
}

}  // namespace

extern const KernelDef conv_transpose2d_qs8{"xnnpack::conv_transpose2d.qs8", "TTtIIIIiTiiii|T",
                                             &conv_transpose2d_qs8_impl, {}};

}  // namespace sb::xnnpack_nodes
