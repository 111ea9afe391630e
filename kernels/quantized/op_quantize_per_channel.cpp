// quantized_decomposed::quantize_per_channel.out(Tensor input, Tensor scales, Tensor zero_points, int axis,
//                                                int quant_min, int quant_max, ScalarType dtype, *,
//                                                Tensor(a!) out)
#include "quantized/util/quantize.h"
#include "sb/kernel.h"
#include "util/shape.h"

namespace sb::quantized {
namespace {

constexpr char kOp[] = "quantized_decomposed::quantize_per_channel.out";

Error quantize_per_channel_out_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& in = *args[0]->as_tensor;
  const Tensor& scales = *args[1]->as_tensor;
  const Tensor& zero_points = *args[2]->as_tensor;
  const int64_t quant_min = args[4]->as_int;
  const int64_t quant_max = args[5]->as_int;
  Tensor& out = *args[7]->as_tensor;
  if (in.dim == 0) return Error::make(ErrorCode::kInvalidArgument, "%s: input has no channel axis (0-d)", kOp);
  int32_t axis = 0;
  Error err = kernels::normalize_dim(kOp, args[3]->as_int, in.dim, &axis);
  if (!err.ok()) return err;
  if (!(err = check_channel_params(kOp, in.sizes[axis], scales, &zero_points, ParamDtypes::kDoubleAndLong)).ok()) {
    return err;
  }
  if (!(err = kernels::resize_output_like(kOp, out, in)).ok()) return err;
  if (!(err = check_quantize_args(kOp, in, quant_min, quant_max, args[6]->as_int, out)).ok()) return err;
  const ChannelParams params = along_axis(in, axis, scales, &zero_points);
  if (!(err = check_invertible_scales(kOp, params)).ok()) return err;
  return quantize_channels<kOp>(in, params, quant_min, quant_max, out);
}

}  // namespace

extern const KernelDef quantize_per_channel_out{kOp, "TTTiiii|T", &quantize_per_channel_out_impl, {}};

}  // namespace sb::quantized
