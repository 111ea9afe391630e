// executorch_prim::truediv.Scalar(Scalar a, Scalar b) -> Scalar
//
// Always a double, as Python's a / b.
#include "prim/util/scalar.h"

namespace sb::prim {
namespace {

Error truediv_scalar_impl(KernelContext& ctx, Args args) {
  const Value& a = *args[0];
  const Value& b = *args[1];
  if (!is_number(a) || !is_number(b)) return bad_types(ctx.kernel().op, a, b);
  returned(args, 2) = Value::from_double(as_double(a) / as_double(b));
  return Error();
}

}  // namespace

extern const KernelDef prim_truediv_Scalar{"executorch_prim::truediv.Scalar", "ss>s", &truediv_scalar_impl, {}};

}  // namespace sb::prim
