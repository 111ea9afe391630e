// aten::tril.out(Tensor self, int diagonal=0, *, Tensor(a!) out)
//
// Keeps element (i, j) of every matrix (the last two dims) where
// j - i <= diagonal; the rest is zero (all-zero bytes in every dtype).
#include <cstring>

#include "sb/kernel.h"
#include "util/shape.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::tril.out";

Error tril_out_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& self = *args[0]->as_tensor;
  int64_t diagonal = args[1]->as_int;
  Tensor& out = *args[2]->as_tensor;
  if (self.dim < 2) return Error::make(ErrorCode::kInvalidArgument, "%s: self must have at least 2 dims", kOp);
  Error err = check_dtype(kOp, "out", out, self.dtype);
  if (!err.ok()) return err;
  if (!(err = resize_output_like(kOp, out, self)).ok()) return err;
  if (self.numel() == 0) return Error();
  const int64_t rows = self.sizes[self.dim - 2];
  const int64_t cols = self.sizes[self.dim - 1];
  // Clamp so that i + diagonal + 1 cannot overflow.
  if (diagonal > cols) diagonal = cols;
  if (diagonal < -rows - 1) diagonal = -rows - 1;
  const size_t elem = element_size(self.dtype);
  const int64_t matrices = size_product(self, 0, self.dim - 2);
  const auto* in = static_cast<const uint8_t*>(self.data);
  auto* o = static_cast<uint8_t*>(out.data);
  const size_t row_bytes = static_cast<size_t>(cols) * elem;
  for (int64_t m = 0; m < matrices; ++m) {
    for (int64_t i = 0; i < rows; ++i) {
      int64_t keep = i + diagonal + 1;
      keep = keep < 0 ? 0 : keep > cols ? cols : keep;
      const size_t at = static_cast<size_t>(m * rows + i) * row_bytes;
      const size_t kept = static_cast<size_t>(keep) * elem;
      if (o + at != in + at) memcpy(o + at, in + at, kept);
      memset(o + at + kept, 0, row_bytes - kept);
    }
  }
  return Error();
}

}  // namespace

extern const KernelDef tril_out{kOp, "Ti|T", &tril_out_impl, {}};

}  // namespace sb::kernels
