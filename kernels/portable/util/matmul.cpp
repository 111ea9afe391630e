#include "util/matmul.h"

namespace sb::kernels {

static bool overlaps(const Tensor& x, const Tensor& y) {
  const auto* x0 = static_cast<const uint8_t*>(x.data);
  const auto* y0 = static_cast<const uint8_t*>(y.data);
  return x.nbytes() != 0 && y.nbytes() != 0 && x0 < y0 + y.nbytes() && y0 < x0 + x.nbytes();
}

Error check_no_overlap(const char* op, const Tensor& out, const Tensor& a, const Tensor& b) {
  if (overlaps(out, a) || overlaps(out, b)) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: out overlaps an input", op);
  }
  return Error();
}

Error check_product(const char* op, const Tensor& a, const Tensor& b, const Tensor& out, const int64_t* out_sizes,
                    int32_t rank) {
  // The out tensor is the program's (never a const object): it takes the product's shape.
  Error err = resize_output(op, const_cast<Tensor&>(out), out_sizes, rank);
  if (!err.ok()) return err;
  if (!(err = check_dtype(op, "self", a, out.dtype)).ok()) return err;
  if (!(err = check_dtype(op, "mat2", b, out.dtype)).ok()) return err;
  return check_no_overlap(op, out, a, b);
}

}  // namespace sb::kernels
