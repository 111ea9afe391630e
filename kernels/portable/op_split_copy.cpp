// aten::split_copy.Tensor_out(Tensor self, SymInt split_size, int dim=0, *, Tensor(a!)[] out) -> ()
//
// Chunks of split_size along dim, the last one shorter when the size does
// not divide; a size-0 dim gives one empty chunk.
#include "sb/kernel.h"
#include "util/shape.h"
#include "util/slice.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::split_copy.Tensor_out";

Error split_copy_out_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& self = *args[0]->as_tensor;
  const int64_t split = args[1]->as_int;
  const Span<Tensor* const> outs = args[3]->as_tensor_list;
  if (self.dim == 0) return Error::make(ErrorCode::kInvalidArgument, "%s: cannot split a 0-d tensor", kOp);
  int32_t dim = 0;
  Error err = normalize_dim(kOp, args[2]->as_int, self.dim, &dim);
  if (!err.ok()) return err;
  const int64_t n = self.sizes[dim];
  if (split < 0 || (split == 0 && n != 0)) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: split_size %lld cannot split size %lld", kOp,
                       static_cast<long long>(split), static_cast<long long>(n));
  }
  const int64_t chunks = split >= n ? 1 : n / split + (n % split != 0);
  if (static_cast<int64_t>(outs.size()) != chunks) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: %zu outputs for %lld chunks", kOp, outs.size(),
                       static_cast<long long>(chunks));
  }
  int64_t sizes[kMaxDims];
  for (int32_t d = 0; d < self.dim; ++d) sizes[d] = self.sizes[d];
  // Validate every output before writing any.
  for (int64_t i = 0; i < chunks; ++i) {
    const int64_t start = i * split;  // < n
    sizes[dim] = n - start < split ? n - start : split;
    if (split >= n) sizes[dim] = n;
    if (!(err = check_dtype(kOp, "out", *outs[i], self.dtype)).ok()) return err;
    if (!(err = resize_output(kOp, *outs[i], sizes, self.dim)).ok()) return err;
  }
  for (int64_t i = 0; i < chunks; ++i) copy_slice(self, dim, i * split, 1, *outs[i]);
  return Error();
}

}  // namespace

extern const KernelDef split_copy_Tensor_out{kOp, "Tii|L", &split_copy_out_impl, {}};

}  // namespace sb::kernels
