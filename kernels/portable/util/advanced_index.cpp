#include "util/advanced_index.h"

#include "sb/checked.h"
#include "util/shape.h"

namespace sb::kernels {
namespace {

bool is_mask(const Tensor& t) { return t.dtype == ScalarType::kBool || t.dtype == ScalarType::kByte; }

// Masks hold one byte per element (bool or uint8); any nonzero byte is true.
int64_t count_true(const Tensor& mask) {
  const uint8_t* m = static_cast<const uint8_t*>(mask.data);
  const int64_t n = mask.numel();
  int64_t count = 0;
  for (int64_t i = 0; i < n; ++i) count += m[i] != 0;
  return count;
}

// Flat position of the q-th true element of `mask`.
int64_t nth_true(const Tensor& mask, int64_t q) {
  const uint8_t* m = static_cast<const uint8_t*>(mask.data);
  const int64_t n = mask.numel();
  for (int64_t i = 0; i < n; ++i) {
    if (m[i] != 0 && q-- == 0) return i;
  }
  return 0;  // unreachable for a validated plan
}

int64_t read_index(const Tensor& t, int64_t i) {
  return t.dtype == ScalarType::kInt ? static_cast<int64_t>(t.data_as<const int32_t>()[i]) : t.data_as<const int64_t>()[i];
}

}  // namespace

Error plan_advanced_index(const char* op, const Tensor& self, Span<Tensor* const> indices, AdvancedIndex* plan) {
  AdvancedIndex& p = *plan;
  p = AdvancedIndex();
  p.indices = indices;
  p.in_rank = self.dim;
  for (int32_t d = 0; d < self.dim; ++d) p.in_sizes[d] = self.sizes[d];
  contiguous_strides(self, p.in_strides);
  if (indices.size() > static_cast<size_t>(self.dim)) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: too many indices (%zu) for a tensor of rank %d", op,
                       indices.size(), static_cast<int>(self.dim));
  }
  // Walk the list: assign input dims, check dtypes and masks, broadcast the indices (right-aligned).
  int32_t in_d = 0;
  int32_t blocks = 0;
  bool in_block = false;
  int32_t first_indexed = -1;
  int64_t rev[kMaxDims] = {};  // broadcast sizes, last dim first
  int32_t rev_rank = 0;
  for (size_t e = 0; e < indices.size(); ++e) {
    const Tensor* t = indices[e];
    if (t == nullptr) {
      if (in_d >= self.dim) return Error::make(ErrorCode::kInvalidArgument, "%s: too many indices", op);
      p.entry[in_d++] = -1;
      in_block = false;
      continue;
    }
    if (!in_block) ++blocks;
    in_block = true;
    if (first_indexed < 0) first_indexed = in_d;
    const int32_t covers = is_mask(*t) ? t->dim : 1;
    if (t->dtype != ScalarType::kLong && t->dtype != ScalarType::kInt && !is_mask(*t)) {
      return Error::make(ErrorCode::kInvalidArgument, "%s: index %zu has dtype %s, expected Long, Int, Bool or Byte",
                         op, e, scalar_type_name(t->dtype));
    }
    if (is_mask(*t) && t->dim == 0) {
      return Error::make(ErrorCode::kInvalidArgument, "%s: mask index %zu is 0-d", op, e);
    }
    if (in_d + covers > self.dim) return Error::make(ErrorCode::kInvalidArgument, "%s: too many indices", op);
    int64_t shape[kMaxDims];
    int32_t rank = 1;
    if (is_mask(*t)) {
      for (int32_t j = 0; j < covers; ++j) {
        if (t->sizes[j] != self.sizes[in_d + j]) {
          return Error::make(ErrorCode::kInvalidArgument,
                             "%s: mask index %zu has size %lld at dim %d, the indexed tensor %lld", op, e,
                             static_cast<long long>(t->sizes[j]), static_cast<int>(j), static_cast<long long>(self.sizes[in_d + j]));
        }
        p.entry[in_d + j] = static_cast<int32_t>(e);
        p.component[in_d + j] = j;
      }
      p.mask_count[e] = count_true(*t);
      shape[0] = p.mask_count[e];
    } else {
      const int64_t size = self.sizes[in_d];
      const int64_t n = t->numel();
      for (int64_t i = 0; i < n; ++i) {
        const int64_t v = read_index(*t, i);
        if (v < -size || v >= size) {
          return Error::make(ErrorCode::kInvalidArgument, "%s: index %lld is out of bounds for dim %d of size %lld",
                             op, static_cast<long long>(v), static_cast<int>(in_d), static_cast<long long>(size));
        }
      }
      p.entry[in_d] = static_cast<int32_t>(e);
      p.component[in_d] = 0;
      rank = t->dim;
      for (int32_t j = 0; j < rank; ++j) shape[j] = t->sizes[j];
    }
    for (int32_t j = 0; j < rank; ++j) {
      const int64_t s = shape[rank - 1 - j];
      if (j >= rev_rank) {
        rev[j] = s;
      } else if (rev[j] == 1) {
        rev[j] = s;
      } else if (s != 1 && s != rev[j]) {
        return Error::make(ErrorCode::kInvalidArgument, "%s: indices cannot be broadcast together (%lld vs %lld)", op,
                           static_cast<long long>(s), static_cast<long long>(rev[j]));
      }
    }
    if (rank > rev_rank) rev_rank = rank;
    in_d += covers;
  }
  for (int32_t d = in_d; d < self.dim; ++d) p.entry[d] = -1;
  p.any_index = blocks > 0;
  int32_t indexed = 0;
  for (int32_t d = 0; d < self.dim; ++d) indexed += p.entry[d] >= 0;
  p.ix_rank = rev_rank;
  for (int32_t j = 0; j < rev_rank; ++j) p.ix_sizes[j] = rev[rev_rank - 1 - j];
  const int32_t out_rank = self.dim - indexed + rev_rank;
  if (out_rank > kMaxDims) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: the result would have %d dims, over %d", op, static_cast<int>(out_rank),
                       kMaxDims);
  }
  p.out_rank = out_rank;
  // Adjacent indexed dims keep their place; otherwise the broadcast dims come first.
  p.ix_start = blocks == 1 ? first_indexed : 0;
  for (int32_t j = 0; j < rev_rank; ++j) p.out_sizes[p.ix_start + j] = p.ix_sizes[j];
  int32_t next = 0;
  for (int32_t d = 0; d < self.dim; ++d) {
    if (p.entry[d] >= 0) continue;
    if (next == p.ix_start && p.any_index) next += rev_rank;
    p.result_dim[d] = next;
    p.out_sizes[next++] = self.sizes[d];
  }
  if (shape_numel(p.out_sizes, p.out_rank) == kSaturated) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: the indexing result is too large", op);
  }
  return Error();
}

