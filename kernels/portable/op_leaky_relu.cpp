// aten::leaky_relu.out(Tensor self, Scalar negative_slope=0.01, *, Tensor(a!) out)
#include "sb/kernel.h"
#include "util/unary.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::leaky_relu.out";

Error leaky_relu_out_impl(KernelContext& /*ctx*/, Args args) {
  const double slope = args[1]->scalar_as_double();
  return unary_op<kOp, kFloatHBF16>(*args[0]->as_tensor, *args[2]->as_tensor, [=](auto x) {
    using T = decltype(x);
    return x > T(0) ? x : static_cast<T>(static_cast<double>(x) * slope);
  });
}

}  // namespace

extern const KernelDef leaky_relu_out{kOp, "Ts|T", &leaky_relu_out_impl, {}, kElementwiseLayout};

}  // namespace sb::kernels
