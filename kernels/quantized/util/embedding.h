// The quantized embedding lookups (embedding_byte, _2bit, _4bit, each as .out
// and .dtype_out): rows of an integer table, 8, 4 or 2 bits per value,
// dequantized with a scale (and zero point) per row or per group of a row.
//
// Arguments, as every one of these ops has them: weight, weight_scales,
// weight_zero_points?, weight_quant_min, weight_quant_max, indices, then
// (.dtype_out) the optional output dtype, then out. `dtype` is that optional
// dtype (nullptr for .out).
#pragma once

#include <cstdint>

#include "sb/error.h"
#include "sb/kernel.h"
#include "util/dtype_switch.h"

namespace sb::quantized {

// How the scales and zero points are typed. `.out` reads them as the output's
// dtype (so theirs must be it); `.dtype_out` reads them as the scales' dtype.
enum class EmbeddingParams : uint8_t { kAsOutput, kAsScales };

struct EmbeddingShape {
  int64_t rows = 0;        // weight.size(0)
  int64_t row_bytes = 0;   // weight.size(1)
  int64_t dim = 0;         // values per row
  int64_t groups = 1;      // scales per row
  int64_t group_size = 0;  // values per scale
};

// Checks the arguments as ExecuTorch does (and, where it would read a
// parameter as another dtype than its own, refuses), resizes out to
// indices.shape + [dim] and checks every index.
Error check_embedding(const char* op, Args args, const Value* dtype, Tensor& out, int bits, EmbeddingParams params,
                      EmbeddingShape* shape);

// The value at `j` of a packed row: 4 bits (high nibble first) offset by 8, or
// 2 bits (lowest pair first) offset by 2.
inline int32_t packed_value(const uint8_t* row, int64_t j, int bits) {
  if (bits == 4) {
    const uint8_t byte = row[j >> 1];
    return static_cast<int32_t>((j & 1) ? (byte & 0x0F) : (byte >> 4)) - 8;
  }
  const uint8_t byte = row[j >> 2];
  return static_cast<int32_t>((byte >> (2 * (j & 3))) & 3) - 2;
}

// out[i, j] = (w[index_i, j] - zero_point) * scale, in float, rounded once to
// out's dtype. Arguments already checked by check_embedding.
template <const char* Op>
Error embedding_lookup(Args args, Tensor& out, int bits, EmbeddingParams params, const EmbeddingShape& shape) {
  using kernels::switch_dtype;
  const Tensor& weight = *args[0]->as_tensor;
  const Tensor& scales = *args[1]->as_tensor;
  const Tensor* zero_points = args[2]->is_none() ? nullptr : args[2]->as_tensor;
  const Tensor& indices = *args[5]->as_tensor;
  constexpr kernels::DtypeMask kParamTypes = kernels::kFloatType | kernels::kHalfType | kernels::kBFloat16Type;
  const ScalarType param_dtype = params == EmbeddingParams::kAsOutput ? out.dtype : scales.dtype;
  return switch_dtype<Op, kParamTypes>(out.dtype, [&](auto out_zero) {
    using Out = decltype(out_zero);
    return switch_dtype<Op, kParamTypes>(param_dtype, [&](auto param_zero) {
      using Param = decltype(param_zero);
      return switch_dtype<Op, kernels::kIntType | kernels::kLongType>(indices.dtype, [&](auto index_zero) {
        using Index = decltype(index_zero);
        return switch_dtype<Op, kernels::kByteType | kernels::kCharType>(weight.dtype, [&](auto weight_zero) {
          using Weight = decltype(weight_zero);
          const Index* index = indices.data_as<Index>();
          const Param* scale = scales.data_as<Param>();
          const Param* zero_point = zero_points == nullptr ? nullptr : zero_points->data_as<Param>();
          Out* y = out.data_as<Out>();
          const int64_t n = indices.numel();
          for (int64_t i = 0; i < n; ++i, y += shape.dim) {
            const int64_t row = static_cast<int64_t>(index[i]);
            const Weight* w = weight.data_as<Weight>() + row * shape.row_bytes;
            for (int64_t j = 0; j < shape.dim; ++j) {
              const int64_t param = row * shape.groups + j / shape.group_size;
              const float value = bits == 8 ? static_cast<float>(w[j])
                                            : static_cast<float>(packed_value(reinterpret_cast<const uint8_t*>(w), j, bits));
              const float zero = zero_point == nullptr ? 0.0f : static_cast<float>(zero_point[param]);
              y[j] = static_cast<Out>((value - zero) * static_cast<float>(scale[param]));
            }
          }
          return Error();
        });
      });
    });
  });
}

}  // namespace sb::quantized
