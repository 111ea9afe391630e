// aten::squeeze_copy.dim_out(Tensor self, int dim, *, Tensor(a!) out)
//
// Drops `dim` when its size is 1; any other tensor is copied as it is.
#include "sb/kernel.h"
#include "util/copy.h"
#include "util/shape.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::squeeze_copy.dim_out";

Error squeeze_copy_dim_out_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& self = *args[0]->as_tensor;
  Tensor& out = *args[2]->as_tensor;
  int32_t dim = 0;
  Error err = normalize_dim(kOp, args[1]->as_int, self.dim, &dim);
  if (!err.ok()) return err;
  int64_t sizes[kMaxDims];
  int32_t rank = 0;
  for (int32_t d = 0; d < self.dim; ++d) {
    if (d != dim || self.sizes[d] != 1) sizes[rank++] = self.sizes[d];
  }
  if (!(err = check_dtype(kOp, "out", out, self.dtype)).ok()) return err;
  if (!(err = resize_output(kOp, out, sizes, rank)).ok()) return err;
  return copy_same_numel(kOp, self, out);
}

}  // namespace

extern const KernelDef squeeze_copy_dim_out{kOp, "Ti|T", &squeeze_copy_dim_out_impl, {}};

}  // namespace sb::kernels
