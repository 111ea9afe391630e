// aten::native_layer_norm.out(Tensor input, SymInt[] normalized_shape, Tensor? weight, Tensor? bias,
//                             float eps, *, Tensor(a!) out0, Tensor(b!) out1, Tensor(c!) out2)
#include <cmath>

#include "sb/kernel.h"
#include "util/dtype_switch.h"
#include "util/shape.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::native_layer_norm.out";

Error layer_norm_out_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& input = *args[0]->as_tensor;
  const Span<const int64_t> shape = args[1]->as_int_list;
  const double eps = args[4]->scalar_as_double();
  Tensor& out = *args[5]->as_tensor;
  Tensor& mean_out = *args[6]->as_tensor;
  Tensor& rstd_out = *args[7]->as_tensor;

  const int32_t k = static_cast<int32_t>(shape.size());
  if (k == 0 || k > input.dim) return Error::make(ErrorCode::kInvalidArgument, "%s: bad normalized_shape", kOp);
  for (int32_t i = 0; i < k; ++i) {
    if (input.sizes[input.dim - k + i] != shape[i]) {
      return Error::make(ErrorCode::kInvalidArgument, "%s: normalized_shape does not match the input", kOp);
    }
  }
  const int64_t cols = size_product(input, input.dim - k, input.dim);
  const int64_t rows = size_product(input, 0, input.dim - k);
  Error err = resize_output_like(kOp, out, input);
  if (!err.ok()) return err;
  if (!(err = check_dtype(kOp, "input", input, out.dtype)).ok()) return err;
  if (!(err = check_optional_param(kOp, "weight", *args[2], cols, out.dtype)).ok()) return err;
  if (!(err = check_optional_param(kOp, "bias", *args[3], cols, out.dtype)).ok()) return err;
  // Mean and rstd have input's leading sizes and ones for the normalized
  // dims; they are written only when they have that shape and out's dtype.
  int64_t stat_sizes[kMaxDims];
  for (int32_t d = 0; d < input.dim; ++d) stat_sizes[d] = d < input.dim - k ? input.sizes[d] : 1;
  const bool stats = resize_output(kOp, mean_out, stat_sizes, input.dim).ok() &&
                     resize_output(kOp, rstd_out, stat_sizes, input.dim).ok() && mean_out.dtype == out.dtype &&
                     rstd_out.dtype == out.dtype;

  return switch_dtype<kOp, kFloatHBF16>(out.dtype, [&](auto zero) {
    using T = decltype(zero);
    const T* x = input.data_as<T>();
    const T* w = args[2]->is_none() ? nullptr : args[2]->as_tensor->data_as<T>();
    const T* b = args[3]->is_none() ? nullptr : args[3]->as_tensor->data_as<T>();
    T* y = out.data_as<T>();
    for (int64_t r = 0; r < rows; ++r) {
      const T* row = x + r * cols;
      double sum = 0.0;
      for (int64_t c = 0; c < cols; ++c) sum += row[c];
      const double mean = sum / static_cast<double>(cols);
      double var = 0.0;
      for (int64_t c = 0; c < cols; ++c) var += (row[c] - mean) * (row[c] - mean);
      const double rstd = 1.0 / std::sqrt(var / static_cast<double>(cols) + eps);
      T* dst = y + r * cols;
      for (int64_t c = 0; c < cols; ++c) {
        double v = (row[c] - mean) * rstd;
        if (w) v *= w[c];
        if (b) v += b[c];
        dst[c] = static_cast<T>(v);
      }
      if (stats) {
        mean_out.data_as<T>()[r] = static_cast<T>(mean);
        rstd_out.data_as<T>()[r] = static_cast<T>(rstd);
      }
    }
    return Error();
  });
}

}  // namespace

extern const KernelDef native_layer_norm_out{kOp, "TIttd|TTT", &layer_norm_out_impl, {}};

}  // namespace sb::kernels
