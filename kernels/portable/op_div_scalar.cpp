// aten::div.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out)
#include "sb/kernel.h"
#include "util/unary.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::div.Scalar_out";

Error div_scalar_out_impl(KernelContext& /*ctx*/, Args args) {
  const double other = args[1]->scalar_as_double();
  return unary_op<kOp, kFloatTypes>(*args[0]->as_tensor, *args[2]->as_tensor, [other](auto x) { return x / other; });
}

}  // namespace

extern const KernelDef div_Scalar_out{kOp, "Ts|T", &div_scalar_out_impl, {}};

}  // namespace sb::kernels
