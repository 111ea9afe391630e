// aten::relu.out(Tensor self, *, Tensor(a!) out)
#include <cmath>

#include "sb/kernel.h"
#include "util/unary.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::relu.out";

Error relu_out_impl(KernelContext& /*ctx*/, Args args) {
  return unary_op<kOp, kRealHBF16>(*args[0]->as_tensor, *args[1]->as_tensor, [](auto x) {
    using T = decltype(x);
    return x < T(0) ? T(0) : x;  // NaN passes through
  });
}

}  // namespace

extern const KernelDef relu_out{kOp, "T|T", &relu_out_impl, {}, kElementwiseLayout};

}  // namespace sb::kernels
