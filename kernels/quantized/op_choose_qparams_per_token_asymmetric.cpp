// quantized_decomposed::choose_qparams_per_token_asymmetric.out(Tensor input, ScalarType dtype, *,
//     Tensor(a!) scale_out, Tensor(b!) zero_point_out) -> (Tensor(a!), Tensor(b!))
//
// A scale and zero point for each token (row of the last dim) of a Float
// input, over the int8 range [-128, 127] whatever dtype says (ExecuTorch's
// kernel fixes it). The outputs have the input's shape with a last dim of 1.
#include "quantized/util/qparams.h"
#include "sb/kernel.h"
#include "util/shape.h"

namespace sb::quantized {
namespace {

constexpr char kOp[] = "quantized_decomposed::choose_qparams_per_token_asymmetric.out";
constexpr int32_t kQuantMin = -128;
constexpr int32_t kQuantMax = 127;

Error choose_qparams_per_token_asymmetric_out_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& in = *args[0]->as_tensor;
  Tensor& scale_out = *args[2]->as_tensor;
  Tensor& zero_point_out = *args[3]->as_tensor;
  if (in.dim == 0) return Error::make(ErrorCode::kInvalidArgument, "%s: input has no token dim (0-d)", kOp);
  int64_t sizes[kMaxDims];
  for (int32_t d = 0; d < in.dim; ++d) sizes[d] = in.sizes[d];
  sizes[in.dim - 1] = 1;
  Error err = kernels::resize_output(kOp, scale_out, sizes, in.dim);
  if (!err.ok() || !(err = kernels::resize_output(kOp, zero_point_out, sizes, in.dim)).ok()) return err;
  if (!(err = kernels::check_dtype(kOp, "input", in, ScalarType::kFloat)).ok()) return err;
  if (!(err = kernels::check_dtype(kOp, "scale_out", scale_out, ScalarType::kDouble)).ok()) return err;
  if (!(err = kernels::check_dtype(kOp, "zero_point_out", zero_point_out, ScalarType::kLong)).ok()) return err;
  const int64_t tokens = kernels::size_product(in, 0, in.dim - 1);
  const int64_t token_length = in.sizes[in.dim - 1];
  if (tokens > 0 && token_length == 0) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: tokens are empty: no range", kOp);
  }
  return choose_row_qparams(kOp, in, tokens, token_length, kQuantMin, kQuantMax, scale_out.data_as<double>(),
                            zero_point_out.data_as<int64_t>());
}

}  // namespace

extern const KernelDef choose_qparams_per_token_asymmetric_out{
    kOp, "Ti|TT", &choose_qparams_per_token_asymmetric_out_impl, {}};

}  // namespace sb::quantized
