// Quantizing and dequantizing with one scale and zero point per channel: the
// loops every quantize_* and dequantize_* op of the quantized library runs
// (per tensor is one channel, per token one channel per row).
//
// The arithmetic is ExecuTorch's, step for step, so that both runtimes give
// identical integers: the inverse scale in float, the product rounded to
// float, std::nearbyint (half to even), the zero point added in float, then
// the clamp. Dequantizing subtracts the zero point in integers and multiplies
// by the scale in float.
#pragma once

#include <cstdint>

#include <cmath>
#include <type_traits>

#include "sb/error.h"
#include "sb/tensor.h"
#include "sb/value.h"
#include "util/dtype_switch.h"

namespace sb::quantized {

// The integer types a quantized tensor has in ExecuTorch's kernels (its 16-bit
// unsigned types are not element types of this runtime).
constexpr kernels::DtypeMask kQuantizedTypes =
    kernels::kByteType | kernels::kCharType | kernels::kShortType | kernels::kIntType;

// The type arithmetic on T happens in: float for Half and BFloat16 (they are
// storage types), else T itself.
template <typename T>
using Compute = std::conditional_t<std::is_same_v<T, double>, double, float>;

// Where an element's scale and zero point come from: element i belongs to
// channel (i / inner) % channels. Scales are Double or Float, zero points
// Long or Int, or absent (zero).
struct ChannelParams {
  const void* scales = nullptr;
  ScalarType scale_dtype = ScalarType::kDouble;
  const void* zero_points = nullptr;  // nullptr: every zero point is 0
  ScalarType zero_point_dtype = ScalarType::kLong;
  int64_t channels = 1;
  int64_t inner = 1;

