// xnnpack::conv2d.qd8_qc8w(Tensor input, Tensor row_params, Tensor weight, Tensor? bias, Tensor weight_scales, int[] stride, int[] padding, int[] dilation, int groups, float output_min, float output_max, *, Tensor(a!) out)
//
// XNNPACK's dynamically quantized convolution: int8 NCHW images quantized at run time, a per-channel
// int8 filter packed at init, fp32 out (dynamic_convolution.h).
#include "dynamic_convolution.h"
#include "node.h"

namespace sb::xnnpack_nodes {
namespace {

Error conv2d_qd8_qc8w_impl(KernelContext& /*ctx*/, Args args) {
  return qs8::dynamic_conv(args, false);
}

}  // namespace

extern const KernelDef conv2d_qd8_qc8w{"xnnpack::conv2d.qd8_qc8w", "TTTtTIIIidd|T", &conv2d_qd8_qc8w_impl, {}};

}  // namespace sb::xnnpack_nodes
