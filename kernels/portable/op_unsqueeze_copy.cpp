// aten::unsqueeze_copy.out(Tensor self, int dim, *, Tensor(a!) out)
#include "sb/kernel.h"
#include "util/copy.h"
#include "util/shape.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::unsqueeze_copy.out";

Error unsqueeze_copy_out_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& self = *args[0]->as_tensor;
  Tensor& out = *args[2]->as_tensor;
  if (self.dim >= kMaxDims) return Error::make(ErrorCode::kInvalidArgument, "%s: too many dims", kOp);
  int32_t dim = 0;
  // The new dim may be one past the end.
  Error err = normalize_dim(kOp, args[1]->as_int, self.dim + 1, &dim);
  if (!err.ok()) return err;
  int64_t sizes[kMaxDims];
  for (int32_t d = 0, s = 0; d <= self.dim; ++d) sizes[d] = d == dim ? 1 : self.sizes[s++];
  if (!(err = resize_output(kOp, out, sizes, self.dim + 1)).ok()) return err;
  return copy_same_numel(kOp, self, out);
}

}  // namespace

extern const KernelDef unsqueeze_copy_out{kOp, "Ti|T", &unsqueeze_copy_out_impl, {}};

}  // namespace sb::kernels
