// aten::slice_copy.Tensor_out(Tensor self, int dim=0, SymInt? start=None, SymInt? end=None, SymInt step=1, *,
//                             Tensor(a!) out)
//
// The portable kernel's slice resolution (util/slice.h), then a strided copy
// of rows (optimized/microkernels/copy_box.h).
#include "optimized/microkernels/copy_box.h"
#include "sb/kernel.h"
#include "util/shape.h"
#include "util/slice.h"

namespace sb::kernels {
extern const KernelDef slice_copy_Tensor_out;
}  // namespace sb::kernels

namespace sb::optimized {
namespace {

constexpr char kOp[] = "aten::slice_copy.Tensor_out";

Error opt_slice_copy_out_impl(KernelContext& ctx, Args args) {
  const Tensor& self = *args[0]->as_tensor;
  Tensor& out = *args[5]->as_tensor;
  if (out.dtype != self.dtype || out.data == self.data) return kernels::slice_copy_Tensor_out.fn(ctx, args);
  kernels::SliceSpec slice;
  Error err = kernels::resolve_slice(kOp, self, args[1]->as_int, *args[2], *args[3], args[4]->as_int, &slice);
  if (!err.ok()) return err;
  int64_t sizes[kMaxDims];
  int64_t from[kMaxDims];
  for (int32_t d = 0; d < self.dim; ++d) sizes[d] = self.sizes[d];
  row_major_strides(sizes, self.dim, from);
  const int64_t offset = slice.start * from[slice.dim];
  sizes[slice.dim] = slice.length;
  from[slice.dim] *= slice.step;
  if (!(err = kernels::resize_output(kOp, out, sizes, self.dim)).ok()) return err;
  const size_t elem = element_size(out.dtype);
  copy_to_contiguous(static_cast<const uint8_t*>(self.data) + offset * static_cast<int64_t>(elem), from, out.data,
                     sizes, self.dim, elem);
  return Error();
}

}  // namespace

extern const KernelDef opt_slice_copy_Tensor_out{kOp, "Tinni|T", &opt_slice_copy_out_impl, {}};

}  // namespace sb::optimized
