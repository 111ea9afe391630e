// aten::permute_copy.out(Tensor self, int[] dims, *, Tensor(a!) out)
#include "sb/kernel.h"
#include "util/copy.h"
#include "util/shape.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::permute_copy.out";

Error permute_copy_out_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& self = *args[0]->as_tensor;
  const Span<const int64_t> dims = args[1]->as_int_list;
  Tensor& out = *args[2]->as_tensor;
  if (static_cast<int32_t>(dims.size()) != self.dim) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: dims has %zu entries for rank %d", kOp, dims.size(), static_cast<int>(self.dim));
  }
  int64_t strides[kMaxDims];
  contiguous_strides(self, strides);
  int64_t sizes[kMaxDims];
  int64_t src_strides[kMaxDims];
  bool seen[kMaxDims] = {};
  for (int32_t i = 0; i < self.dim; ++i) {
    int32_t d = 0;
    Error err = normalize_dim(kOp, dims[i], self.dim, &d);
    if (!err.ok()) return err;
    if (seen[d]) return Error::make(ErrorCode::kInvalidArgument, "%s: dims is not a permutation", kOp);
    seen[d] = true;
    sizes[i] = self.sizes[d];
    src_strides[i] = strides[d];
  }
  Error err = resize_output(kOp, out, sizes, self.dim);
  if (!err.ok()) return err;
  if (!(err = check_dtype(kOp, "self", self, out.dtype)).ok()) return err;
  strided_copy(self.data, 0, src_strides, out.data, sizes, self.dim, element_size(out.dtype));
  return Error();
}

}  // namespace

extern const KernelDef permute_copy_out{kOp, "TI|T", &permute_copy_out_impl, {}};

}  // namespace sb::kernels
