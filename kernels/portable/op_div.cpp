// aten::div.out(Tensor self, Tensor other, *, Tensor(a!) out) -- true division
//
// Integer and bool operands divide as Float; out is any floating dtype.
// ComplexFloat and ComplexDouble divide (ExecuTorch's ET_SWITCH_COMPLEX_TYPES:
// no ComplexHalf) when self, other and out share the dtype; ExecuTorch reads
// mixed complex/real operands as the common complex type without converting
// them, so that mix is refused here rather than computed.
#include "sb/kernel.h"
#include "util/arith.h"
#include "util/arith_ops.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::div.out";

Error div_out_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& a = *args[0]->as_tensor;
  const Tensor& b = *args[1]->as_tensor;
  Tensor& out = *args[2]->as_tensor;
  const auto divide = [](auto x, auto y) { return arith::div(x, y); };
  Error result;
  if (arith_complex<kOp, kComplexFloatType | kComplexDoubleType>(a, b, out, &result, divide)) return result;
  // ExecuTorch's rule: two floating dtypes promote, one floating dtype wins, else Float.
  using Rule = ArithRule<kFloatTypes, kRealHBBF16, kFloatHBF16, kIntToFloat | kComputeAsSelected>;
  return arith_tensor<kOp, Rule>(a, b, out, divide);
}

}  // namespace

extern const KernelDef div_out{kOp, "TT|T", &div_out_impl, {}, kElementwiseLayout};

}  // namespace sb::kernels
