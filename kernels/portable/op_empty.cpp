// aten::empty.out(SymInt[] size, *, MemoryFormat? memory_format=None, Tensor(a!) out)
//
// Only gives out its shape: the contents are unspecified, as in ATen.
#include "sb/kernel.h"
#include "util/shape.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::empty.out";

Error empty_out_impl(KernelContext& /*ctx*/, Args args) {
  const Span<const int64_t> size = args[0]->as_int_list;
  if (size.size() > static_cast<size_t>(kMaxDims)) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: size has too many dims", kOp);
  }
  return resize_output(kOp, *args[2]->as_tensor, size.data(), static_cast<int32_t>(size.size()));
}

}  // namespace

extern const KernelDef empty_out{kOp, "In|T", &empty_out_impl, {}};

}  // namespace sb::kernels
