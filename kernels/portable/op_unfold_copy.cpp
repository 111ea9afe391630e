// aten::unfold_copy.out(Tensor self, int dimension, int size, int step, *, Tensor(a!) out)
//
// Windows of `size` elements every `step` along `dimension`: that dim becomes
// the window count and a last dim of `size` is appended.
#include "sb/kernel.h"
#include "util/shape.h"
#include "util/strided.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::unfold_copy.out";

Error unfold_copy_out_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& self = *args[0]->as_tensor;
  const int64_t size = args[2]->as_int;
  const int64_t step = args[3]->as_int;
  Tensor& out = *args[4]->as_tensor;
  int32_t dim = 0;
  Error err = normalize_dim(kOp, args[1]->as_int, self.dim, &dim);
  if (!err.ok()) return err;
  const int64_t extent = self.dim == 0 ? 1 : self.sizes[dim];
  if (size < 0 || size > extent) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: size %lld does not fit dim %d of size %lld", kOp,
                       static_cast<long long>(size), static_cast<int>(dim), static_cast<long long>(extent));
  }
  if (step <= 0) return Error::make(ErrorCode::kInvalidArgument, "%s: step must be positive", kOp);
  const Layout in = layout_of(self);
  Layout from;
  int64_t sizes[kMaxDims + 1];
  if (self.dim == 0) {  // ATen: a 0-d tensor unfolds to shape [size]
    sizes[0] = size;
    return copy_view(kOp, self, from, sizes, 1, out);
  }
  if (self.dim >= kMaxDims) return Error::make(ErrorCode::kInvalidArgument, "%s: out would have too many dims", kOp);
  const int64_t windows = (extent - size) / step + 1;
  for (int32_t d = 0; d < self.dim; ++d) {
    sizes[d] = self.sizes[d];
    from.strides[d] = in.strides[d];
  }
  sizes[dim] = windows;
  from.strides[dim] = windows > 1 ? in.strides[dim] * step : 0;  // step <= extent here, so no overflow
  sizes[self.dim] = size;
  from.strides[self.dim] = in.strides[dim];
  return copy_view(kOp, self, from, sizes, self.dim + 1, out);
}

}  // namespace

extern const KernelDef unfold_copy_out{kOp, "Tiii|T", &unfold_copy_out_impl, {}};

}  // namespace sb::kernels
