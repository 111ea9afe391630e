// aten::sigmoid.out(Tensor self, *, Tensor(a!) out)
#include <cmath>

#include "sb/kernel.h"
#include "util/unary.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::sigmoid.out";

Error sigmoid_out_impl(KernelContext& /*ctx*/, Args args) {
  return unary_float_op<kOp>(*args[0]->as_tensor, *args[1]->as_tensor, [](auto x) {
    using T = decltype(x);
    return x >= T(0) ? T(1) / (T(1) + std::exp(-x)) : std::exp(x) / (T(1) + std::exp(x));
  });
}

}  // namespace

extern const KernelDef sigmoid_out{kOp, "T|T", &sigmoid_out_impl, {}, kElementwiseLayout};

}  // namespace sb::kernels
