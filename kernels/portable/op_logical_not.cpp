// aten::logical_not.out(Tensor self, *, Tensor(a!) out) -- out is bool
#include "sb/kernel.h"
#include "util/dtype_switch.h"
#include "util/elementwise.h"
#include "util/promote.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::logical_not.out";

Error logical_not_out_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& self = *args[0]->as_tensor;
  Tensor& out = *args[1]->as_tensor;
  Error err = resize_output_like(kOp, out, self);
  if (!err.ok()) return err;
  // Any dtype in, any dtype out (0 or 1); NaN is true, so its negation is false.
  return map_unary_as<kOp, kRealHBBF16, kRealHBBF16, bool>(self, out, [](bool x) { return !x; });
}

}  // namespace

extern const KernelDef logical_not_out{kOp, "T|T", &logical_not_out_impl, {}, kElementwiseLayout};

}  // namespace sb::kernels
