// aten::unbind_copy.int_out(Tensor self, int dim=0, *, Tensor(a!)[] out) -> ()
//
// out[i] is self.select(dim, i).
#include "sb/kernel.h"
#include "util/shape.h"
#include "util/strided.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::unbind_copy.int_out";

Error unbind_copy_out_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& self = *args[0]->as_tensor;
  const Span<Tensor* const> outs = args[2]->as_tensor_list;
  if (self.dim == 0) return Error::make(ErrorCode::kInvalidArgument, "%s: cannot unbind a 0-d tensor", kOp);
  int32_t dim = 0;
  Error err = normalize_dim(kOp, args[1]->as_int, self.dim, &dim);
  if (!err.ok()) return err;
  if (static_cast<int64_t>(outs.size()) != self.sizes[dim]) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: %zu outputs for dim %d of size %lld", kOp, outs.size(), static_cast<int>(dim),
                       static_cast<long long>(self.sizes[dim]));
  }
  const Layout in = layout_of(self);
  Layout from;
  int64_t sizes[kMaxDims];
  int32_t rank = 0;
  for (int32_t d = 0; d < self.dim; ++d) {
    if (d == dim) continue;
    sizes[rank] = self.sizes[d];
    from.strides[rank++] = in.strides[d];
  }
  // Validate every output before writing any.
  for (Tensor* o : outs) {
    if (!(err = check_dtype(kOp, "out", *o, self.dtype)).ok()) return err;
    if (!(err = resize_output(kOp, *o, sizes, rank)).ok()) return err;
  }
  for (size_t i = 0; i < outs.size(); ++i) {
    from.offset = static_cast<int64_t>(i) * in.strides[dim];
    if (!(err = copy_view(kOp, self, from, sizes, rank, *outs[i])).ok()) return err;
  }
  return Error();
}

}  // namespace

extern const KernelDef unbind_copy_int_out{kOp, "Ti|L", &unbind_copy_out_impl, {}};

}  // namespace sb::kernels
