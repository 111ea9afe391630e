// aten::div.out_mode(Tensor self, Tensor other, *, str? rounding_mode, Tensor(a!) out)
//
// rounding_mode "trunc" or "floor" rounds the quotient (integers stay
// integers; an integer zero divisor is refused); None is true division,
// which ATen computes as div.out: dispatched to it.
#include <cstring>

#include "sb/kernel.h"
#include "util/arith.h"
#include "util/arith_ops.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::div.out_mode";
constexpr const char* kCalls[] = {"aten::div.out"};

bool equals(Span<const char> s, const char* literal) {
  return s.size() == strlen(literal) && memcmp(s.data(), literal, s.size()) == 0;
}

Error div_out_mode_impl(KernelContext& ctx, Args args) {
  const Value& mode = *args[2];
  if (mode.is_none()) {
    Value* div_args[] = {args[0], args[1], args[3]};
    return ctx.call("aten::div.out", div_args);
  }
  const bool trunc = equals(mode.as_string, "trunc");
  if (!trunc && !equals(mode.as_string, "floor")) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: rounding_mode must be 'trunc', 'floor' or None", kOp);
  }
  const Tensor& self = *args[0]->as_tensor;
  const Tensor& other = *args[1]->as_tensor;
  const bool integral = !is_floating_type(promote_types(self.dtype, other.dtype));
  bool by_zero = false;
  Error err = arith_tensor<kOp, DivisionRule>(self, other, *args[3]->as_tensor, [&](auto x, auto y) {
    if (integral && y == 0) by_zero = true;
    return trunc ? arith::div_trunc(x, y) : arith::div_floor(x, y);
  });
  return err.ok() && by_zero ? integer_division_by_zero(kOp) : err;
}

}  // namespace

extern const KernelDef div_out_mode{kOp, "TTZ|T", &div_out_mode_impl, kCalls, kElementwiseLayout};

}  // namespace sb::kernels
