#include <cstdio>
#include <cstring>

#include "sb/checked.h"
#include "sb/tensor.h"

namespace sb {

void format_shape(char* buf, size_t cap, const int64_t* sizes, int32_t rank) {
  if (cap == 0) return;
  size_t used = 0;
  auto put = [&](const char* format, long long v) {
    if (used >= cap) return;
    const int n = snprintf(buf + used, cap - used, format, v);
    used = n < 0 ? cap : used + static_cast<size_t>(n);
  };
  put("[", 0);
  for (int32_t i = 0; i < rank; ++i) put(i ? ", %lld" : "%lld", static_cast<long long>(sizes[i]));
  put("]", 0);
}

void format_dim_order(char* buf, size_t cap, const Tensor& t) {
  int64_t order[kMaxDims];
  for (int32_t i = 0; i < t.dim; ++i) order[i] = t.dim_order[i];
  format_shape(buf, cap, order, t.dim);
}

bool same_dim_order(const Tensor& a, const Tensor& b) {
  if (a.dim != b.dim) return false;
  for (int32_t i = 0; i < a.dim; ++i) {
    if (a.dim_order[i] != b.dim_order[i]) return false;
  }
  return true;
}

bool is_dim_order(const uint8_t* order, int32_t rank) {
  if (rank < 0 || rank > kMaxDims) return false;
  bool seen[kMaxDims] = {};
  for (int32_t i = 0; i < rank; ++i) {
    if (order[i] >= rank || seen[order[i]]) return false;
    seen[order[i]] = true;
  }
  return true;
}

void dim_order_strides(const Tensor& t, int64_t* strides) {
  int64_t stride = 1;
  for (int32_t i = t.dim - 1; i >= 0; --i) {
    strides[t.dim_order[i]] = stride;
    stride *= t.sizes[t.dim_order[i]];
  }
}

void copy_across_dim_orders(const Tensor& src, const Tensor& dst) {
  const size_t size = element_size(dst.dtype);
  const int64_t n = dst.numel();
  if (n == 0) return;
  const auto* from = static_cast<const uint8_t*>(src.data);
  auto* to = static_cast<uint8_t*>(dst.data);
  if (same_dim_order(src, dst)) {
    memcpy(to, from, static_cast<size_t>(n) * size);
    return;
  }
  // Walk dst in memory order, carrying the logical index as a counter over
  // dst's dims from innermost outwards, and src's offset along with it.
  int64_t src_strides[kMaxDims];
  dim_order_strides(src, src_strides);
  int64_t coord[kMaxDims] = {};
  int64_t offset = 0;
  for (int64_t i = 0; i < n; ++i) {
    memcpy(to + static_cast<size_t>(i) * size, from + static_cast<size_t>(offset) * size, size);
    for (int32_t k = dst.dim - 1; k >= 0; --k) {
      const int32_t d = dst.dim_order[k];
      offset += src_strides[d];
      if (++coord[d] < dst.sizes[d]) break;
      offset -= src_strides[d] * dst.sizes[d];
      coord[d] = 0;
    }
  }
}

Error resize(Tensor& t, const int64_t* sizes, int32_t rank) {
  if (has_sizes(t, sizes, rank)) return Error();
  // A dynamic tensor takes a new shape on every call that changes it: the
  // shapes are formatted only for a refusal.
  const uint64_t numel = shape_numel(sizes, rank);
  const bool fits = numel != kSaturated && numel <= static_cast<uint64_t>(t.capacity);
  if (t.is_dynamic() && rank == t.dim && fits) {
    for (int32_t i = 0; i < rank; ++i) t.sizes[i] = sizes[i];
    return Error();
  }
  char want[80];
  format_shape(want, sizeof want, sizes, rank);
  if (!t.is_dynamic()) {
    char have[80];
    format_shape(have, sizeof have, t.sizes, t.dim);
    return Error::make(ErrorCode::kInvalidArgument, "has shape %s, expected %s", have, want);
  }
  if (rank != t.dim) {
    return Error::make(ErrorCode::kInvalidArgument, "has rank %d, cannot take shape %s (a resize keeps the rank)",
                       static_cast<int>(t.dim), want);
  }
  return Error::make(ErrorCode::kInvalidArgument, "cannot take shape %s: beyond its bound of %lld elements", want,
                     static_cast<long long>(t.capacity));
}

}  // namespace sb
