// aten::slice_scatter.out(Tensor self, Tensor src, int dim=0, SymInt? start=None, SymInt? end=None, SymInt step=1,
//                         *, Tensor(a!) out)
#include "sb/kernel.h"
#include "util/view_scatter.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::slice_scatter.out";

// Python slicing: negative bounds count from the end, then clamp to [0, size].
int64_t clamp_bound(int64_t v, int64_t size) {
  if (v < 0) v = v < -size ? 0 : v + size;
  return v > size ? size : v;
}

Error slice_scatter_out_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& self = *args[0]->as_tensor;
  const Tensor& src = *args[1]->as_tensor;
  Tensor& out = *args[6]->as_tensor;
  if (self.dim == 0) return Error::make(ErrorCode::kInvalidArgument, "%s: cannot slice a 0-d tensor", kOp);
  int32_t dim = 0;
  Error err = normalize_dim(kOp, args[2]->as_int, self.dim, &dim);
  if (!err.ok()) return err;
  const int64_t step = args[5]->as_int;
  if (step < 1) return Error::make(ErrorCode::kInvalidArgument, "%s: step must be positive", kOp);
  const int64_t size = self.sizes[dim];
  const int64_t start = args[3]->is_none() ? 0 : clamp_bound(args[3]->as_int, size);
  int64_t end = args[4]->is_none() ? size : clamp_bound(args[4]->as_int, size);
  if (end < start) end = start;
  Layout view = layout_of(self);
  int64_t sizes[kMaxDims];
  for (int32_t d = 0; d < self.dim; ++d) sizes[d] = self.sizes[d];
  sizes[dim] = end == start ? 0 : (end - start - 1) / step + 1;  // no overflow for any step
  view.offset = start * view.strides[dim];
  if (sizes[dim] > 1) view.strides[dim] *= step;  // step < size then: no overflow
  return scatter_into_view<kOp>(self, src, view, sizes, self.dim, out);
}

}  // namespace

extern const KernelDef slice_scatter_out{kOp, "TTinni|T", &slice_scatter_out_impl, {}};

}  // namespace sb::kernels
