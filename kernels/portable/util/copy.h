// Data movement shared by the view/copy kernels (permute, expand, select,
// slice, split, cat): dtype-agnostic, by element size.
#pragma once

#include <cstdint>

#include "sb/error.h"
#include "sb/tensor.h"

namespace sb::kernels {

// dst (contiguous, `rank` dims of `sizes`) gets src elements at
// src_offset + sum(coord[d] * src_strides[d]), in elements of `elem` bytes:
// util/strided.h's walk_copy into a contiguous layout.
void strided_copy(const void* src, int64_t src_offset, const int64_t* src_strides, void* dst, const int64_t* sizes,
                  int32_t rank, size_t elem);

// The same dtype and numel as `in`, then a byte copy (view-like ops). Safe
// when out aliases in.
Error copy_same_numel(const char* op, const Tensor& in, const Tensor& out);

// out becomes a copy of in: its shape (through resize_output), dtype and
// bytes. The whole kernel of the identity copies (alias, detach, device moves).
Error copy_like(const char* op, const Tensor& in, Tensor& out);

}  // namespace sb::kernels
