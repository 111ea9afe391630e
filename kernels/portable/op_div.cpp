// aten::div.out(Tensor self, Tensor other, *, Tensor(a!) out) -- true division
//
// Integer and bool operands divide as Float; out is any floating dtype.
// ComplexFloat and ComplexDouble divide (ExecuTorch's ET_SWITCH_COMPLEX_TYPES:
// no ComplexHalf) when self, other and out share the dtype; ExecuTorch reads
// mixed complex/real operands as the common complex type without converting
// them, so that mix is refused here rather than computed.
#include "sb/kernel.h"
#include "util/binary.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::div.out";

// ExecuTorch's rule: two floating dtypes promote, one floating dtype wins, else Float.
ScalarType division_type(ScalarType a, ScalarType b) {
  if (is_floating_type(a) && is_floating_type(b)) return promote_types(a, b);
  if (is_floating_type(a)) return a;
  return is_floating_type(b) ? b : ScalarType::kFloat;
}

Error div_out_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& a = *args[0]->as_tensor;
  const Tensor& b = *args[1]->as_tensor;
  const Tensor& out = *args[2]->as_tensor;
  Error result;
  const bool complex = complex_binary<kOp, kComplexFloatType | kComplexDoubleType>(a, b, out, &result, [&](auto zero) {
    using C = decltype(zero);
    map_binary<C, C, C>(a, b, out, [](C x, C y) { return ComplexArith<C>::div(x, y); });
    return Error();
  });
  if (complex) return result;
  Error err = check_broadcast_out(kOp, a, b, out);
  if (!err.ok()) return err;
  return switch_compute_dtype<kOp, kFloatTypes>(compute_type(division_type(a.dtype, b.dtype)), [&](auto zero) {
    using C = decltype(zero);
    return map_binary_as<kOp, kRealHBBF16, kFloatHBF16, C>(a, b, out, [](C x, C y) { return x / y; });
  });
}

}  // namespace

extern const KernelDef div_out{kOp, "TT|T", &div_out_impl, {}, kElementwiseLayout};

}  // namespace sb::kernels
