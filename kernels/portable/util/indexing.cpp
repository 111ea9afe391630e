#include "util/indexing.h"

#include <cstring>

#include "util/shape.h"

namespace sb::kernels {
namespace {

// Sizes of t seen with at least one dim.
int64_t size_at(const Tensor& t, int32_t d) { return t.dim == 0 ? 1 : t.sizes[d]; }

void strides_of(const Tensor& t, int32_t rank, int64_t* strides) {
  int64_t s = 1;
  for (int32_t d = rank - 1; d >= 0; --d) {
    strides[d] = s;
    s *= size_at(t, d);
  }
}

}  // namespace

Error plan_dim_index(const char* op, const Tensor& self, int64_t dim, const Tensor& index, const Tensor* src,
                     DimIndex* plan) {
  DimIndex& p = *plan;
  p = DimIndex();
  Error err = normalize_dim(op, dim, self.dim, &p.dim);
  if (!err.ok()) return err;
  if (index.dtype != ScalarType::kLong) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: index has dtype %s, expected Long", op,
                       scalar_type_name(index.dtype));
  }
  p.rank = self.dim == 0 ? 1 : self.dim;
  p.numel = index.numel();
  p.index = index.data_as<const int64_t>();
  if (p.numel == 0) return Error();
  const int32_t index_rank = index.dim == 0 ? 1 : index.dim;
  const int32_t src_rank = src == nullptr ? p.rank : src->dim == 0 ? 1 : src->dim;
  if (index_rank != p.rank || src_rank != p.rank) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: self, index%s must have the same number of dims", op,
                       src != nullptr ? " and src" : "");
  }
  for (int32_t d = 0; d < p.rank; ++d) {
    p.index_sizes[d] = size_at(index, d);
    if (d != p.dim && p.index_sizes[d] > size_at(self, d)) {
      return Error::make(ErrorCode::kInvalidArgument, "%s: index is larger than self at dim %d", op, static_cast<int>(d));
    }
    if (src != nullptr && p.index_sizes[d] > size_at(*src, d)) {
      return Error::make(ErrorCode::kInvalidArgument, "%s: index is larger than src at dim %d", op, static_cast<int>(d));
    }
  }
  const int64_t size = size_at(self, p.dim);
  for (int64_t i = 0; i < p.numel; ++i) {
    if (p.index[i] < 0 || p.index[i] >= size) {
      return Error::make(ErrorCode::kInvalidArgument, "%s: index %lld is out of bounds for dim %d of size %lld", op,
                         static_cast<long long>(p.index[i]), static_cast<int>(p.dim), static_cast<long long>(size));
    }
  }
  strides_of(self, p.rank, p.self_strides);
  strides_of(src != nullptr ? *src : index, p.rank, p.src_strides);
  return Error();
}

Error begin_scatter(const char* op, const Tensor& self, int64_t dim, const Tensor& index, const Tensor* src,
                    Tensor& out, DimIndex* plan) {
  Error err = plan_dim_index(op, self, dim, index, src, plan);
  if (!err.ok()) return err;
  if (!(err = resize_output_like(op, out, self)).ok()) return err;
  if (!(err = check_dtype(op, "self", self, out.dtype)).ok()) return err;
  if (src != nullptr && !(err = check_dtype(op, "src", *src, out.dtype)).ok()) return err;
  if (out.data != self.data && out.nbytes() != 0) memmove(out.data, self.data, out.nbytes());
  return Error();
}

}  // namespace sb::kernels
