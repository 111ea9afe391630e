// aten::div.Scalar_mode_out(Tensor self, Scalar other, *, str? rounding_mode, Tensor(a!) out)
//
// As div.out_mode with a Scalar divisor; None dispatches to div.Scalar_out.
#include <cstring>

#include "sb/kernel.h"
#include "util/arith.h"
#include "util/arith_ops.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::div.Scalar_mode_out";
constexpr const char* kCalls[] = {"aten::div.Scalar_out"};

bool equals(Span<const char> s, const char* literal) {
  return s.size() == strlen(literal) && memcmp(s.data(), literal, s.size()) == 0;
}

Error div_scalar_mode_out_impl(KernelContext& ctx, Args args) {
  const Value& mode = *args[2];
  if (mode.is_none()) {
    Value* div_args[] = {args[0], args[1], args[3]};
    return ctx.call("aten::div.Scalar_out", div_args);
  }
  const bool trunc = equals(mode.as_string, "trunc");
  if (!trunc && !equals(mode.as_string, "floor")) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: rounding_mode must be 'trunc', 'floor' or None", kOp);
  }
  const Tensor& self = *args[0]->as_tensor;
  const Value& other = *args[1];
  if (!is_floating_type(arith_scalar_common<DivisionRule>(self, other)) && other.scalar_as_double() == 0.0) {
    return integer_division_by_zero(kOp);
  }
  return arith_scalar<kOp, DivisionRule>(self, other, *args[3]->as_tensor, [=](auto x, auto y) {
    return trunc ? arith::div_trunc(x, y) : arith::div_floor(x, y);
  });
}

}  // namespace

extern const KernelDef div_Scalar_mode_out{kOp, "TsZ|T", &div_scalar_mode_out_impl, kCalls, kElementwiseLayout};

}  // namespace sb::kernels
