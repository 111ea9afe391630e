// aten::elu.out(Tensor self, Scalar alpha=1, Scalar scale=1, Scalar input_scale=1, *, Tensor(a!) out)
#include <cmath>

#include "sb/kernel.h"
#include "util/unary.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::elu.out";

Error elu_out_impl(KernelContext& /*ctx*/, Args args) {
  const double alpha = args[1]->scalar_as_double();
  const double scale = args[2]->scalar_as_double();
  const double input_scale = args[3]->scalar_as_double();
  return unary_op<kOp, kFloatHBF16>(*args[0]->as_tensor, *args[4]->as_tensor, [=](auto x) {
    using T = decltype(x);
    const double v = x > T(0) ? static_cast<double>(x) : alpha * std::expm1(static_cast<double>(x) * input_scale);
    return static_cast<T>(v * scale);
  });
}

}  // namespace

extern const KernelDef elu_out{kOp, "Tsss|T", &elu_out_impl, {}, kElementwiseLayout};

}  // namespace sb::kernels
