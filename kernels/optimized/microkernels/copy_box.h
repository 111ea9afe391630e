// Strided copies shared by the optimized view/copy kernels (copy, permute,
// expand, slice, select, split, constant_pad_nd, and the index kernels' row
// gathers through gather_rows.h): dtype-agnostic, by element size.
#pragma once

#include <cstddef>
#include <cstdint>

namespace sb::optimized {

// dst[c . dst_strides] = src[c . src_strides] for every coordinate c of the
// `rank` dims of `sizes` (rank <= kMaxDims), strides in elements of `elem`
// bytes (0: broadcast). Dims of size 1 are dropped and dims both sides step
// over as one run are merged, so whole contiguous runs go by memcpy. The
// caller guarantees every address is inside its buffer and that dst does not
// overlap src.
void copy_box(const void* src, const int64_t* src_strides, void* dst, const int64_t* dst_strides,
              const int64_t* sizes, int32_t rank, size_t elem);

// copy_box into a contiguous dst of `sizes`.
void copy_to_contiguous(const void* src, const int64_t* src_strides, void* dst, const int64_t* sizes, int32_t rank,
                        size_t elem);

// Row-major element strides of `sizes`.
void row_major_strides(const int64_t* sizes, int32_t rank, int64_t* strides);

}  // namespace sb::optimized
