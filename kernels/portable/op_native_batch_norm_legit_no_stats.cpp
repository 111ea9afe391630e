// aten::_native_batch_norm_legit.no_stats_out(Tensor input, Tensor? weight, Tensor? bias, bool training,
//     float momentum, float eps, *, Tensor(a!) out, Tensor(b!) save_mean, Tensor(c!) save_invstd)
//
// Normalizes each channel by the batch's own statistics (mean and biased
// variance over every dim but dim 1, one reduction); save_mean/save_invstd
// are those per-channel statistics. `training` and `momentum` change nothing
// without running stats.
#include <cmath>
#include <initializer_list>

#include "sb/kernel.h"
#include "util/dtype_switch.h"
#include "util/fold.h"
#include "util/shape.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::_native_batch_norm_legit.no_stats_out";

Error batch_norm_no_stats_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& input = *args[0]->as_tensor;
  const double eps = args[5]->as_double;
  Tensor& out = *args[6]->as_tensor;
  Tensor& mean_out = *args[7]->as_tensor;
  Tensor& invstd_out = *args[8]->as_tensor;
  if (input.dim < 2) return Error::make(ErrorCode::kInvalidArgument, "%s: input needs a channel dim", kOp);
  const int64_t channels = input.sizes[1];
  Error err = check_optional_param_vector(kOp, "weight", *args[1], channels, input.dtype);
  if (!err.ok()) return err;
  if (!(err = check_optional_param_vector(kOp, "bias", *args[2], channels, input.dtype)).ok()) return err;
  for (const Tensor* t : {&out, &mean_out, &invstd_out}) {
    if (!(err = check_dtype(kOp, "out", *t, input.dtype)).ok()) return err;
  }
  // Every dim but the channels'.
  int64_t dims[kMaxDims];
  int32_t n_dims = 0;
  for (int32_t d = 0; d < input.dim; ++d) {
    if (d != 1) dims[n_dims++] = d;
  }
  ReducePlan plan;
  if (!(err = plan_reduction(kOp, input, Span<const int64_t>(dims, n_dims), false, &plan)).ok()) return err;
  if (!(err = resize_output_like(kOp, out, input)).ok()) return err;
  if (!(err = resize_reduced(kOp, mean_out, plan)).ok()) return err;
  if (!(err = resize_reduced(kOp, invstd_out, plan)).ok()) return err;

  const int64_t batch = input.sizes[0];
  const int64_t inner = size_product(input, 2, input.dim);
  return switch_dtype<kOp, kFloatHBF16>(input.dtype, [&](auto zero) {
    using T = decltype(zero);
    const T* x = input.data_as<T>();
    const T* w = args[1]->is_none() ? nullptr : args[1]->as_tensor->data_as<T>();
    const T* b = args[2]->is_none() ? nullptr : args[2]->as_tensor->data_as<T>();
    T* y = out.data_as<T>();
    for (int64_t c = 0; c < channels; ++c) {
      double mean = NAN;
      double m2 = NAN;
      if (plan.count > 0) fold_moments(plan, x, c, &mean, &m2);
      const double invstd = 1.0 / std::sqrt(m2 / static_cast<double>(plan.count) + eps);
      const double scale = invstd * (w ? static_cast<double>(w[c]) : 1.0);
      const double shift = (b ? static_cast<double>(b[c]) : 0.0) - mean * scale;
      for (int64_t n = 0; n < batch; ++n) {
        const int64_t base = (n * channels + c) * inner;
        for (int64_t i = 0; i < inner; ++i) y[base + i] = static_cast<T>(static_cast<double>(x[base + i]) * scale + shift);
      }
      mean_out.data_as<T>()[c] = static_cast<T>(mean);
      invstd_out.data_as<T>()[c] = static_cast<T>(invstd);
    }
    return Error();
  });
}

}  // namespace

extern const KernelDef _native_batch_norm_legit_no_stats_out{kOp, "Tttbdd|TTT", &batch_norm_no_stats_impl, {}};

}  // namespace sb::kernels
