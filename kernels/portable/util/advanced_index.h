// Advanced indexing (x[i0, None, i2] with index tensors), shared by
// index.Tensor and index_put: the plan maps each element of the indexing
// result to the element of `self` it selects.
//
// An entry of the index list is None (the dim is kept whole), an integer
// tensor (Long or Int; negative values count from the end) or a mask (Bool
// or Byte) covering as many dims as it has, which acts like the integer
// coordinates of its true elements. The integer indices broadcast together;
// their broadcast shape replaces the indexed dims in the result, in place
// when the indexed dims are adjacent, in front otherwise (numpy's rule).
#pragma once

#include <cstdint>

#include "sb/error.h"
#include "sb/span.h"
#include "sb/tensor.h"

namespace sb::kernels {

struct AdvancedIndex {
  Span<Tensor* const> indices;  // the op's list; entries may be nullptr (None)
  int32_t in_rank = 0;
  int64_t in_strides[kMaxDims] = {};
  int64_t in_sizes[kMaxDims] = {};
  // Per input dim: the list entry indexing it (-1: not indexed) and, for a
  // mask entry, which of the mask's dims it is.
  int32_t entry[kMaxDims] = {};
  int32_t component[kMaxDims] = {};
  // Per input dim that is not indexed: its dim in the result.
  int32_t result_dim[kMaxDims] = {};
  // Broadcast shape of the indices, and where it starts in the result.
  int32_t ix_rank = 0;
  int64_t ix_sizes[kMaxDims] = {};
  int32_t ix_start = 0;
  int64_t mask_count[kMaxDims] = {};  // per list entry that is a mask: its true elements
  bool any_index = false;  // false: every entry is None (the result is self)
  // The indexing result's shape.
  int32_t out_rank = 0;
  int64_t out_sizes[kMaxDims] = {};
};

// Validates the index list against `self` (dtypes, mask shapes, broadcast,
// every integer index value in range) and fills `plan`.
Error plan_advanced_index(const char* op, const Tensor& self, Span<Tensor* const> indices, AdvancedIndex* plan);

// Element offset in self selected by the result element at `coord` (a
// coordinate of plan.out_sizes). The plan's values were validated.
int64_t advanced_index_offset(const AdvancedIndex& plan, const int64_t* coord);

// Calls fn(i, offset) for every result element i (row-major) with the
// offset of the self element it selects.
template <typename F>
void for_each_advanced_index(const AdvancedIndex& plan, F fn) {
  int64_t total = 1;
  for (int32_t d = 0; d < plan.out_rank; ++d) total *= plan.out_sizes[d];
  int64_t coord[kMaxDims] = {};
  for (int64_t i = 0; i < total; ++i) {
    fn(i, advanced_index_offset(plan, coord));
    for (int32_t d = plan.out_rank - 1; d >= 0; --d) {
      if (++coord[d] < plan.out_sizes[d]) break;
      coord[d] = 0;
    }
  }
}

}  // namespace sb::kernels
