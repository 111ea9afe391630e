// aten::slice_scatter.out(Tensor self, Tensor src, int dim=0, SymInt? start=None, SymInt? end=None, SymInt step=1,
//                         *, Tensor(a!) out)
#include "sb/kernel.h"
#include "util/slice.h"
#include "util/view_scatter.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::slice_scatter.out";

Error slice_scatter_out_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& self = *args[0]->as_tensor;
  const Tensor& src = *args[1]->as_tensor;
  Tensor& out = *args[6]->as_tensor;
  SliceSpec slice;
  Error err = resolve_slice(kOp, self, args[2]->as_int, *args[3], *args[4], args[5]->as_int, &slice);
  if (!err.ok()) return err;
  Layout view = layout_of(self);
  int64_t sizes[kMaxDims];
  for (int32_t d = 0; d < self.dim; ++d) sizes[d] = self.sizes[d];
  sizes[slice.dim] = slice.length;
  view.offset = slice.start * view.strides[slice.dim];
  if (slice.length > 1) view.strides[slice.dim] *= slice.step;  // step < size then: no overflow
  return scatter_into_view<kOp>(self, src, view, sizes, self.dim, out);
}

}  // namespace

extern const KernelDef slice_scatter_out{kOp, "TTinni|T", &slice_scatter_out_impl, {}};

}  // namespace sb::kernels
