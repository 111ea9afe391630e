// aten::narrow_copy.out(Tensor self, int dim, SymInt start, SymInt length, *, Tensor(a!) out)
#include "sb/kernel.h"
#include "util/shape.h"
#include "util/slice.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::narrow_copy.out";

Error narrow_copy_out_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& self = *args[0]->as_tensor;
  const int64_t start = args[2]->as_int;
  const int64_t length = args[3]->as_int;
  Tensor& out = *args[4]->as_tensor;
  if (self.dim == 0) return Error::make(ErrorCode::kInvalidArgument, "%s: cannot narrow a 0-d tensor", kOp);
  int32_t dim = 0;
  Error err = normalize_dim(kOp, args[1]->as_int, self.dim, &dim);
  if (!err.ok()) return err;
  const int64_t n = self.sizes[dim];
  // ATen lets a negative start count from the end; ExecuTorch's kernel refuses it, and so does this one.
  if (start < 0 || start > n) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: start %lld out of range for size %lld", kOp,
                       static_cast<long long>(start), static_cast<long long>(n));
  }
  if (length < 0 || length > n - start) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: length %lld from %lld exceeds size %lld", kOp,
                       static_cast<long long>(length), static_cast<long long>(start), static_cast<long long>(n));
  }
  int64_t sizes[kMaxDims];
  for (int32_t d = 0; d < self.dim; ++d) sizes[d] = self.sizes[d];
  sizes[dim] = length;
  if (!(err = check_dtype(kOp, "out", out, self.dtype)).ok()) return err;
  if (!(err = resize_output(kOp, out, sizes, self.dim)).ok()) return err;
  copy_slice(self, dim, start, 1, out);
  return Error();
}

}  // namespace

extern const KernelDef narrow_copy_out{kOp, "Tiii|T", &narrow_copy_out_impl, {}};

}  // namespace sb::kernels
