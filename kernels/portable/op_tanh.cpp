// aten::tanh.out(Tensor self, *, Tensor(a!) out)
#include <cmath>

#include "sb/kernel.h"
#include "util/unary.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::tanh.out";

Error tanh_out_impl(KernelContext& /*ctx*/, Args args) {
  return unary_float_op<kOp>(*args[0]->as_tensor, *args[1]->as_tensor, [](auto x) { return std::tanh(x); });
}

}  // namespace

extern const KernelDef tanh_out{kOp, "T|T", &tanh_out_impl, {}, kElementwiseLayout};

}  // namespace sb::kernels
