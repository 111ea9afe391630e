// aten::transpose_copy.int_out(Tensor self, int dim0, int dim1, *, Tensor(a!) out)
#include "sb/kernel.h"
#include "util/shape.h"
#include "util/strided.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::transpose_copy.int_out";

Error transpose_copy_out_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& self = *args[0]->as_tensor;
  Tensor& out = *args[3]->as_tensor;
  int32_t d0 = 0;
  int32_t d1 = 0;
  Error err = normalize_dim(kOp, args[1]->as_int, self.dim, &d0);
  if (!err.ok()) return err;
  if (!(err = normalize_dim(kOp, args[2]->as_int, self.dim, &d1)).ok()) return err;
  Layout from = layout_of(self);
  int64_t sizes[kMaxDims];
  for (int32_t d = 0; d < self.dim; ++d) sizes[d] = self.sizes[d];
  if (self.dim > 0) {
    const int64_t size = sizes[d0];
    sizes[d0] = sizes[d1];
    sizes[d1] = size;
    const int64_t stride = from.strides[d0];
    from.strides[d0] = from.strides[d1];
    from.strides[d1] = stride;
  }
  return copy_view(kOp, self, from, sizes, self.dim, out);
}

}  // namespace

extern const KernelDef transpose_copy_int_out{kOp, "Tii|T", &transpose_copy_out_impl, {}};

}  // namespace sb::kernels
