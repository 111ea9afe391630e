// aten::slice_copy.Tensor_out(Tensor self, int dim=0, SymInt? start=None, SymInt? end=None, SymInt step=1, *,
//                             Tensor(a!) out)
#include "sb/kernel.h"
#include "util/shape.h"
#include "util/slice.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::slice_copy.Tensor_out";

Error slice_copy_out_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& self = *args[0]->as_tensor;
  Tensor& out = *args[5]->as_tensor;
  SliceSpec slice;
  Error err = resolve_slice(kOp, self, args[1]->as_int, *args[2], *args[3], args[4]->as_int, &slice);
  if (!err.ok()) return err;
  int64_t sizes[kMaxDims];
  for (int32_t d = 0; d < self.dim; ++d) sizes[d] = self.sizes[d];
  sizes[slice.dim] = slice.length;
  if (!(err = resize_output(kOp, out, sizes, self.dim)).ok()) return err;
  if (!(err = check_dtype(kOp, "self", self, out.dtype)).ok()) return err;
  copy_slice(self, slice.dim, slice.start, slice.step, out);
  return Error();
}

}  // namespace

extern const KernelDef slice_copy_Tensor_out{kOp, "Tinni|T", &slice_copy_out_impl, {}};

}  // namespace sb::kernels
