// quantized_decomposed::dequantize_per_tensor.out(Tensor input, float scale, int zero_point, int quant_min,
//                                                 int quant_max, ScalarType dtype, *, ScalarType? out_dtype=None,
//                                                 Tensor(a!) out)
#include "quantized/util/quantize.h"
#include "sb/kernel.h"
#include "util/shape.h"

namespace sb::quantized {
namespace {

constexpr char kOp[] = "quantized_decomposed::dequantize_per_tensor.out";

Error dequantize_per_tensor_out_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& in = *args[0]->as_tensor;
  const double scale = args[1]->as_double;
  const int64_t zero_point = args[2]->as_int;
  Tensor& out = *args[7]->as_tensor;
  Error err = kernels::resize_output_like(kOp, out, in);
  if (!err.ok()) return err;
  err = check_dequantize_args(kOp, in, args[3]->as_int, args[4]->as_int, args[5]->as_int, *args[6], out);
  if (!err.ok()) return err;
  return dequantize_channels<kOp>(in, whole_tensor(in, &scale, &zero_point), DequantizeProduct::kInFloat, out);
}

}  // namespace

extern const KernelDef dequantize_per_tensor_out{kOp, "Tdiiiin|T", &dequantize_per_tensor_out_impl, {}};

}  // namespace sb::quantized
