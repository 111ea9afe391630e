// aten::native_group_norm.out(Tensor input, Tensor? weight, Tensor? bias, SymInt N, SymInt C, SymInt HxW,
//     int group, float eps, *, Tensor(a!) out0, Tensor(b!) out1, Tensor(c!) out2)
//
// Each (n, group) block of C/group channels is normalized by its own mean and
// biased variance (one reduction over a [N*group, C/group*HxW] view), then
// scaled and shifted per channel. out1/out2 are the [N, group] means and rstds.
#include <cmath>
#include <initializer_list>

#include "sb/checked.h"
#include "sb/kernel.h"
#include "util/dtype_switch.h"
#include "util/fold.h"
#include "util/shape.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::native_group_norm.out";

Error group_norm_out_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& input = *args[0]->as_tensor;
  const int64_t n = args[3]->as_int;
  const int64_t c = args[4]->as_int;
  const int64_t hxw = args[5]->as_int;
  const int64_t group = args[6]->as_int;
  const double eps = args[7]->as_double;
  Tensor& out = *args[8]->as_tensor;
  Tensor& mean_out = *args[9]->as_tensor;
  Tensor& rstd_out = *args[10]->as_tensor;

  if (input.dim < 2 || input.sizes[0] != n || input.sizes[1] != c || hxw < 0 ||
      sat_mul(sat_mul(static_cast<uint64_t>(n), static_cast<uint64_t>(c)), static_cast<uint64_t>(hxw)) !=
          static_cast<uint64_t>(input.numel())) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: N, C and HxW do not match the input's shape", kOp);
  }
  if (group <= 0 || c % group != 0) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: %lld channels do not split into %lld groups", kOp,
                       static_cast<long long>(c), static_cast<long long>(group));
  }
  Error err = check_optional_param_vector(kOp, "weight", *args[1], c, input.dtype);
  if (!err.ok()) return err;
  if (!(err = check_optional_param_vector(kOp, "bias", *args[2], c, input.dtype)).ok()) return err;
  for (const Tensor* t : {&out, &mean_out, &rstd_out}) {
    if (!(err = check_dtype(kOp, "out", *t, input.dtype)).ok()) return err;
  }
  const int64_t stat_sizes[2] = {n, group};
  if (!(err = resize_output_like(kOp, out, input)).ok()) return err;
  if (!(err = resize_output(kOp, mean_out, stat_sizes, 2)).ok()) return err;
  if (!(err = resize_output(kOp, rstd_out, stat_sizes, 2)).ok()) return err;

  // Rows of the [N*group, C/group*HxW] view.
  const int64_t per_group = c / group;
  Tensor rows = input;
  rows.dim = 2;
  rows.sizes[0] = n * group;
  rows.sizes[1] = per_group * hxw;
  const int64_t dim1 = 1;
  ReducePlan plan;
  if (!(err = plan_reduction(kOp, rows, Span<const int64_t>(&dim1, 1), false, &plan)).ok()) return err;

  return switch_dtype<kOp, kFloatHBF16>(input.dtype, [&](auto zero) {
    using T = decltype(zero);
    const T* x = input.data_as<T>();
    const T* w = args[1]->is_none() ? nullptr : args[1]->as_tensor->data_as<T>();
    const T* b = args[2]->is_none() ? nullptr : args[2]->as_tensor->data_as<T>();
    T* y = out.data_as<T>();
    for (int64_t r = 0; r < rows.sizes[0]; ++r) {
      if (plan.count == 0) {  // nothing to normalize: ATen's mean 0, rstd NaN
        mean_out.data_as<T>()[r] = static_cast<T>(0.0f);
        rstd_out.data_as<T>()[r] = static_cast<T>(NAN);
        continue;
      }
      double mean = 0.0;
      double m2 = 0.0;
      fold_moments(plan, x, r, &mean, &m2);
      const double rstd = 1.0 / std::sqrt(m2 / static_cast<double>(plan.count) + eps);
      const int64_t first_channel = (r % group) * per_group;
      for (int64_t j = 0; j < per_group; ++j) {
        const int64_t ch = first_channel + j;
        const double scale = rstd * (w ? static_cast<double>(w[ch]) : 1.0);
        const double shift = (b ? static_cast<double>(b[ch]) : 0.0) - scale * mean;
        const int64_t base = (r * per_group + j) * hxw;
        for (int64_t k = 0; k < hxw; ++k) y[base + k] = static_cast<T>(scale * static_cast<double>(x[base + k]) + shift);
      }
      mean_out.data_as<T>()[r] = static_cast<T>(mean);
      rstd_out.data_as<T>()[r] = static_cast<T>(rstd);
    }
    return Error();
  });
}

}  // namespace

extern const KernelDef native_group_norm_out{kOp, "Tttiiiid|TTT", &group_norm_out_impl, {}};

}  // namespace sb::kernels
