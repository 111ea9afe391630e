#include "quantized/util/quantize.h"

#include <cmath>
#include <limits>

#include "util/shape.h"

namespace sb::quantized {

double ChannelParams::scale(int64_t c) const {
  if (scale_dtype == ScalarType::kFloat) return static_cast<const float*>(scales)[c];
  return static_cast<const double*>(scales)[c];
}

int64_t ChannelParams::zero_point(int64_t c) const {
  if (zero_points == nullptr) return 0;
  if (zero_point_dtype == ScalarType::kInt) return static_cast<const int32_t*>(zero_points)[c];
  return static_cast<const int64_t*>(zero_points)[c];
}

ChannelParams along_axis(const Tensor& in, int32_t axis, const Tensor& scales, const Tensor* zero_points) {
  ChannelParams params;
  params.scales = scales.data;
  params.scale_dtype = scales.dtype;
  if (zero_points != nullptr) {
    params.zero_points = zero_points->data;
    params.zero_point_dtype = zero_points->dtype;
  }
  params.channels = in.sizes[axis];
  params.inner = kernels::size_product(in, axis + 1, in.dim);
  return params;
}

ChannelParams per_row(const Tensor& in, const Tensor& scales, const Tensor* zero_points) {
  ChannelParams params = along_axis(in, in.dim - 1, scales, zero_points);
  params.channels = kernels::size_product(in, 0, in.dim - 1);
  params.inner = in.sizes[in.dim - 1];
  return params;
}

Error check_channel_params(const char* op, int64_t channels, const Tensor& scales, const Tensor* zero_points,
                           ParamDtypes dtypes) {
  const bool any = dtypes == ParamDtypes::kAnyFloatAndInt;
  if (scales.dtype != ScalarType::kDouble && !(any && scales.dtype == ScalarType::kFloat)) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: scales have dtype %s, expected Double%s", op,
                       scalar_type_name(scales.dtype), any ? " or Float" : "");
  }
  if (scales.numel() != channels) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: %lld scales for %lld channels", op,
                       static_cast<long long>(scales.numel()), static_cast<long long>(channels));
  }
  if (zero_points == nullptr) return Error();
  if (zero_points->dtype != ScalarType::kLong && !(any && zero_points->dtype == ScalarType::kInt)) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: zero_points have dtype %s, expected Long%s", op,
                       scalar_type_name(zero_points->dtype), any ? " or Int" : "");
  }
  if (zero_points->numel() != channels) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: %lld zero_points for %lld channels", op,
                       static_cast<long long>(zero_points->numel()), static_cast<long long>(channels));
  }
  return Error();
}

ChannelParams whole_tensor(const Tensor& in, const double* scale, const int64_t* zero_point) {
  ChannelParams params;
  params.scales = scale;
  params.zero_points = zero_point;
  params.inner = in.numel();
  return params;
}

Error check_scalar_params(const char* op, const Tensor& scale, const Tensor& zero_point) {
  Error err = kernels::check_dtype(op, "scale", scale, ScalarType::kDouble);
  if (!err.ok() || !(err = kernels::check_dtype(op, "zero_point", zero_point, ScalarType::kLong)).ok()) return err;
  if (scale.numel() != 1 || zero_point.numel() != 1) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: scale and zero_point must hold one element each (%lld, %lld)",
                       op, static_cast<long long>(scale.numel()), static_cast<long long>(zero_point.numel()));
  }
  return Error();
}

bool is_dtype(int64_t code, ScalarType t) { return code == static_cast<int64_t>(t); }

namespace {

// The range of a quantized dtype; false for a dtype no quantized tensor has.
bool quantized_range(ScalarType t, int64_t* lowest, int64_t* highest) {
  switch (t) {
    case ScalarType::kByte: *lowest = 0, *highest = 255; return true;
    case ScalarType::kChar: *lowest = -128, *highest = 127; return true;
    case ScalarType::kShort: *lowest = INT16_MIN, *highest = INT16_MAX; return true;
    case ScalarType::kInt: *lowest = INT32_MIN, *highest = INT32_MAX; return true;
    default: return false;
  }
}

bool is_floating(ScalarType t) {
  return t == ScalarType::kFloat || t == ScalarType::kDouble || t == ScalarType::kHalf;
}

}  // namespace