int64_t advanced_index_offset(const AdvancedIndex& p, const int64_t* coord) {
  const int64_t* ix = coord + p.ix_start;
  int64_t offset = 0;
  for (int32_t d = 0; d < p.in_rank; ++d) {
    const int32_t e = p.entry[d];
    int64_t c;
    if (e < 0) {
      c = coord[p.result_dim[d]];
    } else {
      const Tensor& t = *p.indices[static_cast<size_t>(e)];
      if (is_mask(t)) {
        // The q-th true element (a single true element broadcasts); its coordinate along this dim.
        const int64_t q = p.mask_count[e] == 1 ? 0 : ix[p.ix_rank - 1];
        int64_t flat = nth_true(t, q);
        for (int32_t j = t.dim - 1; j > p.component[d]; --j) flat /= t.sizes[j];
        c = flat % t.sizes[p.component[d]];
      } else {
        int64_t flat = 0;
        int64_t stride = 1;
        for (int32_t j = t.dim - 1; j >= 0; --j) {
          if (t.sizes[j] != 1) flat += ix[p.ix_rank - t.dim + j] * stride;
          stride *= t.sizes[j];
        }
        c = read_index(t, flat);
        if (c < 0) c += p.in_sizes[d];
      }
    }
    offset += c * p.in_strides[d];
  }
  return offset;
}

}  // namespace sb::kernels
