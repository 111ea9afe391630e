#include "quantized/util/embedding.h"

#include "quantized/util/quantize.h"
#include "util/shape.h"

namespace sb::quantized {
namespace {

bool is_param_dtype(ScalarType t) {
  return t == ScalarType::kFloat || t == ScalarType::kHalf || t == ScalarType::kBFloat16;
}

Error fail(const char* op, const char* what) { return Error::make(ErrorCode::kInvalidArgument, "%s: %s", op, what); }

Error check_zero_points(const char* op, const Tensor& zero_points, const Tensor& scales, ScalarType read_as,
                        const Tensor& out) {
  if (zero_points.dim != scales.dim) return fail(op, "weight_zero_points must have the rank of weight_scales");
  for (int32_t d = 0; d < scales.dim; ++d) {
    if (zero_points.sizes[d] != scales.sizes[d]) {
      return fail(op, "weight_zero_points must have the shape of weight_scales");
    }
  }
  // ExecuTorch asks for out's dtype, and reads them as `read_as`: both must hold.
  Error err = kernels::check_dtype(op, "weight_zero_points", zero_points, out.dtype);
  if (!err.ok()) return err;
  return kernels::check_dtype(op, "weight_zero_points", zero_points, read_as);
}

template <typename Index>
Error check_index_range(const char* op, const Tensor& indices, int64_t rows) {
  const Index* index = indices.data_as<Index>();
  for (int64_t i = 0; i < indices.numel(); ++i) {
    if (index[i] < 0 || index[i] >= rows) {
      return Error::make(ErrorCode::kInvalidArgument, "%s: index %lld out of range for %lld rows", op,
                         static_cast<long long>(index[i]), static_cast<long long>(rows));
    }
  }
  return Error();
}

// Indices are Long or Int (checked before).
Error check_indices(const char* op, const Tensor& indices, int64_t rows) {
  if (indices.dtype == ScalarType::kLong) return check_index_range<int64_t>(op, indices, rows);
  return check_index_range<int32_t>(op, indices, rows);
}

}  // namespace

Error check_embedding(const char* op, Args args, const Value* dtype, Tensor& out, int bits, EmbeddingParams params,
                      EmbeddingShape* shape) {
  const Tensor& weight = *args[0]->as_tensor;
  const Tensor& scales = *args[1]->as_tensor;
  const int64_t quant_min = args[3]->as_int;
  const int64_t quant_max = args[4]->as_int;
  const Tensor& indices = *args[5]->as_tensor;
  if (weight.dim != 2) return fail(op, "weight must be 2-D");
  if (scales.dim != 1 && scales.dim != 2) return fail(op, "weight_scales must be 1-D or 2-D");
  if (scales.sizes[0] != weight.sizes[0]) return fail(op, "weight_scales must have one row per weight row");
  shape->rows = weight.sizes[0];
  shape->row_bytes = weight.sizes[1];
  shape->dim = weight.sizes[1] * (8 / bits);
  shape->groups = scales.dim == 2 ? scales.sizes[1] : 1;
  if (shape->groups <= 0 || shape->dim % shape->groups != 0) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: %lld groups do not divide the %lld values of a row", op,
                       static_cast<long long>(shape->groups), static_cast<long long>(shape->dim));
  }
  shape->group_size = shape->dim / shape->groups;
  const bool signed_weight_ok = bits == 8;
  if (weight.dtype != ScalarType::kByte && !(signed_weight_ok && weight.dtype == ScalarType::kChar)) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: weight has dtype %s, expected Byte%s", op,
                       scalar_type_name(weight.dtype), signed_weight_ok ? " or Char" : "");
  }
  if (!is_param_dtype(out.dtype)) return fail(op, "out must be Float, Half or BFloat16");
  if (!is_param_dtype(scales.dtype)) return fail(op, "weight_scales must be Float, Half or BFloat16");
  const ScalarType read_as = params == EmbeddingParams::kAsOutput ? out.dtype : scales.dtype;
  // ExecuTorch's .out kernel reads the scales as out's dtype, whatever theirs.
  Error err = kernels::check_dtype(op, "weight_scales", scales, read_as);
  if (!err.ok()) return err;
  if (!args[2]->is_none() && !(err = check_zero_points(op, *args[2]->as_tensor, scales, read_as, out)).ok()) return err;
  const bool int_indices_ok = bits != 8;
  if (indices.dtype != ScalarType::kLong && !(int_indices_ok && indices.dtype == ScalarType::kInt)) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: indices have dtype %s, expected Long%s", op,
                       scalar_type_name(indices.dtype), int_indices_ok ? " or Int" : "");
  }
  if (quant_min > quant_max) return fail(op, "weight_quant_min is greater than weight_quant_max");
  if (dtype != nullptr && !dtype->is_none() && !is_dtype(dtype->as_int, out.dtype)) {
    return fail(op, "out's dtype is not the dtype argument");
  }
  if (indices.dim + 1 > kMaxDims) return fail(op, "indices have too many dims");
  int64_t sizes[kMaxDims];
  for (int32_t d = 0; d < indices.dim; ++d) sizes[d] = indices.sizes[d];
  sizes[indices.dim] = shape->dim;
  if (!(err = kernels::resize_output(op, out, sizes, indices.dim + 1)).ok()) return err;
  return check_indices(op, indices, shape->rows);
}

}  // namespace sb::quantized
