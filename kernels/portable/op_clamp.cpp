// aten::clamp.out(Tensor self, Scalar? min=None, Scalar? max=None, *, Tensor(a!) out)
#include <cmath>

#include "sb/kernel.h"
#include "util/dtype_switch.h"
#include "util/elementwise.h"
#include "util/promote.h"

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
  const bool has_min = !min.is_none();
  const bool has_max = !max.is_none();
  if (!has_min && !has_max) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: at least one of min and max must be given", kOp);
  }
  // self's dtype promoted with the bounds' (a floating bound makes an integer tensor Float) is out's.
  ScalarType common = self.dtype;
  if (has_min) common = promote_with_scalar(common, min);
  if (has_max) common = promote_with_scalar(common, max);
  if (!(err = check_dtype(kOp, "out", out, common)).ok()) return err;
  if ((has_min && !scalar_fits(min, out.dtype)) || (has_max && !scalar_fits(max, out.dtype))) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: a bound is out of range for %s", kOp,
                       scalar_type_name(out.dtype));
  }

  return switch_compute_dtype<kOp, kRealB>(compute_type(common), [&](auto zero) {
    using C = decltype(zero);
    const C lo = has_min ? scalar_to<C>(min) : C{};
    const C hi = has_max ? scalar_to<C>(max) : C{};
    // A NaN in the tensor or in a bound propagates, as in ATen.
    return map_unary_as<kOp, kRealHBBF16, kRealHBBF16, C>(self, out, [=](C x) {
      C v = x;
      if (has_min && !(v != v)) v = (lo != lo || v < lo) ? lo : v;
      if (has_max && !(v != v)) v = (hi != hi || v > hi) ? hi : v;
      return v;
    });
  });
}

}  // namespace

extern const KernelDef clamp_out{kOp, "TSS|T", &clamp_out_impl, {}, kElementwiseLayout};

}  // namespace sb::kernels
