#include "util/slice.h"

#include "util/copy.h"
#include "util/shape.h"

namespace sb::kernels {

void copy_slice(const Tensor& self, int32_t dim, int64_t start, int64_t step, const Tensor& out) {
  int64_t strides[kMaxDims];
  contiguous_strides(self, strides);
  const int64_t offset = start * strides[dim];
  strides[dim] *= step;
  strided_copy(self.data, offset, strides, out.data, out.sizes, out.dim, element_size(out.dtype));
}

}  // namespace sb::kernels
