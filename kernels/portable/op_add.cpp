// aten::add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out)
//
// out = self + alpha * other in the promoted dtype's compute type: integer
// sums wrap, bools "or"; alpha casts to the result's dtype (a bool result
// also takes an integer alpha). Complex operands (one complex dtype for self,
// other and out) add as util/complex.h does, alpha a complex of zero
// imaginary part.
#include "sb/kernel.h"
#include "util/arith.h"
#include "util/arith_ops.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::add.out";

Error add_out_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& self = *args[0]->as_tensor;
  const Tensor& other = *args[1]->as_tensor;
  const Value& alpha = *args[2];
  Tensor& out = *args[3]->as_tensor;
  const auto add_scaled = [](auto x, auto y, auto k) { return arith::add(x, arith::mul(k, y)); };
  Error result;
  if (arith_complex_alpha<kOp, kComplexHTypes>(self, other, alpha, out, &result, add_scaled)) return result;
  using Rule = ArithRule<kRealB, kRealHBBF16, kRealHBBF16, kComputeAsSelected>;
  return arith_tensor_alpha<kOp, Rule>(self, other, alpha, out, add_scaled);
}

}  // namespace

extern const KernelDef add_out{kOp, "TTs|T", &add_out_impl, {}, kElementwiseLayout};

}  // namespace sb::kernels
