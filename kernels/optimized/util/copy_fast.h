// Data movement shared by the optimized view/copy kernels (copy, permute,
// expand, slice, select, split, constant_pad_nd: strided boxes; index,
// index_select, embedding: row gathers): dtype-agnostic, by element size.
#pragma once

#include <cstddef>
#include <cstdint>

#include "sb/tensor.h"

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

// out row i = table row index[i] for the `count` Int or Long indices (already
// checked to lie in [-rows, rows); negative ones count from the end), rows of
// `row_bytes`; `outer` blocks of table_rows rows each gather the same indices.
void gather_rows(const void* table, int64_t table_rows, size_t row_bytes, const Tensor& index, int64_t outer,
                 void* out);

// Whether every index of an Int or Long tensor lies in [-rows, rows) (negative
// ones allowed when `negative`); false for any other dtype.
bool indices_within(const Tensor& index, int64_t rows, bool negative);

}  // namespace sb::optimized
