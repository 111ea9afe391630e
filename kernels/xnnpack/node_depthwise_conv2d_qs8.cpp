// xnnpack::depthwise_conv2d.qs8(Tensor input, Tensor weight, Tensor? bias, int[] stride, int[] padding, int[] dilation, int groups, Tensor multipliers, int input_zero_point, int output_zero_point, int output_min, int output_max, *, Tensor(a!) out, Tensor(b!) scratch)
//
// XNNPACK's int8 depthwise convolution (int8 NCHW images, per-tensor int8 filter packed OIHW at init, int32 bias):
// integer accumulation and fp32 requantization (quantized.h).
#include "node.h"
#include "quantized.h"

namespace sb::xnnpack_nodes {
namespace {

Error depthwise_conv2d_qs8_impl(KernelContext& /*ctx*/, Args args) {
  return qs8::depthwise_conv(args);
}

}  // namespace

extern const KernelDef depthwise_conv2d_qs8{"xnnpack::depthwise_conv2d.qs8", "TTtIIIiTiiii|TT", &depthwise_conv2d_qs8_impl, {}};

}  // namespace sb::xnnpack_nodes