Error check_quantize_args(const char* op, const Tensor& in, int64_t quant_min, int64_t quant_max, int64_t dtype,
                          const Tensor& out) {
  if (!is_floating(in.dtype)) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: input has dtype %s, expected Float, Double or Half", op,
                       scalar_type_name(in.dtype));
  }
  if (!is_dtype(dtype, out.dtype)) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: out has dtype %s but the dtype argument is %lld", op,
                       scalar_type_name(out.dtype), static_cast<long long>(dtype));
  }
  int64_t lowest = 0;
  int64_t highest = 0;
  if (!quantized_range(out.dtype, &lowest, &highest)) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: cannot quantize to %s (Byte, Char, Short or Int)", op,
                       scalar_type_name(out.dtype));
  }
  if (quant_min < lowest || quant_max > highest) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: quant range [%lld, %lld] exceeds %s's [%lld, %lld]", op,
                       static_cast<long long>(quant_min), static_cast<long long>(quant_max),
                       scalar_type_name(out.dtype), static_cast<long long>(lowest), static_cast<long long>(highest));
  }
  return Error();
}

Error check_invertible_scales(const char* op, const ChannelParams& params) {
  for (int64_t c = 0; c < params.channels; ++c) {
    const float scale = static_cast<float>(params.scale(c));
    if (scale == 0.0f || !std::isfinite(scale) || !std::isfinite(1.0f / scale)) {
      return Error::make(ErrorCode::kInvalidArgument, "%s: scale %g (channel %lld) is zero, too small or not finite",
                         op, static_cast<double>(scale), static_cast<long long>(c));
    }
  }
  return Error();
}

int64_t quantize_scaled(float scaled, int32_t zero_point, int64_t quant_min, int64_t quant_max) {
  // The zero point is added in float, as in ExecuTorch (int32 + float is a float sum).
  const float shifted = static_cast<float>(zero_point) + std::nearbyint(scaled);
  // Converting a NaN or an out-of-range float to an integer is undefined in C++; x86, where
  // ExecuTorch's references come from, gives INT64_MIN, which the clamp then takes to quant_min.
  constexpr float kInt64Bound = 9.223372036854775807e18f;
  int64_t q = shifted >= -kInt64Bound && shifted < kInt64Bound ? static_cast<int64_t>(shifted)
                                                               : std::numeric_limits<int64_t>::min();
  // max, then min, as ExecuTorch clamps: an empty range (quant_min > quant_max) gives quant_max.
  q = q < quant_min ? quant_min : q;
  return q > quant_max ? quant_max : q;
}

Error check_dequantize_args(const char* op, const Tensor& in, int64_t quant_min, int64_t quant_max, int64_t dtype,
                            const Value& out_dtype, const Tensor& out) {
  int64_t lowest = 0;
  int64_t highest = 0;
  if (!quantized_range(in.dtype, &lowest, &highest)) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: input has dtype %s, expected Byte, Char, Short or Int", op,
                       scalar_type_name(in.dtype));
  }
  if (!is_dtype(dtype, in.dtype)) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: input has dtype %s but the dtype argument is %lld", op,
                       scalar_type_name(in.dtype), static_cast<long long>(dtype));
  }
  if (!out_dtype.is_none() && !is_dtype(out_dtype.as_int, out.dtype)) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: out has dtype %s but out_dtype is %lld", op,
                       scalar_type_name(out.dtype), static_cast<long long>(out_dtype.as_int));
  }
  if (!is_floating(out.dtype)) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: out has dtype %s, expected Float, Double or Half", op,
                       scalar_type_name(out.dtype));
  }
  if (quant_min > quant_max) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: quant_min %lld is greater than quant_max %lld", op,
                       static_cast<long long>(quant_min), static_cast<long long>(quant_max));
  }
  return Error();
}

Error check_char_zero_points(const char* op, const Tensor& in, const Value& out_dtype, const ChannelParams& params,
                             int64_t quant_min, int64_t quant_max) {
  if (in.dtype != ScalarType::kChar || !(out_dtype.is_none() || is_dtype(out_dtype.as_int, ScalarType::kFloat))) {
    return Error();
  }
  for (int64_t c = 0; c < params.channels; ++c) {
    const int64_t zero_point = params.zero_point(c);
    if (zero_point < quant_min || zero_point > quant_max) {
      return Error::make(ErrorCode::kInvalidArgument, "%s: zero point %lld (channel %lld) is outside [%lld, %lld]", op,
                         static_cast<long long>(zero_point), static_cast<long long>(c),
                         static_cast<long long>(quant_min), static_cast<long long>(quant_max));
    }
  }
  return Error();
}

}  // namespace sb::quantized
