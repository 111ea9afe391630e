// quantized_decomposed::dequantize_per_tensor.Tensor_out(Tensor input, Tensor scale, Tensor zero_point,
//                                                        int quant_min, int quant_max, ScalarType dtype, *,
//                                                        ScalarType? out_dtype=None, Tensor(a!) out)
#include "quantized/util/quantize.h"
#include "sb/kernel.h"
#include "util/shape.h"

namespace sb::quantized {
namespace {

constexpr char kOp[] = "quantized_decomposed::dequantize_per_tensor.Tensor_out";

Error dequantize_per_tensor_tensor_out_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& in = *args[0]->as_tensor;
  const Tensor& scale = *args[1]->as_tensor;
  const Tensor& zero_point = *args[2]->as_tensor;
  Tensor& out = *args[7]->as_tensor;
  Error err = check_scalar_params(kOp, scale, zero_point);
  if (!err.ok()) return err;
  if (!(err = kernels::resize_output_like(kOp, out, in)).ok()) return err;
  err = check_dequantize_args(kOp, in, args[3]->as_int, args[4]->as_int, args[5]->as_int, *args[6], out);
  if (!err.ok()) return err;
  const ChannelParams params = whole_tensor(in, scale.data_as<double>(), zero_point.data_as<int64_t>());
  return dequantize_channels<kOp>(in, params, DequantizeProduct::kInFloat, out);
}

}  // namespace

extern const KernelDef dequantize_per_tensor_tensor_out{kOp, "TTTiiin|T", &dequantize_per_tensor_tensor_out_impl,
                                                        {}};

}  // namespace sb::quantized
