// aten::native_group_norm.out: the float fast path of
// kernels/portable/op_native_group_norm.cpp (wav2vec2's feature extractor:
// one group per channel over a long signal). Each (n, group) block of
// C/group channels is one contiguous row: its moments from
// optimized/microkernels/row_moments.h, then per channel one vector pass of
// (x - mean) * rstd * weight + bias. Anything the portable kernel would
// check or refuse, and empty groups, go to the portable kernel.
#include <cstdint>

#include "optimized/microkernels/row_moments.h"
#include "sb/checked.h"
#include "sb/kernel.h"
#include "util/shape.h"

namespace sb::kernels {
extern const KernelDef native_group_norm_out;
}  // namespace sb::kernels

namespace sb::optimized {
namespace {

constexpr char kOp[] = "aten::native_group_norm.out";

// The portable kernel's check of an optional per-channel parameter, for Float.
bool channel_param(const Value& v, int64_t c) {
  if (v.is_none()) return true;
  const Tensor& t = *v.as_tensor;
  return t.dtype == ScalarType::kFloat && t.dim == 1 && t.numel() == c;
}

bool fits(Tensor& t, const int64_t* sizes, int32_t rank) {
  return t.dtype == ScalarType::kFloat && (has_sizes(t, sizes, rank) || kernels::resize_output(kOp, t, sizes, rank).ok());
}

Error opt_native_group_norm_out_impl(KernelContext& ctx, Args args) {
  const Tensor& input = *args[0]->as_tensor;
  const int64_t n = args[3]->as_int;
  const int64_t c = args[4]->as_int;
  const int64_t hxw = args[5]->as_int;
  const int64_t group = args[6]->as_int;
  Tensor& out = *args[8]->as_tensor;
  Tensor& mean_out = *args[9]->as_tensor;
  Tensor& rstd_out = *args[10]->as_tensor;
  const auto portable = [&] { return kernels::native_group_norm_out.fn(ctx, args); };
  if (input.dtype != ScalarType::kFloat || input.dim < 2 || input.sizes[0] != n || input.sizes[1] != c || c <= 0 ||
      hxw <= 0 ||
      sat_mul(sat_mul(static_cast<uint64_t>(n), static_cast<uint64_t>(c)), static_cast<uint64_t>(hxw)) !=
          static_cast<uint64_t>(input.numel()) ||
      group <= 0 || c % group != 0 || !channel_param(*args[1], c) || !channel_param(*args[2], c)) {
    return portable();
  }
  const int64_t stat_sizes[2] = {n, group};
  if (!fits(out, input.sizes, input.dim) || !fits(mean_out, stat_sizes, 2) || !fits(rstd_out, stat_sizes, 2)) {
    return portable();
  }
  const double eps = args[7]->as_double;
  const float* w = args[1]->is_none() ? nullptr : args[1]->as_tensor->data_as<float>();
  const float* b = args[2]->is_none() ? nullptr : args[2]->as_tensor->data_as<float>();
  const float* x = input.data_as<float>();
  float* y = out.data_as<float>();
  const int64_t per_group = c / group;
  const int64_t cols = per_group * hxw;
  for (int64_t r = 0; r < n * group; ++r) {
    const float* row = x + r * cols;
    const RowMoments m = row_moments(row, cols, eps);
    const int64_t first_channel = (r % group) * per_group;
    for (int64_t j = 0; j < per_group; ++j) {
      const int64_t ch = first_channel + j;
      const float scale = static_cast<float>(m.rstd * (w ? static_cast<double>(w[ch]) : 1.0));
      normalize_span(row + j * hxw, y + r * cols + j * hxw, hxw, m, scale, b ? b[ch] : 0.0f);
    }
    mean_out.data_as<float>()[r] = static_cast<float>(m.mean);
    rstd_out.data_as<float>()[r] = static_cast<float>(m.rstd);
  }
  return Error();
}

}  // namespace

extern const KernelDef opt_native_group_norm_out{kOp, "Tttiiiid|TTT", &opt_native_group_norm_out_impl, {}};

}  // namespace sb::optimized
