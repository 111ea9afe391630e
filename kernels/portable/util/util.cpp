#include <cstdio>

#include "util/convert.h"
#include "util/dtype_switch.h"
#include "util/elementwise.h"
#include "util/shape.h"
#include "util/strided.h"

namespace sb::kernels {

Error dtype_not_built(const char* op, ScalarType t) {
  return Error::make(ErrorCode::kNotSupported, "%s: dtype %s is not built into this runtime", op,
                     scalar_type_name(t));
}

Error normalize_dim(const char* op, int64_t d, int32_t rank, int32_t* out) {
  const int64_t r = rank == 0 ? 1 : rank;  // ATen lets a 0-d tensor take dim 0 / -1
  if (d < -r || d >= r) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: dim %lld out of range for rank %d", op,
                       static_cast<long long>(d), static_cast<int>(rank));
  }
  *out = static_cast<int32_t>(d < 0 ? d + r : d);
  return Error();
}

Error check_shape(const char* op, const char* what, const Tensor& t, const int64_t* sizes, int32_t rank) {
  bool same = t.dim == rank;
  for (int32_t i = 0; same && i < rank; ++i) same = t.sizes[i] == sizes[i];
  if (same) return Error();
  char want[64];
  char got[64];
  format_shape(want, sizeof want, sizes, rank);
  format_shape(got, sizeof got, t.sizes, t.dim);
  return Error::make(ErrorCode::kInvalidArgument, "%s: %s has shape %s, expected %s", op, what, got, want);
}

Error check_same_shape(const char* op, const char* what, const Tensor& t, const Tensor& like) {
  return check_shape(op, what, t, like.sizes, like.dim);
}

Error resize_output(const char* op, Tensor& out, const int64_t* sizes, int32_t rank) {
  Error err = resize(out, sizes, rank);
  if (err.ok()) return Error();
  return Error::make(err.code(), "%s: out %s", op, err.message());
}

Error resize_output_like(const char* op, Tensor& out, const Tensor& like) {
  return resize_output(op, out, like.sizes, like.dim);
}

Error resize_output_to_size(const char* op, Tensor& out, Span<const int64_t> size) {
  if (size.size() > static_cast<size_t>(kMaxDims)) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: size has too many dims", op);
  }
  return resize_output(op, out, size.data(), static_cast<int32_t>(size.size()));
}

Error check_dtype(const char* op, const char* what, const Tensor& t, ScalarType expected) {
  if (t.dtype == expected) return Error();
  return Error::make(ErrorCode::kInvalidArgument, "%s: %s has dtype %s, expected %s", op, what,
                     scalar_type_name(t.dtype), scalar_type_name(expected));
}

Error check_optional_param(const char* op, const char* what, const Value& v, int64_t numel, ScalarType dtype) {
  if (v.is_none()) return Error();
  const Tensor& t = *v.as_tensor;
  if (t.numel() != numel) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: %s has %lld elements, expected %lld", op, what,
                       static_cast<long long>(t.numel()), static_cast<long long>(numel));
  }
  return check_dtype(op, what, t, dtype);
}

Error check_optional_param_vector(const char* op, const char* what, const Value& v, int64_t numel, ScalarType dtype) {
  if (!v.is_none() && v.as_tensor->dim != 1) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: %s must be a vector of the %lld channels", op, what,
                       static_cast<long long>(numel));
  }
  return check_optional_param(op, what, v, numel, dtype);
}

Error check_same_numel(const char* op, const Tensor& out, const Tensor& in) {
  if (out.numel() == in.numel()) return Error();
  return Error::make(ErrorCode::kInvalidArgument, "%s: out has %lld elements, input has %lld", op,
                     static_cast<long long>(out.numel()), static_cast<long long>(in.numel()));
}

