// aten::add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out)
#include "sb/kernel.h"
#include "util/dtype_switch.h"
#include "util/elementwise.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::add.out";

Error add_out_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& self = *args[0]->as_tensor;
  const Tensor& other = *args[1]->as_tensor;
  const Value& alpha = *args[2];
  Tensor& out = *args[3]->as_tensor;

  Error err = check_broadcast_out(kOp, self, other, out);
  if (!err.ok()) return err;
  if (!(err = check_dtype(kOp, "self", self, out.dtype)).ok()) return err;
  if (!(err = check_dtype(kOp, "other", other, out.dtype)).ok()) return err;

  return switch_dtype<kOp, kRealTypes>(out.dtype, [&](auto zero) {
    using T = decltype(zero);
    const T a = static_cast<T>(alpha.scalar_as_double());
    map_binary<T, T, T>(self, other, out, [a](T x, T y) { return x + a * y; });
    return Error();
  });
}

}  // namespace

extern const KernelDef add_out{kOp, "TTsT", &add_out_impl, {}};

}  // namespace sb::kernels
