// The strided walker behind the shape kernels (transpose, t, diagonal,
// as_strided, unfold, flip, roll, repeat, stack, unbind): every element of a
// `sizes` box is copied from one strided layout to another, by element size,
// so one walker serves every dtype.
#pragma once

#include <cstddef>
#include <cstdint>

#include "sb/error.h"
#include "sb/tensor.h"

namespace sb::kernels {

// Walks may have more dims than a tensor (repeat views each dim as
// [repeats, size]).
constexpr int32_t kMaxWalkDims = 2 * kMaxDims;

// Element (c[0], ..., c[rank-1]) lives at offset + sum(c[d] * strides[d]),
// counted in elements. Strides may be zero (broadcast) or negative (flip).
struct Layout {
  int64_t offset = 0;
  int64_t strides[kMaxWalkDims] = {};
};

// Row-major strides for `sizes`, offset 0.
Layout contiguous_layout(const int64_t* sizes, int32_t rank);
// The same strides into strides[0, rank).
void row_major_strides(const int64_t* sizes, int32_t rank, int64_t* strides);

// The layout of a contiguous tensor.
Layout layout_of(const Tensor& t);

// to[j * to_step] = from[j * from_step] for j < n, in elements of `elem`
// bytes (steps in elements; a zero from_step broadcasts one element).
void copy_row_any(const uint8_t* from, int64_t from_step, uint8_t* to, int64_t to_step, int64_t n, size_t elem);

// dst[to(c)] = src[from(c)] for every coordinate c of `sizes`, in elements of
// `elem` bytes. The caller guarantees every address lies inside its buffer
// (check with `layout_span`) and that the destinations do not overlap the
// sources.
void walk_copy(const void* src, const Layout& from, void* dst, const Layout& to, const int64_t* sizes, int32_t rank,
               size_t elem);

// walk_copy with each layout as an offset and `rank` strides (no Layout to
// fill: strided_copy's per-call path).
void walk_copy_strides(const void* src, int64_t from_offset, const int64_t* from_strides, void* dst, int64_t to_offset,
                       const int64_t* to_strides, const int64_t* sizes, int32_t rank, size_t elem);

// Whether every element a walk over `sizes` reads through `layout` lies in
// [0, numel): overflow-safe, for layouts built from untrusted arguments
// (as_strided). An empty box reads nothing.
bool layout_within(const Layout& layout, const int64_t* sizes, int32_t rank, int64_t numel);

// The view kernels' common tail: out (same dtype as self) gets the shape
// `sizes` (rank <= kMaxDims) and the elements of self read through `from`.
// `from` must stay inside self for every coordinate of `sizes`.
Error copy_view(const char* op, const Tensor& self, const Layout& from, const int64_t* sizes, int32_t rank,
                Tensor& out);

}  // namespace sb::kernels
