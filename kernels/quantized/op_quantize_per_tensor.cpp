// quantized_decomposed::quantize_per_tensor.out(Tensor input, float scale, int zero_point, int quant_min,
//                                               int quant_max, ScalarType dtype, *, Tensor(a!) out)
#include "quantized/util/quantize.h"
#include "sb/kernel.h"
#include "util/shape.h"

namespace sb::quantized {
namespace {

constexpr char kOp[] = "quantized_decomposed::quantize_per_tensor.out";

Error quantize_per_tensor_out_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& in = *args[0]->as_tensor;
  const double scale = args[1]->as_double;
  const int64_t zero_point = args[2]->as_int;
  Tensor& out = *args[6]->as_tensor;
  Error err = kernels::resize_output_like(kOp, out, in);
  if (!err.ok()) return err;
  if (!(err = check_quantize_args(kOp, in, args[3]->as_int, args[4]->as_int, args[5]->as_int, out)).ok()) return err;
  const ChannelParams params = whole_tensor(in, &scale, &zero_point);
  if (!(err = check_invertible_scales(kOp, params)).ok()) return err;
  return quantize_channels<kOp>(in, params, args[3]->as_int, args[4]->as_int, out);
}

}  // namespace

extern const KernelDef quantize_per_tensor_out{kOp, "Tdiiii|T", &quantize_per_tensor_out_impl, {}};

}  // namespace sb::quantized
