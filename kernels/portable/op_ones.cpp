// aten::ones.out(SymInt[] size, *, Tensor(a!) out)
#include "sb/kernel.h"
#include "util/fill.h"
#include "util/shape.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::ones.out";

Error ones_out_impl(KernelContext& /*ctx*/, Args args) {
  const Span<const int64_t> size = args[0]->as_int_list;
  Tensor& out = *args[1]->as_tensor;
  if (size.size() > static_cast<size_t>(kMaxDims)) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: size has too many dims", kOp);
  }
  Error err = resize_output(kOp, out, size.data(), static_cast<int32_t>(size.size()));
  if (!err.ok()) return err;
  return fill<kOp>(out, Value::from_int(1));
}

}  // namespace

extern const KernelDef ones_out{kOp, "I|T", &ones_out_impl, {}};

}  // namespace sb::kernels
