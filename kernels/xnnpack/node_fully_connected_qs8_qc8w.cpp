// xnnpack::fully_connected.qs8_qc8w(Tensor input, Tensor weight, Tensor? bias, Tensor multipliers, int input_zero_point, int output_zero_point, int output_min, int output_max, *, Tensor(a!) out, Tensor(b!) scratch)
//
// XNNPACK's int8 fully connected node on [M, I] rows by a per-channel int8 [O, I] filter: integer dot
// products and fp32 requantization (quantized.h).
#include "node.h"
#include "quantized.h"

namespace sb::xnnpack_nodes {
namespace {

Error fully_connected_qs8_qc8w_impl(KernelContext& ctx, Args args) {
  return qs8::fully_connected(args, ctx.threads());
}

}  // namespace

extern const KernelDef fully_connected_qs8_qc8w{"xnnpack::fully_connected.qs8_qc8w", "TTtTiiii|TT", &fully_connected_qs8_qc8w_impl, {}};

}  // namespace sb::xnnpack_nodes
