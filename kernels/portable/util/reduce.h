// Reduction over a set of dims (as sum and mean take them), without scratch
// memory: each output element walks the input elements folded into it.
#pragma once

#include "sb/error.h"
#include "sb/span.h"
#include "sb/tensor.h"

namespace sb::kernels {

struct ReducePlan {
  int64_t out_sizes[kMaxDims] = {};
  int32_t out_rank = 0;
  int64_t count = 1;  // input elements folded into each output element
  // Kept and reduced dims of the input, with their sizes and strides.
  int32_t kept = 0;
  int32_t folded = 0;
  int64_t kept_sizes[kMaxDims] = {};
  int64_t kept_strides[kMaxDims] = {};
  int64_t folded_sizes[kMaxDims] = {};
  int64_t folded_strides[kMaxDims] = {};
};

// `dims` empty (or None) reduces every dim. Fails on a bad or repeated dim.
Error plan_reduction(const char* op, const Tensor& in, Span<const int64_t> dims, bool keepdim, ReducePlan* plan);

// Input offset of output element `o` (its first folded element).
int64_t kept_offset(const ReducePlan& plan, int64_t o);
// Offset, relative to kept_offset, of the r-th folded element.
int64_t folded_offset(const ReducePlan& plan, int64_t r);

}  // namespace sb::kernels
