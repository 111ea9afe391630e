// aten::diagonal_copy.out(Tensor self, int offset=0, int dim1=0, int dim2=1, *, Tensor(a!) out)
//
// The diagonal of the (dim1, dim2) planes becomes the last dim of out.
#include "sb/kernel.h"
#include "util/shape.h"
#include "util/strided.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::diagonal_copy.out";

Error diagonal_copy_out_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& self = *args[0]->as_tensor;
  const int64_t offset = args[1]->as_int;
  Tensor& out = *args[4]->as_tensor;
  if (self.dim < 2) return Error::make(ErrorCode::kInvalidArgument, "%s: self must have at least 2 dims", kOp);
  int32_t d1 = 0;
  int32_t d2 = 0;
  Error err = normalize_dim(kOp, args[2]->as_int, self.dim, &d1);
  if (!err.ok()) return err;
  if (!(err = normalize_dim(kOp, args[3]->as_int, self.dim, &d2)).ok()) return err;
  if (d1 == d2) return Error::make(ErrorCode::kInvalidArgument, "%s: dim1 and dim2 are the same dim %d", kOp, static_cast<int>(d1));
  const int64_t n1 = self.sizes[d1];
  const int64_t n2 = self.sizes[d2];
  // offset > 0 moves right (along dim2), offset < 0 down (along dim1); compared without negating offset.
  int64_t length = 0;
  if (offset >= 0) {
    length = offset >= n2 ? 0 : (n1 < n2 - offset ? n1 : n2 - offset);
  } else {
    length = offset <= -n1 ? 0 : (n1 + offset < n2 ? n1 + offset : n2);
  }
  const Layout in = layout_of(self);
  Layout from;
  int64_t sizes[kMaxDims];
  int32_t rank = 0;
  for (int32_t d = 0; d < self.dim; ++d) {
    if (d == d1 || d == d2) continue;
    sizes[rank] = self.sizes[d];
    from.strides[rank++] = in.strides[d];
  }
  sizes[rank] = length;
  from.strides[rank++] = in.strides[d1] + in.strides[d2];
  if (length > 0) from.offset = offset >= 0 ? offset * in.strides[d2] : -offset * in.strides[d1];
  return copy_view(kOp, self, from, sizes, rank, out);
}

}  // namespace

extern const KernelDef diagonal_copy_out{kOp, "Tiii|T", &diagonal_copy_out_impl, {}};

}  // namespace sb::kernels
