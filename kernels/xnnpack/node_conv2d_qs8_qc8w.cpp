// xnnpack::conv2d.qs8_qc8w(Tensor input, Tensor weight, Tensor? bias, int[] stride, int[] padding, int[] dilation, int groups, Tensor multipliers, int input_zero_point, int output_zero_point, int output_min, int output_max, *, Tensor(a!) out, Tensor(b!) scratch)
//
// XNNPACK's int8 convolution (int8 NCHW images, per-channel int8 filter packed OIHW at init, int32 bias):
// integer accumulation and fp32 requantization (quantized.h).
#include "node.h"
#include "quantized.h"

namespace sb::xnnpack_nodes {
namespace {

Error conv2d_qs8_qc8w_impl(KernelContext& ctx, Args args) {
  return qs8::conv(args, ctx.threads());
}

}  // namespace

extern const KernelDef conv2d_qs8_qc8w{"xnnpack::conv2d.qs8_qc8w", "TTtIIIiTiiii|TT", &conv2d_qs8_qc8w_impl, {}};

}  // namespace sb::xnnpack_nodes
