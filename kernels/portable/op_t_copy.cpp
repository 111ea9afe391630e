// aten::t_copy.out(Tensor self, *, Tensor(a!) out)
//
// Transposes a 2-D tensor; 0-D and 1-D tensors are copied as they are.
#include "sb/kernel.h"
#include "util/shape.h"
#include "util/strided.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::t_copy.out";

Error t_copy_out_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& self = *args[0]->as_tensor;
  Tensor& out = *args[1]->as_tensor;
  if (self.dim > 2) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: expects a tensor of at most 2 dims, got %d", kOp, static_cast<int>(self.dim));
  }
  Layout from = layout_of(self);
  int64_t sizes[2] = {};
  for (int32_t d = 0; d < self.dim; ++d) sizes[d] = self.sizes[self.dim - 1 - d];
  if (self.dim == 2) {
    from.strides[0] = 1;
    from.strides[1] = self.sizes[1];
  }
  return copy_view(kOp, self, from, sizes, self.dim, out);
}

}  // namespace

extern const KernelDef t_copy_out{kOp, "T|T", &t_copy_out_impl, {}};

}  // namespace sb::kernels
