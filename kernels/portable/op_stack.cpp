// aten::stack.out(Tensor[] tensors, int dim=0, *, Tensor(a!) out)
//
// Out is [..., len(tensors), ...] with the new dim at `dim`; input i fills
// index i of it: a strided copy into out viewed as [outer, len, inner].
#include "sb/kernel.h"
#include "util/shape.h"
#include "util/strided.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::stack.out";

Error stack_out_impl(KernelContext& /*ctx*/, Args args) {
  const Span<Tensor* const> tensors = args[0]->as_tensor_list;
  Tensor& out = *args[2]->as_tensor;
  if (tensors.size() == 0) return Error::make(ErrorCode::kInvalidArgument, "%s: expects a non-empty list", kOp);
  const Tensor& first = *tensors[0];
  if (first.dim >= kMaxDims) return Error::make(ErrorCode::kInvalidArgument, "%s: out would have too many dims", kOp);
  int32_t dim = 0;
  Error err = normalize_dim(kOp, args[1]->as_int, first.dim + 1, &dim);
  if (!err.ok()) return err;
  for (const Tensor* t : tensors) {
    if (!(err = check_same_shape(kOp, "input", *t, first)).ok()) return err;
    if (!(err = check_dtype(kOp, "input", *t, out.dtype)).ok()) return err;
  }
  int64_t sizes[kMaxDims];
  for (int32_t d = 0, k = 0; d <= first.dim; ++d) {
    sizes[d] = d == dim ? static_cast<int64_t>(tensors.size()) : first.sizes[k++];
  }
  if (!(err = resize_output(kOp, out, sizes, first.dim + 1)).ok()) return err;
  const int64_t outer = size_product(first, 0, dim);
  const int64_t inner = size_product(first, dim, first.dim);
  const int64_t count = static_cast<int64_t>(tensors.size());
  const int64_t box[2] = {outer, inner};
  Layout from;
  from.strides[0] = inner;
  from.strides[1] = 1;
  Layout to;
  to.strides[0] = count * inner;  // <= out's numel, checked by resize_output
  to.strides[1] = 1;
  for (int64_t i = 0; i < count; ++i) {
    to.offset = i * inner;
    walk_copy(tensors[i]->data, from, out.data, to, box, 2, element_size(out.dtype));
  }
  return Error();
}

}  // namespace

extern const KernelDef stack_out{kOp, "Li|T", &stack_out_impl, {}};

}  // namespace sb::kernels
