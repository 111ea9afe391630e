// executorch_prim::sym_not.Scalar(Scalar a) -> Scalar
#include "prim/util/scalar.h"

namespace sb::prim {
namespace {

Error sym_not_impl(KernelContext& ctx, Args args) {
  const Value& a = *args[0];
  if (a.tag != Tag::kBool) return bad_type(ctx.kernel().op, a);
  returned(args, 1) = Value::from_bool(!a.as_bool);
  return Error();
}

}  // namespace

extern const KernelDef prim_sym_not_Scalar{"executorch_prim::sym_not.Scalar", "s>s", &sym_not_impl, {}};

}  // namespace sb::prim
