// quantized_decomposed::quantize_per_token.out(Tensor input, Tensor scales, Tensor zero_points, int quant_min,
//                                              int quant_max, ScalarType dtype, *, Tensor(a!) out)
//
// One scale and zero point per token: per row of the last dim, every other
// dim counting rows (choose_qparams_per_token_asymmetric writes them).
#include "quantized/util/quantize.h"
#include "sb/kernel.h"
#include "util/shape.h"

namespace sb::quantized {
namespace {

constexpr char kOp[] = "quantized_decomposed::quantize_per_token.out";

Error quantize_per_token_out_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& in = *args[0]->as_tensor;
  const Tensor& scales = *args[1]->as_tensor;
  const Tensor& zero_points = *args[2]->as_tensor;
  const int64_t quant_min = args[3]->as_int;
  const int64_t quant_max = args[4]->as_int;
  Tensor& out = *args[6]->as_tensor;
  if (in.dim == 0) return Error::make(ErrorCode::kInvalidArgument, "%s: input has no token dim (0-d)", kOp);
  const int64_t tokens = kernels::size_product(in, 0, in.dim - 1);
  Error err = check_channel_params(kOp, tokens, scales, &zero_points, ParamDtypes::kDoubleAndLong);
  if (!err.ok()) return err;
  if (!(err = kernels::resize_output_like(kOp, out, in)).ok()) return err;
  if (!(err = check_quantize_args(kOp, in, quant_min, quant_max, args[5]->as_int, out)).ok()) return err;
  const ChannelParams params = per_row(in, scales, &zero_points);
  if (!(err = check_invertible_scales(kOp, params)).ok()) return err;
  return quantize_channels<kOp>(in, params, quant_min, quant_max, out);
}

}  // namespace

extern const KernelDef quantize_per_token_out{kOp, "TTTiii|T", &quantize_per_token_out_impl, {}};

}  // namespace sb::quantized
