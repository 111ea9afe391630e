// aten::mul.out(Tensor self, Tensor other, *, Tensor(a!) out)
//
// In the promoted dtype's compute type; integer products wrap, bools "and".
// Complex operands (one complex dtype for self, other and out) multiply as
// util/complex.h does.
#include "sb/kernel.h"
#include "util/arith.h"
#include "util/arith_ops.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::mul.out";

Error mul_out_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& a = *args[0]->as_tensor;
  const Tensor& b = *args[1]->as_tensor;
  Tensor& out = *args[2]->as_tensor;
  const auto multiply = [](auto x, auto y) { return arith::mul(x, y); };
  Error result;
  if (arith_complex<kOp, kComplexHTypes>(a, b, out, &result, multiply)) return result;
  return arith_tensor<kOp, ArithRule<kRealB, kRealHBBF16, kRealHBBF16, kComputeAsSelected>>(a, b, out, multiply);
}

}  // namespace

extern const KernelDef mul_out{kOp, "TT|T", &mul_out_impl, {}, kElementwiseLayout};

}  // namespace sb::kernels
