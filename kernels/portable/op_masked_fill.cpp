// aten::masked_fill.Scalar_out(Tensor self, Tensor mask, Scalar value, *, Tensor(a!) out)
//
// out = value where mask else self; mask (bool) broadcasts with self; value
// is converted to self's dtype (defined for every value, see promote.h).
#include "sb/kernel.h"
#include "util/arith.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::masked_fill.Scalar_out";

Error masked_fill_scalar_out_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& self = *args[0]->as_tensor;
  const Tensor& mask = *args[1]->as_tensor;
  const Value& value = *args[2];
  Tensor& out = *args[3]->as_tensor;
  Error err = check_dtype(kOp, "mask", mask, ScalarType::kBool);
  if (!err.ok() || !(err = check_dtype(kOp, "out", out, self.dtype)).ok()) return err;
  if (!(err = resize_to_broadcast(kOp, self, mask, out)).ok()) return err;
  return switch_dtype<kOp, kRealHBBF16>(self.dtype, [&](auto zero) {
    using T = decltype(zero);
    const T fill = scalar_to<T>(value);
    map_binary<T, bool, T>(self, mask, out, [=](T x, bool m) { return m ? fill : x; });
    return Error();
  });
}

}  // namespace

extern const KernelDef masked_fill_Scalar_out{kOp, "TTs|T", &masked_fill_scalar_out_impl, {}, kElementwiseLayout};

}  // namespace sb::kernels
