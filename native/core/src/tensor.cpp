#include <cstdio>

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

Error resize(Tensor& t, const int64_t* sizes, int32_t rank) {
  bool same = t.dim == rank;
  for (int32_t i = 0; same && i < rank; ++i) same = t.sizes[i] == sizes[i];
  if (same) return Error();
  char want[80];
  char have[80];
  format_shape(want, sizeof want, sizes, rank);
  format_shape(have, sizeof have, t.sizes, t.dim);
  if (!t.is_dynamic()) return Error::make(ErrorCode::kInvalidArgument, "has shape %s, expected %s", have, want);
  if (rank != t.dim) {
    return Error::make(ErrorCode::kInvalidArgument, "has rank %d, cannot take shape %s (a resize keeps the rank)",
                       static_cast<int>(t.dim), want);
  }
  const uint64_t numel = shape_numel(sizes, rank);
  if (numel == kSaturated || numel > static_cast<uint64_t>(t.capacity)) {
    return Error::make(ErrorCode::kInvalidArgument, "cannot take shape %s: beyond its bound of %lld elements", want,
                       static_cast<long long>(t.capacity));
  }
  for (int32_t i = 0; i < rank; ++i) t.sizes[i] = sizes[i];
  return Error();
}

}  // namespace sb
