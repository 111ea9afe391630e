// aten::repeat.out(Tensor self, SymInt[] repeats, *, Tensor(a!) out)
//
// Out dim i has size repeats[i] * self's (right-aligned) size. Viewing it as
// [repeats[0], size[0], repeats[1], size[1], ...] makes the repeat one strided
// copy that reads self with stride 0 along every repeats dim.
#include "sb/checked.h"
#include "sb/kernel.h"
#include "util/shape.h"
#include "util/strided.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::repeat.out";

Error repeat_out_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& self = *args[0]->as_tensor;
  const Span<const int64_t> repeats = args[1]->as_int_list;
  Tensor& out = *args[2]->as_tensor;
  const int32_t rank = static_cast<int32_t>(repeats.size());
  if (repeats.size() > static_cast<size_t>(kMaxDims) || rank < self.dim) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: %zu repeats for a tensor of %d dims", kOp, repeats.size(),
                       static_cast<int>(self.dim));
  }
  const Layout in = layout_of(self);
  int64_t sizes[kMaxDims];
  int64_t walk_sizes[kMaxWalkDims];
  Layout from;
  for (int32_t i = 0; i < rank; ++i) {
    const int32_t d = self.dim - rank + i;  // aligned from the right
    const int64_t size = d >= 0 ? self.sizes[d] : 1;
    if (repeats[i] < 0) return Error::make(ErrorCode::kInvalidArgument, "%s: negative repeat", kOp);
    const uint64_t total = sat_mul(static_cast<uint64_t>(repeats[i]), static_cast<uint64_t>(size));
    if (total > kMaxElements) return Error::make(ErrorCode::kInvalidArgument, "%s: out would be too large", kOp);
    sizes[i] = static_cast<int64_t>(total);
    walk_sizes[2 * i] = repeats[i];
    walk_sizes[2 * i + 1] = size;
    from.strides[2 * i] = 0;
    from.strides[2 * i + 1] = d >= 0 ? in.strides[d] : 0;
  }
  Error err = check_dtype(kOp, "out", out, self.dtype);
  if (!err.ok()) return err;
  if (!(err = resize_output(kOp, out, sizes, rank)).ok()) return err;
  walk_copy(self.data, from, out.data, contiguous_layout(walk_sizes, 2 * rank), walk_sizes, 2 * rank,
            element_size(self.dtype));
  return Error();
}

}  // namespace

extern const KernelDef repeat_out{kOp, "TI|T", &repeat_out_impl, {}};

}  // namespace sb::kernels
