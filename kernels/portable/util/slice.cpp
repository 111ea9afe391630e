#include "util/slice.h"

#include "util/copy.h"
#include "util/shape.h"

namespace sb::kernels {
namespace {

// Python slicing: negative bounds count from the end, then clamp to [0, size].
int64_t clamp_bound(int64_t v, int64_t size) {
  if (v < 0) v += size;
  return v < 0 ? 0 : v > size ? size : v;
}

}  // namespace

Error resolve_slice(const char* op, const Tensor& self, int64_t dim, const Value& start, const Value& end,
                    int64_t step, SliceSpec* spec) {
  if (self.dim == 0) return Error::make(ErrorCode::kInvalidArgument, "%s: cannot slice a 0-d tensor", op);
  Error err = normalize_dim(op, dim, self.dim, &spec->dim);
  if (!err.ok()) return err;
  if (step < 1) return Error::make(ErrorCode::kInvalidArgument, "%s: step must be positive", op);
  const int64_t size = self.sizes[spec->dim];
  spec->start = start.is_none() ? 0 : clamp_bound(start.as_int, size);
  int64_t stop = end.is_none() ? size : clamp_bound(end.as_int, size);
  if (stop < spec->start) stop = spec->start;
  spec->step = step;
  spec->length = stop == spec->start ? 0 : (stop - spec->start - 1) / step + 1;  // no overflow for any step
  return Error();
}

void copy_slice(const Tensor& self, int32_t dim, int64_t start, int64_t step, const Tensor& out) {
  int64_t strides[kMaxDims];
  contiguous_strides(self, strides);
  const int64_t offset = start * strides[dim];
  strides[dim] *= step;
  strided_copy(self.data, offset, strides, out.data, out.sizes, out.dim, element_size(out.dtype));
}

}  // namespace sb::kernels
