// optimized/operators/softmax_op.h: the portable kernel's checks, then the shape around the dim.
#include "optimized/operators/softmax_op.h"

#include "util/shape.h"

namespace sb::optimized {

// args: (self, dim, half_to_float, out). The portable kernel's checks, in its
// order; false sends the call to the portable kernel (other dtypes, a 0-d or
// empty self, half_to_float, or any failed check, which it then reports).
bool prepare_softmax_f32(const char* op, Args args, SoftmaxShape* shape) {
  const Tensor& self = *args[0]->as_tensor;
  Tensor& out = *args[3]->as_tensor;
  if (self.dtype != ScalarType::kFloat || out.dtype != ScalarType::kFloat || self.dim == 0 || args[2]->as_bool) {
    return false;
  }
  // normalize_dim's rule, without its Error values on the way.
  const int64_t d = args[1]->as_int;
  if (d < -self.dim || d >= self.dim) return false;
  const int32_t dim = static_cast<int32_t>(d < 0 ? d + self.dim : d);
  if (!same_shape(self, out) && !kernels::resize_output_like(op, out, self).ok()) return false;
  shape->outer = kernels::size_product(self, 0, dim);
  shape->n = self.sizes[dim];
  shape->inner = kernels::size_product(self, dim + 1, self.dim);
  return shape->n > 0;
}

}  // namespace sb::optimized
