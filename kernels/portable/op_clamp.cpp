// aten::clamp.out(Tensor self, Scalar? min=None, Scalar? max=None, *, Tensor(a!) out)
#include <cmath>

#include "sb/kernel.h"
#include "util/dtype_switch.h"
#include "util/elementwise.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::clamp.out";

Error clamp_out_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& self = *args[0]->as_tensor;
  const Value& min = *args[1];
  const Value& max = *args[2];
  Tensor& out = *args[3]->as_tensor;

  Error err = resize_output_like(kOp, out, self);
  if (!err.ok()) return err;
  if (!(err = check_dtype(kOp, "self", self, out.dtype)).ok()) return err;

  return switch_dtype<kOp, kRealTypes>(out.dtype, [&](auto zero) {
    using T = decltype(zero);
    const bool has_min = !min.is_none();
    const bool has_max = !max.is_none();
    const double lo = has_min ? min.scalar_as_double() : 0.0;
    const double hi = has_max ? max.scalar_as_double() : 0.0;
    map_unary<T, T>(self, out, [=](T x) {
      // NaN passes through, as in ATen.
      double v = static_cast<double>(x);
      if (has_min && v < lo) v = lo;
      if (has_max && v > hi) v = hi;
      return static_cast<T>(v);
    });
    return Error();
  });
}

}  // namespace

extern const KernelDef clamp_out{kOp, "TSS|T", &clamp_out_impl, {}};

}  // namespace sb::kernels
