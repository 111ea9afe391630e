// optimized/operators/reduce_op.h: the reduced dims folded into one block, if they form one.
#include "optimized/operators/reduce_op.h"

namespace sb::optimized {

bool reduction_block(const Tensor& in, Span<const int64_t> dims, ReductionBlock* block) {
  uint32_t reduced = dims.size() == 0 ? ~0u : 0u;
  for (int64_t d : dims) {
    const int64_t at = d < 0 ? d + in.dim : d;
    if (at < 0 || at >= in.dim) return false;
    reduced |= 1u << at;
  }
  // Size-1 dims fold into nothing; the others, in order: kept (outer), reduced (count), kept (inner).
  ReductionBlock b;
  int part = 0;
  for (int32_t d = 0; d < in.dim; ++d) {
    const int64_t n = in.sizes[d];
    if (n == 1) continue;
    if ((reduced >> d) & 1u) {
      if (part == 2) return false;  // a kept dim inside the reduced range: not one block
      part = 1;
      b.count *= n;
    } else if (part == 0) {
      b.outer *= n;
    } else {
      part = 2;
      b.inner *= n;
    }
  }
  *block = b;
  return true;
}

}  // namespace sb::optimized
