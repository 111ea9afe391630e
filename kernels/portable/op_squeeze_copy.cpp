// aten::squeeze_copy.dims_out(Tensor self, int[] dim, *, Tensor(a!) out)
#include "sb/kernel.h"
#include "util/copy.h"
#include "util/shape.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::squeeze_copy.dims_out";

Error squeeze_copy_out_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& self = *args[0]->as_tensor;
  Tensor& out = *args[2]->as_tensor;
  bool drop[kMaxDims] = {};
  for (int64_t d : args[1]->as_int_list) {
    int32_t nd = 0;
    Error err = normalize_dim(kOp, d, self.dim, &nd);
    if (!err.ok()) return err;
    if (self.dim > 0 && self.sizes[nd] == 1) drop[nd] = true;  // dims of other sizes stay, as in ATen
  }
  int64_t sizes[kMaxDims];
  int32_t rank = 0;
  for (int32_t d = 0; d < self.dim; ++d) {
    if (!drop[d]) sizes[rank++] = self.sizes[d];
  }
  Error err = resize_output(kOp, out, sizes, rank);
  if (!err.ok()) return err;
  return copy_same_numel(kOp, self, out);
}

}  // namespace

extern const KernelDef squeeze_copy_dims_out{kOp, "TI|T", &squeeze_copy_out_impl, {}};

}  // namespace sb::kernels
