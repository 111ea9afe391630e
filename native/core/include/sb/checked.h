// Overflow-safe size arithmetic. Every size, offset, count and cost the
// runtime derives from a program or an input file goes through these, so a
// hostile file cannot wrap a product into a small number.
//
// The operations saturate: a result that does not fit is kSaturated, which is
// larger than any budget or buffer, so comparing it against a limit is the
// overflow check.
#pragma once

#include <cstdint>

namespace sb {

constexpr uint64_t kSaturated = UINT64_MAX;

inline uint64_t sat_add(uint64_t a, uint64_t b) {
  uint64_t r;
  return __builtin_add_overflow(a, b, &r) ? kSaturated : r;
}

inline uint64_t sat_mul(uint64_t a, uint64_t b) {
  uint64_t r;
  return __builtin_mul_overflow(a, b, &r) ? kSaturated : r;
}

// Largest extent a tensor shape may have (see shape_numel).
constexpr uint64_t kMaxElements = uint64_t{1} << 40;

// Elements of a shape, or kSaturated when a size is negative or the shape's
// extent, the product of its sizes with zeros counted as ones, exceeds
// kMaxElements. Bounding the extent rather than the element count keeps every
// partial product a kernel may form (strides, outer and inner counts) in
// range even when a zero size makes the tensor empty.
inline uint64_t shape_numel(const int64_t* sizes, int32_t dim) {
  uint64_t extent = 1;
  bool empty = false;
  for (int32_t d = 0; d < dim; ++d) {
    if (sizes[d] < 0) return kSaturated;
    empty = empty || sizes[d] == 0;
    extent = sat_mul(extent, sizes[d] == 0 ? 1 : static_cast<uint64_t>(sizes[d]));
  }
  if (extent > kMaxElements) return kSaturated;
  return empty ? 0 : extent;
}

}  // namespace sb
