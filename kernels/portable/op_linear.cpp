// aten::linear.out(Tensor input, Tensor weight, Tensor? bias=None, *, Tensor(a!) out)
//
// out[..., n] = input[..., k] . weight[n, k] (+ bias[n]): one product with
// the weight read row by row (util/matmul.h's matmul_transposed_b), so no
// transposed copy of the weight is needed. ExecuTorch ships this op in its
// optimized library only; export_llama's programs call it for every
// projection. Dtypes as ExecuTorch's kernel: real types, Half and BFloat16,
// one dtype for input, weight, bias and out.
#include "sb/kernel.h"
#include "util/dtype_switch.h"
#include "util/matmul.h"
#include "util/shape.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::linear.out";

Error linear_out_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& input = *args[0]->as_tensor;
  const Tensor& weight = *args[1]->as_tensor;
  const Value& bias_arg = *args[2];
  Tensor& out = *args[3]->as_tensor;
  if (input.dim < 1 || weight.dim != 2 || input.sizes[input.dim - 1] != weight.sizes[1]) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: needs input [..., k] and weight [n, k]", kOp);
  }
  const int64_t k = weight.sizes[1];
  const int64_t n = weight.sizes[0];
  const int64_t m = size_product(input, 0, input.dim - 1);
  int64_t out_sizes[kMaxDims];
  for (int32_t d = 0; d + 1 < input.dim; ++d) out_sizes[d] = input.sizes[d];
  out_sizes[input.dim - 1] = n;
  // Named as the schema names them, before check_product's own (mm's) names could speak.
  Error err = check_dtype(kOp, "weight", weight, input.dtype);
  if (err.ok()) err = check_dtype(kOp, "out", out, input.dtype);
  if (!err.ok()) return err;
  err = check_product(kOp, input, weight, out, out_sizes, input.dim);
  if (!err.ok()) return err;
  const Tensor* bias = bias_arg.is_none() ? nullptr : bias_arg.as_tensor;
  if (bias != nullptr) {
    if (bias->dim != 1 || (bias->sizes[0] != n && bias->sizes[0] != 1)) {
      return Error::make(ErrorCode::kInvalidArgument, "%s: bias must have one dim of size %lld or 1", kOp,
                         static_cast<long long>(n));
    }
    if (!(err = check_dtype(kOp, "bias", *bias, out.dtype)).ok()) return err;
    if (!(err = check_no_overlap(kOp, out, *bias, *bias)).ok()) return err;
  }
  const int64_t bias_stride = bias != nullptr && bias->sizes[0] == n ? 1 : 0;
  return switch_dtype<kOp, kRealHBF16>(out.dtype, [&](auto zero) {
    using T = decltype(zero);
    const T* bias_data = bias != nullptr ? bias->data_as<T>() : nullptr;
    matmul_transposed_b<T>(input.data_as<T>(), weight.data_as<T>(), bias_data, bias_stride, out.data_as<T>(), m, k,
                           n);
    return Error();
  });
}

}  // namespace

extern const KernelDef linear_out{kOp, "TTt|T", &linear_out_impl, {}};

}  // namespace sb::kernels