  double scale(int64_t c) const;
  int64_t zero_point(int64_t c) const;
};

// The params of one channel along `axis` of `in` (already normalized), the
// scales and zero points read from tensors of that many elements.
ChannelParams along_axis(const Tensor& in, int32_t axis, const Tensor& scales, const Tensor* zero_points);

// One scale and zero point per row of `in` (the elements of its last dim), for
// the per-token ops; `in` has at least one dim.
ChannelParams per_row(const Tensor& in, const Tensor& scales, const Tensor* zero_points);

// Which dtypes a channel's params may have: the quantize ops take Double
// scales and Long zero points only; the dequantize ops also Float scales and
// Int zero points.
enum class ParamDtypes : uint8_t { kDoubleAndLong, kAnyFloatAndInt };

// `channels` scales and, when given, `channels` zero points of the dtypes
// `dtypes` allows.
Error check_channel_params(const char* op, int64_t channels, const Tensor& scales, const Tensor* zero_points,
                           ParamDtypes dtypes);

// One scale and zero point for all of `in`.
ChannelParams whole_tensor(const Tensor& in, const double* scale, const int64_t* zero_point);

// The per-tensor ops' Tensor_out form: a one-element Double scale and a
// one-element Long zero point, as choose_qparams writes them.
Error check_scalar_params(const char* op, const Tensor& scale, const Tensor& zero_point);

// The quantized dtype argument and the clamp range: out has `dtype`, which is
// Byte, Char, Short or Int, and quant_min/quant_max lie in its range. The
// input is Float, Double or Half. ExecuTorch refuses the same.
Error check_quantize_args(const char* op, const Tensor& in, int64_t quant_min, int64_t quant_max, int64_t dtype,
                          const Tensor& out);

// Every scale of `params` can be inverted in float: ExecuTorch divides by it
// unchecked, and a zero (or denormal) scale would make the rounded value
// infinite, which no integer type holds.
Error check_invertible_scales(const char* op, const ChannelParams& params);

// The rounding and clamp of one value, as ExecuTorch's quantize_val does it:
// `scaled` is value * (1.0f / scale) rounded to float.
int64_t quantize_scaled(float scaled, int32_t zero_point, int64_t quant_min, int64_t quant_max);

// out = clamp(nearbyint(in / scale) + zero_point), for in and out of
// check_quantize_args' dtypes and of one shape. A template on the op, so a
// dtype-selective build keeps only the dtypes that op's selection names.
template <const char* Op>
Error quantize_channels(const Tensor& in, const ChannelParams& params, int64_t quant_min, int64_t quant_max,
                        Tensor& out) {
  using kernels::switch_dtype;
  const int64_t n = in.numel();
  if (n == 0) return Error();
  return switch_dtype<Op, kernels::kFloatHTypes>(in.dtype, [&](auto in_zero) {
    using In = decltype(in_zero);
    return switch_dtype<Op, kQuantizedTypes>(out.dtype, [&](auto out_zero) {
      using Out = decltype(out_zero);
      const In* x = in.data_as<In>();
      Out* y = out.data_as<Out>();
      for (int64_t block = 0; block * params.inner < n; ++block) {
        const int64_t c = block % params.channels;
        const float inv_scale = 1.0f / static_cast<float>(params.scale(c));
        const int32_t zero_point = static_cast<int32_t>(params.zero_point(c));
        const int64_t begin = block * params.inner;
        for (int64_t i = begin; i < begin + params.inner; ++i) {
          // The product is taken in In's arithmetic (double for Double) and rounded to float.
          const float scaled = static_cast<float>(inv_scale * x[i]);
          y[i] = static_cast<Out>(quantize_scaled(scaled, zero_point, quant_min, quant_max));
        }
      }
      return Error();
    });
  });
}

// The input dtype is `dtype` (Byte, Char, Short or Int), quant_min <= quant_max,
// and out is Float, Double or Half, and the optional out_dtype when given.
Error check_dequantize_args(const char* op, const Tensor& in, int64_t quant_min, int64_t quant_max, int64_t dtype,
                            const Value& out_dtype, const Tensor& out);

// ExecuTorch's per-channel dequantize of Char to Float (out_dtype Float or
// none) refuses a zero point outside [quant_min, quant_max]; its other paths
// take one. The same refusal here.
Error check_char_zero_points(const char* op, const Tensor& in, const Value& out_dtype, const ChannelParams& params,
                             int64_t quant_min, int64_t quant_max);

// How the product is rounded: ExecuTorch multiplies in float everywhere but
// for a 1-D dequantize_per_channel, whose loop converts (q - zero_point) to
// the output type first, so a Double output multiplies in double there.
enum class DequantizeProduct : uint8_t { kInFloat, kInOutputType };

// out = (in - zero_point) * scale, for in and out of check_dequantize_args'
// dtypes and of one shape.
template <const char* Op>
Error dequantize_channels(const Tensor& in, const ChannelParams& params, DequantizeProduct product, Tensor& out) {
  using kernels::switch_dtype;
  const int64_t n = in.numel();
  if (n == 0) return Error();
  return switch_dtype<Op, kQuantizedTypes>(in.dtype, [&](auto in_zero) {
    using In = decltype(in_zero);
    return switch_dtype<Op, kernels::kFloatHTypes>(out.dtype, [&](auto out_zero) {
      using Out = decltype(out_zero);
      const In* x = in.data_as<In>();
      Out* y = out.data_as<Out>();
      for (int64_t block = 0; block * params.inner < n; ++block) {
        const int64_t c = block % params.channels;
        const float scale = static_cast<float>(params.scale(c));
        const int64_t zero_point = static_cast<int32_t>(params.zero_point(c));
        const int64_t begin = block * params.inner;
        for (int64_t i = begin; i < begin + params.inner; ++i) {
          const int64_t shifted = static_cast<int64_t>(x[i]) - zero_point;
          if (product == DequantizeProduct::kInOutputType) {
            y[i] = static_cast<Out>(static_cast<Compute<Out>>(static_cast<Out>(shifted)) * scale);
          } else {
            y[i] = static_cast<Out>(static_cast<float>(shifted) * scale);
          }
        }
      }
      return Error();
    });
  });
}

// The value of an int argument that must be a ScalarType code.
bool is_dtype(int64_t code, ScalarType t);

}  // namespace sb::quantized
