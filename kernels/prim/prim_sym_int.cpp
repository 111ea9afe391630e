// executorch_prim::sym_int.Scalar(Scalar a) -> Scalar
//
// A double becomes an int as a C cast would make it; out of range and NaN
// saturate instead of being undefined (Value::scalar_as_int).
#include "prim/util/scalar.h"

namespace sb::prim {
namespace {

Error sym_int_impl(KernelContext& ctx, Args args) {
  const Value& a = *args[0];
  if (!a.is_scalar()) return bad_type(ctx.kernel().op, a);
  returned(args, 1) = Value::from_int(a.scalar_as_int());
  return Error();
}

}  // namespace

extern const KernelDef prim_sym_int_Scalar{"executorch_prim::sym_int.Scalar", "s>s", &sym_int_impl, {}};

}  // namespace sb::prim
