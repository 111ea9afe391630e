// aten::split_with_sizes_copy.out(Tensor self, SymInt[] split_sizes, int dim=0, *, Tensor(a!)[] out)
#include "sb/kernel.h"
#include "util/shape.h"
#include "util/slice.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::split_with_sizes_copy.out";

Error split_copy_out_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& self = *args[0]->as_tensor;
  const Span<const int64_t> split = args[1]->as_int_list;
  const Span<Tensor* const> outs = args[3]->as_tensor_list;
  if (self.dim == 0) return Error::make(ErrorCode::kInvalidArgument, "%s: cannot split a 0-d tensor", kOp);
  int32_t dim = 0;
  Error err = normalize_dim(kOp, args[2]->as_int, self.dim, &dim);
  if (!err.ok()) return err;
  if (split.size() != outs.size()) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: %zu sizes for %zu outputs", kOp, split.size(), outs.size());
  }
  int64_t total = 0;
  for (int64_t s : split) {
    if (s < 0 || __builtin_add_overflow(total, s, &total)) {
      return Error::make(ErrorCode::kInvalidArgument, "%s: invalid split size %lld", kOp, static_cast<long long>(s));
    }
  }
  if (total != self.sizes[dim]) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: sizes sum to %lld, dim has %lld", kOp,
                       static_cast<long long>(total), static_cast<long long>(self.sizes[dim]));
  }
  int64_t sizes[kMaxDims];
  for (int32_t d = 0; d < self.dim; ++d) sizes[d] = self.sizes[d];
  // Validate every output before writing any.
  for (size_t i = 0; i < outs.size(); ++i) {
    sizes[dim] = split[i];
    if (!(err = resize_output(kOp, *outs[i], sizes, self.dim)).ok()) return err;
    if (!(err = check_dtype(kOp, "out", *outs[i], self.dtype)).ok()) return err;
  }
  int64_t start = 0;
  for (size_t i = 0; i < outs.size(); ++i) {
    copy_slice(self, dim, start, 1, *outs[i]);
    start += split[i];
  }
  return Error();
}

}  // namespace

extern const KernelDef split_with_sizes_copy_out{kOp, "TIi|L", &split_copy_out_impl, {}};

}  // namespace sb::kernels
