// aten::mul.out(Tensor self, Tensor other, *, Tensor(a!) out)
//
// In the promoted dtype's compute type; integer products wrap, bools "and".
// Complex operands (one complex dtype for self, other and out) multiply as
// util/complex.h does.
#include "sb/kernel.h"
#include "util/binary.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::mul.out";

Error mul_out_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& a = *args[0]->as_tensor;
  const Tensor& b = *args[1]->as_tensor;
  const Tensor& out = *args[2]->as_tensor;
  Error result;
  const bool complex = complex_binary<kOp, kComplexHTypes>(a, b, out, &result, [&](auto zero) {
    using C = decltype(zero);
    map_binary<C, C, C>(a, b, out, [](C x, C y) { return binary_detail::mul(x, y); });
    return Error();
  });
  if (complex) return result;
  const ScalarType common = promote_types(a.dtype, b.dtype);
  Error err = check_can_cast(kOp, common, out);
  if (!err.ok() || !(err = check_broadcast_out(kOp, a, b, out)).ok()) return err;
  return switch_compute_dtype<kOp, kRealB>(compute_type(common), [&](auto zero) {
    using C = decltype(zero);
    return map_binary_as<kOp, kRealHBBF16, kRealHBBF16, C>(a, b, out,
                                                           [](C x, C y) { return binary_detail::mul(x, y); });
  });
}

}  // namespace

extern const KernelDef mul_out{kOp, "TT|T", &mul_out_impl, {}, kElementwiseLayout};

}  // namespace sb::kernels
