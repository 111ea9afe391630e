// aten::as_strided_copy.out(Tensor self, SymInt[] size, SymInt[] stride, SymInt? storage_offset=None, *,
//                           Tensor(a!) out)
//
// Reads self's (contiguous) storage through the given sizes, strides and
// offset. Like ExecuTorch, strides and the offset must be non-negative and
// every element read must lie inside self.
#include "sb/kernel.h"
#include "util/shape.h"
#include "util/strided.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::as_strided_copy.out";

Error as_strided_copy_out_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& self = *args[0]->as_tensor;
  const Span<const int64_t> size = args[1]->as_int_list;
  const Span<const int64_t> stride = args[2]->as_int_list;
  Tensor& out = *args[4]->as_tensor;
  if (size.size() != stride.size()) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: %zu sizes but %zu strides", kOp, size.size(), stride.size());
  }
  if (size.size() > static_cast<size_t>(kMaxDims)) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: size has too many dims", kOp);
  }
  const int32_t rank = static_cast<int32_t>(size.size());
  Layout from;
  from.offset = args[3]->is_none() ? 0 : args[3]->as_int;
  if (from.offset < 0) return Error::make(ErrorCode::kInvalidArgument, "%s: negative storage offset", kOp);
  for (int32_t d = 0; d < rank; ++d) {
    if (stride[d] < 0) return Error::make(ErrorCode::kInvalidArgument, "%s: negative stride", kOp);
    if (size[d] < 0) return Error::make(ErrorCode::kInvalidArgument, "%s: negative size", kOp);
    from.strides[d] = stride[d];
  }
  if (!layout_within(from, size.data(), rank, self.numel())) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: the view reads past self's %lld elements", kOp,
                       static_cast<long long>(self.numel()));
  }
  return copy_view(kOp, self, from, size.data(), rank, out);
}

}  // namespace

extern const KernelDef as_strided_copy_out{kOp, "TIIn|T", &as_strided_copy_out_impl, {}};

}  // namespace sb::kernels
