// aten::mul.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out)
#include "sb/kernel.h"
#include "util/unary.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::mul.Scalar_out";

Error mul_scalar_out_impl(KernelContext& /*ctx*/, Args args) {
  const double other = args[1]->scalar_as_double();
  return unary_op<kOp, kRealTypes>(*args[0]->as_tensor, *args[2]->as_tensor, [other](auto x) { return x * other; });
}

}  // namespace

extern const KernelDef mul_Scalar_out{kOp, "Ts|T", &mul_scalar_out_impl, {}};

}  // namespace sb::kernels
