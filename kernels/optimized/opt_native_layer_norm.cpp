// aten::native_layer_norm.out: the float fast path of
// kernels/portable/op_native_layer_norm.cpp (rows of the last dims: mean and
// variance from vector sums flushed into doubles, then one fused
// (x - mean) * rstd * weight + bias pass); everything else goes to the
// portable kernel. mean and rstd are written exactly when portable writes them.
#include "optimized/microkernels/row_moments.h"
#include "optimized/simd/vec.h"
#include "sb/kernel.h"
#include "util/shape.h"

namespace sb::kernels {
extern const KernelDef native_layer_norm_out;
}  // namespace sb::kernels

namespace sb::optimized {
namespace {

constexpr char kOp[] = "aten::native_layer_norm.out";

bool float_param(const Value& v) { return v.is_none() || v.as_tensor->dtype == ScalarType::kFloat; }

// check_optional_param's success condition for a Float parameter (the types
// are checked already), inline: the fast path builds no Error values.
bool param_fits(const Value& v, int64_t numel) { return v.is_none() || v.as_tensor->numel() == numel; }

// y = ((x - mean) * rstd) * w + b over one row. A missing weight or bias is a
// vector of ones or zeros that does not advance (step 0): one loop for all
// four cases.
void normalize_row(const float* x, float* y, int64_t n, const RowMoments& mean, float rstd, const float* w, int64_t sw,
                   const float* b, int64_t sb) {
  const VecF vh = splat(mean.hi);
  const VecF vl = splat(mean.lo);
  const VecF vr = splat(rstd);
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes, w += sw, b += sb) {
    store(y + i, ((load(x + i) - vh) - vl) * vr * load(w) + load(b));
  }
  if (i < n) {
    const int64_t m = n - i;
    const VecF vw = sw != 0 ? load_tail(w, m) : load(w);
    const VecF vb = sb != 0 ? load_tail(b, m) : load(b);
    store_tail(y + i, ((load_tail(x + i, m) - vh) - vl) * vr * vw + vb, m);
  }
}

// Each of `rows` rows of `cols` (>= 1) floats: mean, variance, the normalised row;
// mean and rstd stored when mean_out / rstd_out are given.
__attribute__((noinline)) void layer_norm_rows(const float* x, float* y, int64_t rows, int64_t cols, double eps,
                                               const float* w, const float* b, float* mean_out, float* rstd_out) {
  float ones[kLanes];
  float zeros[kLanes];
  store(ones, splat(1.0f));
  store(zeros, VecF{});
  for (int64_t r = 0; r < rows; ++r) {
    const float* row = x + r * cols;
    const RowMoments moments = row_moments(row, cols, eps);
    const float s = static_cast<float>(moments.rstd);
    normalize_row(row, y + r * cols, cols, moments, s, w != nullptr ? w : ones, w != nullptr ? kLanes : 0,
                  b != nullptr ? b : zeros, b != nullptr ? kLanes : 0);
    if (mean_out != nullptr) {
      mean_out[r] = moments.hi;
      rstd_out[r] = s;
    }
  }
}

Error opt_native_layer_norm_out_impl(KernelContext& ctx, Args args) {
  const Tensor& input = *args[0]->as_tensor;
  const Span<const int64_t> shape = args[1]->as_int_list;
  Tensor& out = *args[5]->as_tensor;
  Tensor& mean_out = *args[6]->as_tensor;
  Tensor& rstd_out = *args[7]->as_tensor;
  if (input.dtype != ScalarType::kFloat || out.dtype != ScalarType::kFloat || !float_param(*args[2]) ||
      !float_param(*args[3])) {
    return kernels::native_layer_norm_out.fn(ctx, args);
  }
  // The portable kernel's checks, in its order; any failure is reported by it.
  const int32_t k = static_cast<int32_t>(shape.size());
  if (k == 0 || k > input.dim) return kernels::native_layer_norm_out.fn(ctx, args);
  for (int32_t i = 0; i < k; ++i) {
    if (input.sizes[input.dim - k + i] != shape[i]) return kernels::native_layer_norm_out.fn(ctx, args);
  }
  const int64_t cols = kernels::size_product(input, input.dim - k, input.dim);
  const int64_t rows = kernels::size_product(input, 0, input.dim - k);
  if (cols == 0) return kernels::native_layer_norm_out.fn(ctx, args);  // empty rows: no moments
  if ((!same_shape(input, out) && !kernels::resize_output_like(kOp, out, input).ok()) || !param_fits(*args[2], cols) ||
      !param_fits(*args[3], cols)) {
    return kernels::native_layer_norm_out.fn(ctx, args);
  }
  int64_t stat_sizes[kMaxDims];
  for (int32_t d = 0; d < input.dim; ++d) stat_sizes[d] = d < input.dim - k ? input.sizes[d] : 1;
  const bool stats =
      (has_sizes(mean_out, stat_sizes, input.dim) || kernels::resize_output(kOp, mean_out, stat_sizes, input.dim).ok()) &&
      (has_sizes(rstd_out, stat_sizes, input.dim) || kernels::resize_output(kOp, rstd_out, stat_sizes, input.dim).ok()) &&
      mean_out.dtype == out.dtype && rstd_out.dtype == out.dtype;

  layer_norm_rows(input.data_as<float>(), out.data_as<float>(), rows, cols, args[4]->scalar_as_double(),
                  args[2]->is_none() ? nullptr : args[2]->as_tensor->data_as<float>(),
                  args[3]->is_none() ? nullptr : args[3]->as_tensor->data_as<float>(),
                  stats ? mean_out.data_as<float>() : nullptr, stats ? rstd_out.data_as<float>() : nullptr);
  return Error();
}

}  // namespace

extern const KernelDef opt_native_layer_norm_out{kOp, "TIttd|TTT", &opt_native_layer_norm_out_impl, {}};

}  // namespace sb::optimized
