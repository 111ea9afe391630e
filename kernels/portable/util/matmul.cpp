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

}  // namespace sb::kernels
