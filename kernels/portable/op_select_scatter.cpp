// aten::select_scatter.out(Tensor self, Tensor src, int dim, SymInt index, *, Tensor(a!) out)
#include "sb/kernel.h"
#include "util/view_scatter.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::select_scatter.out";

Error select_scatter_out_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& self = *args[0]->as_tensor;
  const Tensor& src = *args[1]->as_tensor;
  Tensor& out = *args[4]->as_tensor;
  if (self.dim == 0) return Error::make(ErrorCode::kInvalidArgument, "%s: cannot select from a 0-d tensor", kOp);
  int32_t dim = 0;
  Error err = normalize_dim(kOp, args[2]->as_int, self.dim, &dim);
  if (!err.ok()) return err;
  const int64_t size = self.sizes[dim];
  int64_t index = args[3]->as_int;
  if (index < -size || index >= size) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: index %lld is out of range for dim %d of size %lld", kOp,
                       static_cast<long long>(index), static_cast<int>(dim), static_cast<long long>(size));
  }
  if (index < 0) index += size;
  const Layout whole = layout_of(self);
  Layout view;
  int64_t sizes[kMaxDims];
  int32_t rank = 0;
  view.offset = index * whole.strides[dim];
  for (int32_t d = 0; d < self.dim; ++d) {
    if (d == dim) continue;
    view.strides[rank] = whole.strides[d];
    sizes[rank++] = self.sizes[d];
  }
  return scatter_into_view<kOp>(self, src, view, sizes, rank, out);
}

}  // namespace

extern const KernelDef select_scatter_out{kOp, "TTii|T", &select_scatter_out_impl, {}};

}  // namespace sb::kernels
