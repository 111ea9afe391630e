// aten::scalar_tensor.out(Scalar s, *, Tensor(a!) out)
#include "sb/kernel.h"
#include "util/fill.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::scalar_tensor.out";

Error scalar_tensor_out_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& out = *args[1]->as_tensor;
  if (out.numel() != 1) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: out must hold one element, has %lld", kOp,
                       static_cast<long long>(out.numel()));
  }
  return fill<kOp>(out, *args[0]);
}

}  // namespace

extern const KernelDef scalar_tensor_out{kOp, "s|T", &scalar_tensor_out_impl, {}};

}  // namespace sb::kernels
