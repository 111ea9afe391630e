// xnnpack::conv_transpose2d.qd8_qc8w(Tensor input, Tensor row_params, Tensor weight, Tensor? bias, Tensor weight_scales, int[] stride, int[] padding, int[] dilation, int[] output_padding, int groups, float output_min, float output_max, *, Tensor(a!) out)
//
// XNNPACK's dynamically quantized deconvolution: int8 NCHW images quantized at run time, a per-channel
// int8 filter packed at init, fp32 out (dynamic_convolution.h).
#include "dynamic_convolution.h"
#include "node.h"

namespace sb::xnnpack_nodes {
namespace {

Error conv_transpose2d_qd8_qc8w_impl(KernelContext& /*ctx*/, Args args) {
  return qs8::dynamic_conv(args, true);
}

}  // namespace

extern const KernelDef conv_transpose2d_qd8_qc8w{"xnnpack::conv_transpose2d.qd8_qc8w", "TTTtTIIIIidd|T", &conv_transpose2d_qd8_qc8w_impl, {}};

}  // namespace sb::xnnpack_nodes
