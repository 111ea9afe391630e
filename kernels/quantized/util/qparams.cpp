#include "quantized/util/qparams.h"

#include <cmath>
#include <cstdlib>

namespace sb::quantized {
namespace {

// Scales below this are raised to it; the range is stretched to match.
constexpr float kSmallestScale = 6.1e-5f;

// The first smallest / largest element, compared with `<` as std::min_element
// and std::max_element do (so a NaN is picked only when it comes first).
float first_min(const float* x, int64_t n) {
  float best = x[0];
  for (int64_t i = 1; i < n; ++i) best = x[i] < best ? x[i] : best;
  return best;
}

float first_max(const float* x, int64_t n) {
  float best = x[0];
  for (int64_t i = 1; i < n; ++i) best = best < x[i] ? x[i] : best;
  return best;
}

// The types of each step are ExecuTorch's (double scale, float range, float
// amplifier), so the same inputs give the same scale and zero point.
bool scale_and_zero_point(float min, float max, int32_t quant_min, int32_t quant_max, double* scale_out,
                          int64_t* zero_point_out) {
  min = 0.f < min ? 0.f : min;  // std::min(min, 0.f)
  max = max < 0.f ? 0.f : max;  // std::max(max, 0.f)
  double scale = (static_cast<double>(max) - min) / (quant_max - quant_min);
  if (static_cast<float>(scale) == 0.0f || std::isinf(1.0f / static_cast<float>(scale))) scale = 0.1;
  if (!(scale > 0)) return false;
  if (scale < kSmallestScale) {
    const float original = static_cast<float>(scale);
    scale = kSmallestScale;
    if (min == 0.0f) {
      max = kSmallestScale * static_cast<float>(quant_max - quant_min);
    } else if (max == 0.0f) {
      min = -kSmallestScale * static_cast<float>(quant_max - quant_min);
    } else {
      const float amplifier = kSmallestScale / original;
      min *= amplifier;
      max *= amplifier;
    }
  }
  // The zero point from whichever end of the range loses less to rounding.
  const double from_min = quant_min - min / scale;
  const double from_max = quant_max - max / scale;
  const double from_min_error = std::abs(quant_min) - std::abs(min / scale);
  const double from_max_error = std::abs(quant_max) - std::abs(max / scale);
  const double initial = from_min_error < from_max_error ? from_min : from_max;
  int32_t zero_point = 0;
  if (initial < quant_min) {
    zero_point = quant_min;
  } else if (initial > quant_max) {
    zero_point = quant_max;
  } else {
    zero_point = static_cast<int32_t>(std::nearbyint(static_cast<float>(initial)));
  }
  *scale_out = scale;
  *zero_point_out = zero_point;
  return true;
}

}  // namespace

Error choose_row_qparams(const char* op, const Tensor& in, int64_t rows, int64_t row_length, int32_t quant_min,
                         int32_t quant_max, double* scales, int64_t* zero_points) {
  const float* x = in.data_as<float>();
  for (int64_t r = 0; r < rows; ++r, x += row_length) {
    if (!scale_and_zero_point(first_min(x, row_length), first_max(x, row_length), quant_min, quant_max, &scales[r],
                              &zero_points[r])) {
      return Error::make(ErrorCode::kInvalidArgument, "%s: row %lld has no finite range (NaN) to choose a scale from",
                         op, static_cast<long long>(r));
    }
  }
  return Error();
}

}  // namespace sb::quantized
