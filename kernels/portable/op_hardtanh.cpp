// aten::hardtanh.out(Tensor self, Scalar min_val=-1, Scalar max_val=1, *, Tensor(a!) out)
//
// Composite: forwards to clamp through the dispatcher, as ATen does. Like
// ExecuTorch's kernel, out keeps self's dtype (no bool): bounds are cast to
// it, so a floating bound on an integer tensor is truncated, not promoted.
#include <cmath>

#include "sb/kernel.h"
#include "util/promote.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::hardtanh.out";
constexpr const char* kCalls[] = {"aten::clamp.out"};

// `bound` as an integer Value, for an integer tensor; fails when no integer holds it.
Error integer_bound(const Value& bound, Value* out) {
  if (bound.tag != Tag::kDouble) {
    *out = bound;
    return Error();
  }
  const double v = std::trunc(bound.as_double);
  if (!(v >= -9.223372036854775808e18 && v < 9.223372036854775808e18)) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: bound %g does not fit an integer tensor", kOp,
                       bound.as_double);
  }
  *out = Value::from_int(static_cast<int64_t>(v));
  return Error();
}

Error hardtanh_out_impl(KernelContext& ctx, Args args) {
  const ScalarType dtype = args[0]->as_tensor->dtype;
  if (dtype == ScalarType::kBool) return dtype_not_supported(kOp, dtype);
  Value lo = *args[1];
  Value hi = *args[2];
  if (is_integer_type(dtype)) {
    Error err = integer_bound(*args[1], &lo);
    if (!err.ok() || !(err = integer_bound(*args[2], &hi)).ok()) return err;
  }
  Value* clamp_args[] = {args[0], &lo, &hi, args[3]};
  return ctx.call("aten::clamp.out", clamp_args);
}

}  // namespace

extern const KernelDef hardtanh_out{kOp, "Tss|T", &hardtanh_out_impl, kCalls, kElementwiseLayout};

}  // namespace sb::kernels
