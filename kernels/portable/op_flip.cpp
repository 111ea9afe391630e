// aten::flip.out(Tensor self, int[] dims, *, Tensor(a!) out)
#include "sb/kernel.h"
#include "util/shape.h"
#include "util/strided.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::flip.out";

Error flip_out_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& self = *args[0]->as_tensor;
  Tensor& out = *args[2]->as_tensor;
  Layout from = layout_of(self);
  bool flipped[kMaxDims] = {};
  for (int64_t d : args[1]->as_int_list) {
    int32_t nd = 0;
    Error err = normalize_dim(kOp, d, self.dim, &nd);
    if (!err.ok()) return err;
    if (flipped[nd]) return Error::make(ErrorCode::kInvalidArgument, "%s: dim %d appears twice in dims", kOp, static_cast<int>(nd));
    flipped[nd] = true;
  }
  // A flipped dim is read from its last index backwards.
  for (int32_t d = 0; d < self.dim; ++d) {
    if (!flipped[d] || self.sizes[d] == 0) continue;
    from.offset += (self.sizes[d] - 1) * from.strides[d];
    from.strides[d] = -from.strides[d];
  }
  return copy_view(kOp, self, from, self.sizes, self.dim, out);
}

}  // namespace

extern const KernelDef flip_out{kOp, "TI|T", &flip_out_impl, {}};

}  // namespace sb::kernels
