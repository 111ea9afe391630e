// quantized_decomposed::choose_qparams.Tensor_out(Tensor input, int quant_min, int quant_max, float eps,
//                                                 ScalarType dtype, *, Tensor(a!) scale_out,
//                                                 Tensor(b!) zero_point_out) -> (Tensor(a!), Tensor(b!))
//
// One scale and zero point for the whole (Float) input, from its min and max.
// eps and dtype are not read, as in ExecuTorch.
#include <cstdint>

#include "quantized/util/qparams.h"
#include "sb/kernel.h"
#include "util/shape.h"

namespace sb::quantized {
namespace {

constexpr char kOp[] = "quantized_decomposed::choose_qparams.Tensor_out";

Error choose_qparams_tensor_out_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& in = *args[0]->as_tensor;
  const int64_t quant_min = args[1]->as_int;
  const int64_t quant_max = args[2]->as_int;
  Tensor& scale_out = *args[5]->as_tensor;
  Tensor& zero_point_out = *args[6]->as_tensor;
  if (!(quant_min < quant_max) || quant_min < INT32_MIN || quant_max > INT32_MAX) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: quant range [%lld, %lld] is empty or exceeds int32", kOp,
                       static_cast<long long>(quant_min), static_cast<long long>(quant_max));
  }
  Error err = kernels::check_dtype(kOp, "input", in, ScalarType::kFloat);
  if (!err.ok() || !(err = kernels::check_dtype(kOp, "scale_out", scale_out, ScalarType::kDouble)).ok()) return err;
  if (!(err = kernels::check_dtype(kOp, "zero_point_out", zero_point_out, ScalarType::kLong)).ok()) return err;
  if (scale_out.numel() != 1 || zero_point_out.numel() != 1) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: scale_out and zero_point_out must hold one element each",
                       kOp);
  }
  if (in.numel() == 0) return Error::make(ErrorCode::kInvalidArgument, "%s: input is empty: no range", kOp);
  return choose_row_qparams(kOp, in, 1, in.numel(), static_cast<int32_t>(quant_min), static_cast<int32_t>(quant_max),
                            scale_out.data_as<double>(), zero_point_out.data_as<int64_t>());
}

}  // namespace

extern const KernelDef choose_qparams_tensor_out{kOp, "Tiidi|TT", &choose_qparams_tensor_out_impl, {}};

}  // namespace sb::quantized
