// Shape arithmetic shared by kernels. Every kernel validates its output shape
// with these before writing, so a corrupt program cannot cause a write past
// a buffer.
#pragma once

#include <cstdint>

#include "sb/error.h"
#include "sb/span.h"
#include "sb/tensor.h"
#include "sb/value.h"

namespace sb::kernels {

// Resolves a possibly negative dim against rank `dim`; fails when out of range.
Error normalize_dim(const char* op, int64_t d, int32_t rank, int32_t* out);

// Fails unless `t` has exactly `rank` dims with the given sizes.
Error check_shape(const char* op, const char* what, const Tensor& t, const int64_t* sizes, int32_t rank);
Error check_same_shape(const char* op, const char* what, const Tensor& t, const Tensor& like);

// Gives the out tensor `sizes`: a tensor with a dynamic bound is resized
// within its planned capacity; any other must already have exactly that
// shape. Every kernel sets its outputs' shapes through these, never by
// writing `sizes` itself, so a resize past the capacity is always an error.
Error resize_output(const char* op, Tensor& out, const int64_t* sizes, int32_t rank);
Error resize_output_like(const char* op, Tensor& out, const Tensor& like);
// The factory ops' form (empty, zeros, ones, full, rand, randn): out takes a
// `size` argument, which may not have more than kMaxDims dims.
Error resize_output_to_size(const char* op, Tensor& out, Span<const int64_t> size);
Error check_dtype(const char* op, const char* what, const Tensor& t, ScalarType expected);

// An optional parameter tensor of a normalization (weight, bias, running
// stats): none, or `numel` elements of `dtype`. The `_vector` form also
// requires one dim, as ATen does for per-channel parameters.
Error check_optional_param(const char* op, const char* what, const Value& v, int64_t numel, ScalarType dtype);
Error check_optional_param_vector(const char* op, const char* what, const Value& v, int64_t numel, ScalarType dtype);
Error check_same_numel(const char* op, const Tensor& out, const Tensor& in);

// Broadcast shape of a and b (numpy rules); fails if they are incompatible.
Error broadcast_shape(const char* op, const Tensor& a, const Tensor& b, int64_t* sizes, int32_t* rank);

// Contiguous (row-major) strides in elements.
void contiguous_strides(const Tensor& t, int64_t* strides);

// A same-rank view of `t` with `sizes`, sharing its data. `rank` must be
// <= kMaxDims (callers pass shapes they validated).
Tensor view_with_sizes(const Tensor& t, const int64_t* sizes, int32_t rank);

// Window and geometry arguments (strides, padding, dilation, kernel sizes)
// beyond this are corrupt: they would overflow index arithmetic.
constexpr int64_t kMaxGeometry = int64_t{1} << 24;
inline bool plausible_geometry(int64_t v) { return v >= -kMaxGeometry && v <= kMaxGeometry; }

// The product of sizes[begin:end].
int64_t size_product(const Tensor& t, int32_t begin, int32_t end);

}  // namespace sb::kernels
