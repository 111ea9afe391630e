// quantized_decomposed::mixed_linear.out(Tensor input, Tensor weight, Tensor weight_scales,
//                                        Tensor? weight_zero_points, ScalarType? dtype=None, *, Tensor(a!) out)
//
// out[m, p] = sum over groups g of (sum_{k in g} input[m, k] * weight[p, k]) * weight_scales[p, g]: an int8
// weight [p, k] used transposed, with one scale per weight row (1-D scales) or per group of a row (2-D
// [p, groups] scales, a group ceil(k / groups) columns wide). input and scales share a dtype (Float or
// Half); out has `dtype` (Float or Half) when given, else its own (Double too). Each group's partial sum
// and the total run in out's dtype, as in ExecuTorch. Zero points are not supported (nor there).
#include "quantized/util/half_arith.h"
#include "quantized/util/quantize.h"
#include "sb/kernel.h"
#include "util/dtype_switch.h"
#include "util/shape.h"

namespace sb::quantized {
namespace {

constexpr char kOp[] = "quantized_decomposed::mixed_linear.out";

Error fail(const char* what) { return Error::make(ErrorCode::kInvalidArgument, "%s: %s", kOp, what); }

Error quantized_mixed_linear_out_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& in = *args[0]->as_tensor;
  const Tensor& weight = *args[1]->as_tensor;
  const Tensor& scales = *args[2]->as_tensor;
  const Value& dtype = *args[4];
  Tensor& out = *args[5]->as_tensor;
  if (in.dim != 2 || weight.dim != 2) return fail("needs a 2-D input and weight");
  if (scales.dim != 1 && scales.dim != 2) return fail("weight_scales must be 1-D or 2-D");
  if (in.sizes[1] != weight.sizes[1]) return fail("input columns must match weight columns");
  if (scales.sizes[0] != weight.sizes[0]) return fail("needs scales for every weight row");
  if (in.dtype != ScalarType::kFloat && in.dtype != ScalarType::kHalf) return fail("input must be Float or Half");
  Error err = kernels::check_dtype(kOp, "weight_scales", scales, in.dtype);
  if (!err.ok() || !(err = kernels::check_dtype(kOp, "weight", weight, ScalarType::kChar)).ok()) return err;
  if (!dtype.is_none() && !is_dtype(dtype.as_int, ScalarType::kFloat) && !is_dtype(dtype.as_int, ScalarType::kHalf)) {
    return fail("dtype must be Float or Half");
  }
  if (!dtype.is_none() && !is_dtype(dtype.as_int, out.dtype)) return fail("out's dtype is not the dtype argument");
  if (!args[3]->is_none()) return fail("zero points are not supported");
  const int64_t depth = in.sizes[1];
  // A group of ceil(depth / groups) columns; its scales are read ceil(depth / group) to a row.
  int64_t group = depth;
  if (scales.dim == 2) {
    if (scales.sizes[1] <= 0) return fail("weight_scales has no groups");
    group = (depth + scales.sizes[1] - 1) / scales.sizes[1];
  }
  if (depth == 0) return fail("input has no columns");  // ExecuTorch divides by the group width
  const int64_t scales_per_row = (depth + group - 1) / group;
  const int64_t sizes[] = {in.sizes[0], weight.sizes[0]};
  if (!(err = kernels::resize_output(kOp, out, sizes, 2)).ok()) return err;
  const int64_t rows = in.sizes[0];
  const int64_t cols = weight.sizes[0];
  return kernels::switch_dtype<kOp, kernels::kFloatType | kernels::kHalfType>(in.dtype, [&](auto in_zero) {
    using U = decltype(in_zero);
    return kernels::switch_dtype<kOp, kernels::kFloatHTypes>(out.dtype, [&](auto out_zero) {
      using T = decltype(out_zero);
      const U* x = in.data_as<U>();
      const int8_t* w = weight.data_as<int8_t>();
      const U* s = scales.data_as<U>();
      T* y = out.data_as<T>();
      for (int64_t i = 0; i < rows; ++i) {
        for (int64_t j = 0; j < cols; ++j) {
          T sum = T(0);
          for (int64_t k = 0; k < depth; k += group) {
            T partial = T(0);
            const int64_t end = k + group < depth ? k + group : depth;
            for (int64_t c = k; c < end; ++c) {
              partial = static_cast<T>(add(partial, multiply(x[i * depth + c], static_cast<U>(w[j * depth + c]))));
            }
            sum = static_cast<T>(add(sum, multiply(partial, s[j * scales_per_row + k / group])));
          }
          y[i * cols + j] = sum;
        }
      }
      return Error();
    });
  });
}

}  // namespace

extern const KernelDef quantized_mixed_linear_out{kOp, "TTTtn|T", &quantized_mixed_linear_out_impl, {}};

}  // namespace sb::quantized
