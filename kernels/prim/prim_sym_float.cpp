// executorch_prim::sym_float.Scalar(Scalar a) -> Scalar
#include "prim/util/scalar.h"

namespace sb::prim {
namespace {

Error sym_float_impl(KernelContext& ctx, Args args) {
  const Value& a = *args[0];
  if (!a.is_scalar()) return bad_type(ctx.kernel().op, a);
  returned(args, 1) = Value::from_double(a.scalar_as_double());
  return Error();
}

}  // namespace

extern const KernelDef prim_sym_float_Scalar{"executorch_prim::sym_float.Scalar", "s>s", &sym_float_impl, {}};

}  // namespace sb::prim
