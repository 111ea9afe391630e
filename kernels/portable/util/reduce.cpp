#include "util/reduce.h"

#include "util/shape.h"

namespace sb::kernels {

Error plan_reduction(const char* op, const Tensor& in, Span<const int64_t> dims, bool keepdim, ReducePlan* plan) {
  // Only the counts restart: entries past them are never read (and a fresh
  // plan, as every caller passes, is already zeroed; no second clear and copy).
  plan->out_rank = 0;
  plan->count = 1;
  plan->kept = 0;
  plan->folded = 0;
  bool reduced[kMaxDims] = {};
  for (int64_t d : dims) {
    int32_t nd = 0;
    Error err = normalize_dim(op, d, in.dim, &nd);
    if (!err.ok()) return err;
    if (in.dim == 0) continue;
    if (reduced[nd]) return Error::make(ErrorCode::kInvalidArgument, "%s: dim %d repeated", op, static_cast<int>(nd));
    reduced[nd] = true;
  }
  int64_t strides[kMaxDims];
  contiguous_strides(in, strides);
  for (int32_t d = 0; d < in.dim; ++d) {
    if (dims.empty() || reduced[d]) {
      plan->count *= in.sizes[d];
      plan->folded_sizes[plan->folded] = in.sizes[d];
      plan->folded_strides[plan->folded++] = strides[d];
      if (keepdim) plan->out_sizes[plan->out_rank++] = 1;
    } else {
      plan->kept_sizes[plan->kept] = in.sizes[d];
      plan->kept_strides[plan->kept++] = strides[d];
      plan->out_sizes[plan->out_rank++] = in.sizes[d];
    }
  }
  return Error();
}

static int64_t offset_of(int64_t index, const int64_t* sizes, const int64_t* strides, int32_t rank) {
  int64_t offset = 0;
  for (int32_t d = rank - 1; d >= 0; --d) {
    offset += (index % sizes[d]) * strides[d];
    index /= sizes[d];
  }
  return offset;
}

int64_t kept_offset(const ReducePlan& plan, int64_t o) {
  return offset_of(o, plan.kept_sizes, plan.kept_strides, plan.kept);
}

int64_t folded_offset(const ReducePlan& plan, int64_t r) {
  return offset_of(r, plan.folded_sizes, plan.folded_strides, plan.folded);
}

}  // namespace sb::kernels
