// executorch_prim::sym_ite.Scalar(Scalar b, Scalar then, Scalar else) -> Scalar
//
// A symbolic if-then-else: the condition must be a bool, the chosen branch a scalar.
#include "prim/util/scalar.h"

namespace sb::prim {
namespace {

Error sym_ite_impl(KernelContext& ctx, Args args) {
  const Value& b = *args[0];
  if (b.tag != Tag::kBool) return bad_type(ctx.kernel().op, b);
  const Value& chosen = b.as_bool ? *args[1] : *args[2];
  if (!chosen.is_scalar()) return bad_type(ctx.kernel().op, chosen);
  returned(args, 3) = chosen;
  return Error();
}

}  // namespace

extern const KernelDef prim_sym_ite_Scalar{"executorch_prim::sym_ite.Scalar", "sss>s", &sym_ite_impl, {}};

}  // namespace sb::prim
