// aten::logical_not.out(Tensor self, *, Tensor(a!) out) -- out is bool
#include "sb/kernel.h"
#include "util/dtype_switch.h"
#include "util/elementwise.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::logical_not.out";

Error logical_not_out_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& self = *args[0]->as_tensor;
  Tensor& out = *args[1]->as_tensor;
  Error err = resize_output_like(kOp, out, self);
  if (!err.ok()) return err;
  if (!(err = check_dtype(kOp, "out", out, ScalarType::kBool)).ok()) return err;
  return switch_dtype<kOp, kRealAndBool>(self.dtype, [&](auto zero) {
    using T = decltype(zero);
    map_unary<T, bool>(self, out, [](T x) { return x == T(0); });
    return Error();
  });
}

}  // namespace

extern const KernelDef logical_not_out{kOp, "T|T", &logical_not_out_impl, {}};

}  // namespace sb::kernels