Error broadcast_shape(const char* op, const Tensor& a, const Tensor& b, int64_t* sizes, int32_t* rank) {
  const int32_t r = a.dim > b.dim ? a.dim : b.dim;
  for (int32_t i = 0; i < r; ++i) {
    const int32_t ia = a.dim - r + i;
    const int32_t ib = b.dim - r + i;
    const int64_t sa = ia >= 0 ? a.sizes[ia] : 1;
    const int64_t sb = ib >= 0 ? b.sizes[ib] : 1;
    if (sa != sb && sa != 1 && sb != 1) {
      return Error::make(ErrorCode::kInvalidArgument, "%s: cannot broadcast dim %d (%lld vs %lld)", op, static_cast<int>(i),
                         static_cast<long long>(sa), static_cast<long long>(sb));
    }
    sizes[i] = sa == 1 ? sb : sa;
  }
  *rank = r;
  return Error();
}

Error check_broadcast_out(const char* op, const Tensor& a, const Tensor& b, const Tensor& out) {
  int64_t sizes[kMaxDims];
  int32_t rank = 0;
  Error err = broadcast_shape(op, a, b, sizes, &rank);
  if (!err.ok()) return err;
  return resize_output(op, const_cast<Tensor&>(out), sizes, rank);
}

Error check_broadcasts_to(const char* op, const Tensor& in, const Tensor& out) {
  int64_t sizes[kMaxDims];
  int32_t rank = 0;
  Error err = broadcast_shape(op, in, out, sizes, &rank);
  if (!err.ok()) return err;
  return check_shape(op, "out", out, sizes, rank);
}

void contiguous_strides(const Tensor& t, int64_t* strides) { row_major_strides(t.sizes, t.dim, strides); }

Tensor view_with_sizes(const Tensor& t, const int64_t* sizes, int32_t rank) {
  Tensor v;
  v.dtype = t.dtype;
  v.data = t.data;
  v.dim = rank;
  for (int32_t i = 0; i < rank; ++i) v.sizes[i] = sizes[i];
  return v;
}

int64_t size_product(const Tensor& t, int32_t begin, int32_t end) {
  int64_t n = 1;
  for (int32_t i = begin; i < end; ++i) n *= t.sizes[i];
  return n;
}

// Output elements are visited in out's memory order (the k-th outermost dim
// in memory is out.dim_order[k]); the input's strides follow its own dim
// order, so any two dim orders broadcast correctly (identical for the default).
BroadcastIndex::BroadcastIndex(const Tensor& in, const Tensor& out)
    : same_(same_shape(in, out) && same_dim_order(in, out)), rank_(out.dim) {
  int64_t in_strides[kMaxDims];
  dim_order_strides(in, in_strides);
  for (int32_t k = 0; k < rank_; ++k) {
    const int32_t d = out.dim_order[k];
    out_sizes_[k] = out.sizes[d];
    const int32_t id = in.dim - rank_ + d;
    in_strides_[k] = (id >= 0 && in.sizes[id] != 1) ? in_strides[id] : 0;
  }
}

Error check_dim_order_arg(const char* op, const Value& dim_order, const Tensor* like, const Tensor& out) {
  bool same;
  if (dim_order.is_none()) {
    same = like != nullptr ? same_dim_order(*like, out) : out.is_default_dim_order();
  } else {
    const Span<const int64_t> order = dim_order.as_int_list;
    same = static_cast<int32_t>(order.size()) == out.dim;
    for (size_t i = 0; same && i < order.size(); ++i) same = order[i] == out.dim_order[i];
  }
  if (same) return Error();
  char have[64];  // formatted only for the message
  format_dim_order(have, sizeof have, out);
  if (dim_order.is_none()) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: out has dim order %s, not %s", op, have,
                       like != nullptr ? "self's" : "the default");
  }
  return Error::make(ErrorCode::kInvalidArgument, "%s: dim_order (%zu dims) differs from out's dim order %s", op,
                     dim_order.as_int_list.size(), have);
}

}  // namespace sb::kernels
