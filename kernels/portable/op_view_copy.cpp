// aten::view_copy.out(Tensor self, SymInt[] size, *, Tensor(a!) out)
#include "sb/kernel.h"
#include "util/copy.h"
#include "util/shape.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::view_copy.out";

Error view_copy_out_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& self = *args[0]->as_tensor;
  const Span<const int64_t> size = args[1]->as_int_list;
  Tensor& out = *args[2]->as_tensor;
  if (size.size() > static_cast<size_t>(kMaxDims)) return Error::make(ErrorCode::kInvalidArgument, "%s: too many dims", kOp);
  // Resolve the one allowed -1 from the element count.
  int64_t sizes[kMaxDims];
  int64_t known = 1;
  int32_t inferred = -1;
  for (size_t i = 0; i < size.size(); ++i) {
    sizes[i] = size[i];
    if (size[i] == -1 && inferred < 0) {
      inferred = static_cast<int32_t>(i);
    } else if (size[i] < 0) {
      return Error::make(ErrorCode::kInvalidArgument, "%s: invalid size %lld", kOp, static_cast<long long>(size[i]));
    } else if (__builtin_mul_overflow(known, size[i], &known)) {
      return Error::make(ErrorCode::kInvalidArgument, "%s: size overflows", kOp);
    }
  }
  if (inferred >= 0) sizes[inferred] = known == 0 ? 0 : self.numel() / known;
  Error err = resize_output(kOp, out, sizes, static_cast<int32_t>(size.size()));
  if (!err.ok()) return err;
  return copy_same_numel(kOp, self, out);
}

}  // namespace

extern const KernelDef view_copy_out{kOp, "TI|T", &view_copy_out_impl, {}};

}  // namespace sb::kernels
