// quantized_decomposed::mixed_mm.out(Tensor input, Tensor weight, Tensor weight_scales,
//                                    Tensor? weight_zero_points, *, Tensor(a!) out)
//
// out[m, p] = sum_k input[m, k] * weight[k, p] * weight_scales[k], with an int8
// weight [k, p] and one scale per weight row. input, scales and out share one
// dtype (Float or Half) and the sum runs in it, as in ExecuTorch. Zero points
// are not supported (ExecuTorch refuses them too).
#include "quantized/util/half_arith.h"
#include "sb/kernel.h"
#include "util/dtype_switch.h"
#include "util/shape.h"

namespace sb::quantized {
namespace {

constexpr char kOp[] = "quantized_decomposed::mixed_mm.out";

Error fail(const char* what) { return Error::make(ErrorCode::kInvalidArgument, "%s: %s", kOp, what); }

Error quantized_mixed_mm_out_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& in = *args[0]->as_tensor;
  const Tensor& weight = *args[1]->as_tensor;
  const Tensor& scales = *args[2]->as_tensor;
  Tensor& out = *args[4]->as_tensor;
  if (in.dim != 2 || weight.dim != 2 || scales.dim != 1) return fail("needs a 2-D input and weight and 1-D scales");
  if (in.sizes[1] != weight.sizes[0]) return fail("input columns must match weight rows");
  if (scales.sizes[0] != weight.sizes[0]) return fail("needs one scale per weight row");
  if (in.dtype != ScalarType::kFloat && in.dtype != ScalarType::kHalf) return fail("input must be Float or Half");
  Error err = kernels::check_dtype(kOp, "weight_scales", scales, in.dtype);
  if (!err.ok() || !(err = kernels::check_dtype(kOp, "weight", weight, ScalarType::kChar)).ok()) return err;
  if (!args[3]->is_none()) return fail("zero points are not supported");
  const int64_t sizes[] = {in.sizes[0], weight.sizes[1]};
  if (!(err = kernels::resize_output(kOp, out, sizes, 2)).ok()) return err;
  if (!(err = kernels::check_dtype(kOp, "out", out, in.dtype)).ok()) return err;
  const int64_t rows = in.sizes[0];
  const int64_t depth = in.sizes[1];
  const int64_t cols = weight.sizes[1];
  return kernels::switch_dtype<kOp, kernels::kFloatType | kernels::kHalfType>(in.dtype, [&](auto zero) {
    using T = decltype(zero);
    const T* x = in.data_as<T>();
    const int8_t* w = weight.data_as<int8_t>();
    const T* s = scales.data_as<T>();
    T* y = out.data_as<T>();
    for (int64_t i = 0; i < rows; ++i) {
      for (int64_t j = 0; j < cols; ++j) {
        T sum = T(0);
        for (int64_t k = 0; k < depth; ++k) {
          sum = add(sum, multiply(multiply(x[i * depth + k], static_cast<T>(w[k * cols + j])), s[k]));
        }
        y[i * cols + j] = sum;
      }
    }
    return Error();
  });
}

}  // namespace

extern const KernelDef quantized_mixed_mm_out{kOp, "TTTt|T", &quantized_mixed_mm_out_impl, {}};

}  // namespace sb::quantized
