// aten::select_copy.int_out(Tensor self, int dim, SymInt index, *, Tensor(a!) out)
#include "sb/kernel.h"
#include "util/copy.h"
#include "util/shape.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::select_copy.int_out";

Error select_copy_out_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& self = *args[0]->as_tensor;
  Tensor& out = *args[3]->as_tensor;
  if (self.dim == 0) return Error::make(ErrorCode::kInvalidArgument, "%s: cannot select from a 0-d tensor", kOp);
  int32_t dim = 0;
  Error err = normalize_dim(kOp, args[1]->as_int, self.dim, &dim);
  if (!err.ok()) return err;
  int64_t index = args[2]->as_int;
  if (index < -self.sizes[dim] || index >= self.sizes[dim]) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: index %lld out of range for size %lld", kOp,
                       static_cast<long long>(index), static_cast<long long>(self.sizes[dim]));
  }
  if (index < 0) index += self.sizes[dim];
  int64_t strides[kMaxDims];
  contiguous_strides(self, strides);
  int64_t sizes[kMaxDims];
  int64_t src_strides[kMaxDims];
  int32_t rank = 0;
  for (int32_t d = 0; d < self.dim; ++d) {
    if (d == dim) continue;
    sizes[rank] = self.sizes[d];
    src_strides[rank++] = strides[d];
  }
  if (!(err = resize_output(kOp, out, sizes, rank)).ok()) return err;
  if (!(err = check_dtype(kOp, "self", self, out.dtype)).ok()) return err;
  strided_copy(self.data, index * strides[dim], src_strides, out.data, sizes, rank, element_size(out.dtype));
  return Error();
}

}  // namespace

extern const KernelDef select_copy_int_out{kOp, "Tii|T", &select_copy_out_impl, {}};

}  // namespace sb::kernels
