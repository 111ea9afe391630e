// executorch_prim::floordiv.Scalar(Scalar a, Scalar b) -> Scalar
//
// Python's a // b: rounds toward negative infinity, for ints and doubles.
#include <cmath>

#include "prim/util/scalar.h"

namespace sb::prim {
namespace {

// (a - fmod(a, b)) / b, one less when the remainder's sign differs from b's;
// +-inf for b == 0, as Python's float division by zero would not give.
double floor_div(double a, double b) {
  if (b == 0) return std::signbit(a) ? -INFINITY : INFINITY;
  const double mod = std::fmod(a, b);
  const double div = (a - mod) / b;
  return (mod != 0 && std::signbit(b) != std::signbit(mod)) ? div - 1 : div;
}

Error floordiv_scalar_impl(KernelContext& ctx, Args args) {
  const Value& a = *args[0];
  const Value& b = *args[1];
  if (!is_number(a) || !is_number(b)) return bad_types(ctx.kernel().op, a, b);
  if (a.tag == Tag::kInt && b.tag == Tag::kInt) {
    if (b.as_int == 0) return zero_division(ctx.kernel().op);
    const int64_t q = div_trunc(a.as_int, b.as_int);
    const bool round_down = (a.as_int < 0) != (b.as_int < 0) && rem_trunc(a.as_int, b.as_int) != 0;
    returned(args, 2) = Value::from_int(round_down ? sub_wrap(q, 1) : q);
  } else {
    returned(args, 2) = Value::from_double(floor_div(as_double(a), as_double(b)));
  }
  return Error();
}

}  // namespace

extern const KernelDef prim_floordiv_Scalar{"executorch_prim::floordiv.Scalar", "ss>s", &floordiv_scalar_impl, {}};

}  // namespace sb::prim
