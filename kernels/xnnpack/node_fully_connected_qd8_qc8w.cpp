// xnnpack::fully_connected.qd8_qc8w(Tensor input, Tensor row_params, Tensor weight, Tensor? bias, Tensor weight_scales, float output_min, float output_max, *, Tensor(a!) out, Tensor(b!) scratch)
//
// XNNPACK's dynamically quantized fully connected node: int8 rows [M, K] with their own scales and
// zero points (row_params, from convert.f32_qd8) by a per-channel int8 [O, K] filter, fp32 out
// [M, O] (quantized.h, dynamic_fully_connected).
#include "node.h"
#include "quantized.h"

namespace sb::xnnpack_nodes {
namespace {

Error fully_connected_qd8_qc8w_impl(KernelContext& ctx, Args args) { return qs8::dynamic_fully_connected(args, ctx.threads()); }

}  // namespace

extern const KernelDef fully_connected_qd8_qc8w{"xnnpack::fully_connected.qd8_qc8w", "TTTtTdd|TT",
                                                &fully_connected_qd8_qc8w_impl, {}};

}  // namespace sb::xnnpack_nodes
